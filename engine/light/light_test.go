package light_test

import (
	"math"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/geom"
	"github.com/nebulaengine/nebula/engine/light"
	"github.com/nebulaengine/nebula/engine/render"
)

// Gather places each light where its entity is drawn: a point light on a
// pivot that moved from x = 0 to x = 2 over the tick is at x = 0.5 at
// alpha 0.25; a spot light on a child turned a quarter turn about Y points
// along its -Z turned, -X; a light under a hidden parent, and an invalid
// one, give no light. The colour is Color/255 times the intensity.
func TestGatherPlacesLightsWhereTheirEntitiesAreDrawn(t *testing.T) {
	w := engine.NewWorld(1)
	lights := light.New(w)
	bulb := w.Spawn(geom.NewTransform(mgl32.Vec3{0, 3, 0}), engine.Interpolate)
	w.SetMesh(bulb, render.MeshNone)
	lights.Component().Set(bulb, light.Point([3]uint8{255, 128, 0}, 2, 8))
	turret := w.Spawn(geom.NewTransform(mgl32.Vec3{0, 1, 0}), engine.Interpolate)
	lamp := w.Spawn(geom.Transform{Pos: mgl32.Vec3{0, 1, 0}, Rot: mgl32.QuatRotate(math.Pi/2, mgl32.Vec3{0, 1, 0}), Scale: mgl32.Vec3{1, 1, 1}}, engine.Interpolate)
	if err := w.SetParent(lamp, turret, engine.KeepLocal); err != nil {
		t.Fatal(err)
	}
	lights.Component().Set(lamp, light.Spot([3]uint8{255, 255, 255}, 1, 10, 0.2, 0.4))
	broken := w.Spawn(geom.NewTransform(mgl32.Vec3{}), engine.Interpolate)
	lights.Component().Set(broken, light.Point([3]uint8{255, 255, 255}, 1, 0)) // range 0: invalid
	w.BeginTick(1)
	w.SetTransform(bulb, geom.NewTransform(mgl32.Vec3{2, 3, 0}))

	var rb engine.RenderBuffer
	gather := func(alpha float32) []render.Light {
		w.Interpolate(alpha, 1.0/60, engine.DefaultInterpolationConfig(), &rb)
		lights.Gather(&engine.FrameContext{World: w, Render: &rb, Alpha: alpha})
		return rb.Lights
	}
	got := gather(0.25)
	if len(got) != 2 {
		t.Fatalf("%d lights, want 2 (the bulb and the spot): %+v", len(got), got)
	}
	b, s := got[0], got[1]
	if b.Kind != render.PointLight || b.Pos != (mgl32.Vec3{0.5, 3, 0}) || b.Color != (mgl32.Vec3{2, float32(128) * 2 / 255, 0}) || b.Range != 8 {
		t.Errorf("the bulb: %+v, want a point light at (0.5, 3, 0), colour (2, 1.004, 0), range 8", b)
	}
	if s.Kind != render.SpotLight || s.Pos.Sub(mgl32.Vec3{0, 2, 0}).Len() > 1e-6 || s.Dir.Sub(mgl32.Vec3{-1, 0, 0}).Len() > 1e-6 ||
		math.Abs(float64(s.CosInner)-math.Cos(0.2)) > 1e-7 || math.Abs(float64(s.CosOuter)-math.Cos(0.4)) > 1e-7 {
		t.Errorf("the spot: %+v, want at (0, 2, 0) pointing along -X, cosines of 0.2 and 0.4", s)
	}
	w.SetVisible(turret, false)
	if got := gather(1); len(got) != 1 || got[0].Pos != (mgl32.Vec3{2, 3, 0}) {
		t.Errorf("the turret hidden, alpha 1: %+v, want only the bulb at (2, 3, 0)", got)
	}
}

// Validate refuses what a light cannot be, naming the field.
func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		l    light.Light
		want string
	}{
		{light.Point([3]uint8{1, 1, 1}, 1, 5), ""},
		{light.Spot([3]uint8{1, 1, 1}, 1, 5, 0.1, 0.5), ""},
		{light.Light{Kind: 7, Intensity: 1, Range: 1}, "kind 7"},
		{light.Point([3]uint8{1, 1, 1}, -1, 5), "intensity -1"},
		{light.Point([3]uint8{1, 1, 1}, float32(math.Inf(1)), 5), "intensity +Inf"},
		{light.Point([3]uint8{1, 1, 1}, 1, 0), "range 0 m"},
		{light.Spot([3]uint8{1, 1, 1}, 1, 5, 0.5, 0.5), "spot angles inner 0.5 and outer 0.5"},
		{light.Spot([3]uint8{1, 1, 1}, 1, 5, 0, 2), "spot angles inner 0 and outer 2"},
	} {
		err := tc.l.Validate()
		if (tc.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Validate(%+v) = %v, want %q", tc.l, err, tc.want)
		}
	}
}
