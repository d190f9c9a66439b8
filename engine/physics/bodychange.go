package physics

import (
	"errors"
	"fmt"
	"strings"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
)

// Changing a live body. Everything a change touches is in the Body
// component (its kind, shape, mass, layers, sleep state) or the world
// (velocities), so snapshots, rollback and replays carry it: a change made
// in a tick is undone by rolling back past it and made again when the
// tick is simulated again. The broad phase is rebuilt from the bodies
// every step, so it sees the change in the next Step. The body wakes, and
// so does every body touching it (a support that changed may no longer
// hold them up); contacts that no longer apply end in the next Step, with
// their End events.

// SetShape gives the body e the shape sh. A dynamic body's mass and
// inertia are recomputed from sh at density (kg/m³, positive; ignored for
// static and kinematic bodies), its velocity is kept. It returns an
// error, and changes nothing, when e is not a body or sh is not a shape e
// may have (Shape's rules; meshes and height fields for static bodies
// only; meshes, compounds, hulls and height fields added to the Space).
//
//	// A crate breaks into a flat plank, twice as dense.
//	err := space.SetShape(crate, physics.Shape{Kind: physics.Box, HalfExtents: mgl32.Vec3{1, 0.1, 0.5}}, 2)
func (s *Space) SetShape(e engine.Entity, sh Shape, density float32) error {
	b := s.bodies.Ptr(e)
	if b == nil {
		return fmt.Errorf("physics: SetShape(%v): the entity is not a body", e)
	}
	nb, err := s.remake("SetShape", e, b, b.Kind, sh, density)
	if err != nil {
		return err
	}
	nb.Shape = sh
	s.replace(e, b, nb)
	return nil
}

// SetKind makes the body e a body of kind k (Dynamic, Static or
// Kinematic), keeping its shape, material and layers. Made dynamic, its
// mass and inertia come from its shape at density (kg/m³, positive;
// ignored for the other kinds); made static, it stops (its velocities are
// zeroed); made kinematic, it keeps its velocity. It returns an error, and
// changes nothing, when e is not a body, k is unknown, or e's shape is a
// mesh or height field and k is not Static.
func (s *Space) SetKind(e engine.Entity, k Kind, density float32) error {
	b := s.bodies.Ptr(e)
	if b == nil {
		return fmt.Errorf("physics: SetKind(%v): the entity is not a body", e)
	}
	nb, err := s.remake("SetKind", e, b, k, b.Shape, density)
	if err != nil {
		return err
	}
	if k == Static {
		wb := s.w.Bodies()
		i := e.Index()
		wb.Vel[i], wb.AngVel[i] = mgl32.Vec3{}, mgl32.Vec3{}
	}
	s.replace(e, b, nb)
	return nil
}

// SetLayers sets the body e's collision Layer and Mask (two bodies
// collide when a.Layer&b.Mask != 0 && b.Layer&a.Mask != 0) and wakes it
// and what it touches. It returns an error when e is not a body.
func (s *Space) SetLayers(e engine.Entity, layer, mask uint32) error {
	b := s.bodies.Ptr(e)
	if b == nil {
		return fmt.Errorf("physics: SetLayers(%v): the entity is not a body", e)
	}
	b.Layer, b.Mask = layer, mask
	s.wakeWith(e, b)
	return nil
}

// remake returns the Body e would have as a body of kind k and shape sh
// (density for a dynamic one), keeping everything else of b but its
// forces, or an error naming call.
func (s *Space) remake(call string, e engine.Entity, b *Body, k Kind, sh Shape, density float32) (Body, error) {
	d := BodyDef{
		Kind: k, Shape: sh, Density: density,
		Friction: b.Friction, Restitution: b.Restitution,
		FrictionCombine: b.FrictionCombine, RestitutionCombine: b.RestitutionCombine,
		LinearDamping: b.LinearDamping, AngularDamping: b.AngularDamping,
		GravityScale: b.GravityScale, Locks: b.Locks,
		CCD: b.CCD, Sensor: b.Sensor, NoSleep: b.NoSleep, Layer: b.Layer, Mask: b.Mask,
	}
	if k != Dynamic {
		d.Density = 1 // unused
	}
	if err := d.validate(); err != nil {
		return Body{}, fmt.Errorf("physics: %s(%v): %w", call, e, err)
	}
	if err := s.checkAssets(sh, k, d.Density); err != nil {
		return Body{}, fmt.Errorf("physics: %s(%v): %w", call, e, errors.New(strings.TrimPrefix(err.Error(), "physics: ")))
	}
	bs := s.bodyShape(sh)
	nb := newBody(&d, &bs)
	return nb, nil
}

// replace puts nb in place of e's body b, awake, and wakes what b
// touches.
func (s *Space) replace(e engine.Entity, b *Body, nb Body) {
	*b = nb
	s.wakeWith(e, b)
}

// wakeWith wakes the body b of e (if dynamic) and every sleeping dynamic
// body that has a contact with it in the cache, in the cache's order.
func (s *Space) wakeWith(e engine.Entity, b *Body) {
	if b.Kind == Dynamic {
		wake(b)
	}
	cs := s.contacts.Ptr().m
	for i := range cs {
		m := &cs[i]
		var o engine.Entity
		switch e {
		case m.a:
			o = m.b
		case m.b:
			o = m.a
		default:
			continue
		}
		if ob := s.bodies.Ptr(o); ob != nil && ob.Kind == Dynamic && ob.Asleep {
			wake(ob)
		}
	}
}
