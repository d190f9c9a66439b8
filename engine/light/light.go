// Package light gives entities point and spot lights, as components of
// the world's state, and gathers them into each frame in world space.
//
// A light is an entity with the "light" component (Light): a lamp's bulb,
// a pivot of its own (render.MeshNone) parented to a moving torch, a
// spotlight on a turret. It rides the hierarchy and is interpolated like
// anything drawn: the Render system Gather places each light where its
// entity is drawn in the frame (engine.World.DrawTransform), a spot light
// pointing along the entity's -Z axis, and appends it to the frame's
// lights (render.Frame.Lights), which the renderer draws with. A light
// whose entity is hidden (engine.World.SetVisible, inherited) gives no
// light. Being state, a light switched on or off in a fixed system is
// rolled back, replayed and hashed like the rest of the tick.
//
//	lights := light.New(e.World)                  // registers the "light" component
//	lamp := e.World.Spawn(geom.NewTransform(mgl32.Vec3{0, 3, 0}), engine.Interpolate)
//	e.World.SetMesh(lamp, render.MeshNone)         // a pivot: the light alone
//	lights.Component().Set(lamp, light.Point([3]uint8{255, 200, 120}, 20, 8))
//	e.AddRender("lights", lights.Gather)           // before the frame is drawn
package light

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/geom"
	"github.com/nebulaengine/nebula/engine/render"
)

// ComponentName is the name New registers the Light component under.
const ComponentName = "light"

// Light is the light an entity gives: the "light" component.
type Light struct {
	// Kind is render.PointLight or render.SpotLight.
	Kind render.LightKind
	// Color is the light's colour, sRGB bytes taken as linear.
	Color [3]uint8
	// Intensity multiplies the colour (Color/255 · Intensity is
	// render.Light.Color): 1 lights a surface facing it from nearby with
	// its own colour.
	Intensity float32
	// Range is the distance, metres, at which the light fades out. Above
	// 0.
	Range float32
	// Inner and Outer are a spot light's half-angles, radians: full light
	// within Inner of its axis, none beyond Outer (0 <= Inner < Outer <=
	// π/2). A point light leaves them 0.
	Inner, Outer float32
}

// Point returns a point light of the colour, intensity and range.
func Point(color [3]uint8, intensity, lightRange float32) Light {
	return Light{Kind: render.PointLight, Color: color, Intensity: intensity, Range: lightRange}
}

// Spot returns a spot light of the colour, intensity and range, full
// within inner of its axis and dark beyond outer (half-angles, radians).
func Spot(color [3]uint8, intensity, lightRange, inner, outer float32) Light {
	return Light{Kind: render.SpotLight, Color: color, Intensity: intensity, Range: lightRange, Inner: inner, Outer: outer}
}

// Validate reports what is wrong with l, or nil: a kind that is not a
// light's, an intensity or range that is negative or not finite, a range
// of 0, or spot angles out of order.
func (l Light) Validate() error {
	switch {
	case l.Kind > render.SpotLight:
		return fmt.Errorf("light: kind %d is not render.PointLight or render.SpotLight", l.Kind)
	case !(l.Intensity >= 0 && l.Intensity <= math.MaxFloat32):
		return fmt.Errorf("light: intensity %v, want a finite value, not below 0", l.Intensity)
	case !(l.Range > 0 && l.Range <= math.MaxFloat32):
		return fmt.Errorf("light: range %v m, want a finite value above 0", l.Range)
	case l.Kind == render.SpotLight && !(l.Inner >= 0 && l.Inner < l.Outer && l.Outer <= math.Pi/2):
		return fmt.Errorf("light: spot angles inner %v and outer %v rad, want 0 <= inner < outer <= π/2", l.Inner, l.Outer)
	}
	return nil
}

// Lights owns the "light" component of a world and gathers its lights
// into the frame.
type Lights struct {
	w    *engine.World
	comp *engine.Component[Light]
}

// New registers the "light" component with w and returns its owner. Call
// it where the world's components are registered, in the same order in
// every run.
func New(w *engine.World) *Lights {
	return &Lights{w: w, comp: engine.NewComponent[Light](w, ComponentName)}
}

// Component returns the "light" component: Set gives an entity a light,
// Remove takes it away.
func (l *Lights) Component() *engine.Component[Light] { return l.comp }

// Gather is the Render system that appends every visible light to the
// frame's lights (c.Render.Lights), in slot order, in world space: at its
// entity's drawn place (engine.World.DrawTransform), a spot light along
// the entity's -Z axis. A light whose entity is hidden, or that is not
// valid (Light.Validate), is left out. It does not allocate once the
// frame's light slice has grown.
func (l *Lights) Gather(c *engine.FrameContext) {
	if c.World != l.w {
		panic("light: Gather: the frame's world is not the one New registered the lights with")
	}
	rb := c.Render
	vals, _ := l.comp.Slices()
	for _, i := range l.comp.Indices() {
		e, _ := l.w.EntityAt(int(i))
		v := &vals[i]
		if !l.w.VisibleInTree(e) || v.Validate() != nil {
			continue
		}
		t, ok := l.w.DrawTransform(e, rb)
		if !ok {
			continue
		}
		k := v.Intensity / 255
		out := render.Light{
			Kind:  v.Kind,
			Pos:   t.Pos,
			Color: mgl32.Vec3{float32(v.Color[0]) * k, float32(v.Color[1]) * k, float32(v.Color[2]) * k},
			Range: v.Range,
		}
		if v.Kind == render.SpotLight {
			out.Dir = geom.Rotate(t.Rot, mgl32.Vec3{0, 0, -1})
			out.CosInner = float32(math.Cos(float64(v.Inner)))
			out.CosOuter = float32(math.Cos(float64(v.Outer)))
		}
		rb.Lights = append(rb.Lights, out)
	}
}
