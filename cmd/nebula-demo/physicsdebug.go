package main

import (
	"github.com/nebulaengine/nebula/engine/desktop/physicsview"
	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/engine/physics/debugdraw"
	"github.com/nebulaengine/nebula/internal/cli"
)

// keyPhysicsDebug shows and hides the physics debug drawing (-physics
// mode).
const keyPhysicsDebug = input.KeyF4

// checkPhysicsDebug refuses -physics-debug where it means nothing.
func (f *flags) checkPhysicsDebug(opts *cli.Options) error {
	switch {
	case !f.physicsDebug:
		return nil
	case opts.Headless:
		return cli.Usagef("-physics-debug means nothing with -headless (nothing is drawn)")
	case !f.physics:
		return cli.Usagef("-physics-debug needs -physics (without it the scene has no physics to draw)")
	}
	return nil
}

// attachPhysicsDebug attaches the physics debug drawing to the window in
// the physics mode, shown from the start when on (-physics-debug).
func (d *windowDemo) attachPhysicsDebug(on bool) error {
	if d.sc.Space == nil {
		return nil
	}
	v, err := physicsview.Attach(d.r, d.sc.Space, debugdraw.DefaultOptions())
	if err != nil {
		return err
	}
	v.SetEnabled(on)
	d.physDebug = v
	return nil
}

// togglePhysicsDebug shows or hides the physics debug drawing (F4).
func (d *windowDemo) togglePhysicsDebug() {
	if d.physDebug == nil {
		d.log.Info("the physics debug drawing needs -physics")
		return
	}
	d.log.WithField("physics_debug", d.physDebug.Toggle()).Info("physics debug drawing toggled")
}
