package sound

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/geom"
)

// Spatial follows OpenAL's inverse distance clamped model (rolloff 1):
// gain Near/d between Near and Far, 1 within Near, Near/Far beyond Far;
// the pan is the sine of the angle toward the right ear.
func TestSpatialKnownAnswers(t *testing.T) {
	l := Listener{Pos: mgl32.Vec3{1, 0, 0}, Forward: mgl32.Vec3{0, 0, -1}, Up: mgl32.Vec3{0, 1, 0}} // right ear toward +x
	r := Rolloff{Near: 2, Far: 50}
	for _, tc := range []struct {
		pos       mgl32.Vec3
		gain, pan float32
	}{
		{mgl32.Vec3{1, 0, -1}, 1, 0},    // within Near, straight ahead
		{mgl32.Vec3{1, 0, -8}, 0.25, 0}, // 8 m ahead: 2/8
		{mgl32.Vec3{5, 0, 0}, 0.5, 1},   // 4 m to the right
		{mgl32.Vec3{-3, 0, 0}, 0.5, -1}, // 4 m to the left
		{mgl32.Vec3{1 + 3, 0, -3}, 2 / (3 * float32(math.Sqrt2)), float32(math.Sqrt2) / 2}, // 45° right
		{mgl32.Vec3{1, 0, 100}, 0.04, 0}, // behind, beyond Far: 2/50
		{mgl32.Vec3{1, 0, 0}, 1, 0},      // at the listener
	} {
		g, p := Spatial(l, r, tc.pos)
		if math.Abs(float64(g-tc.gain)) > 1e-6 || math.Abs(float64(p-tc.pan)) > 1e-6 {
			t.Errorf("at %v: gain %v, pan %v; want %v, %v", tc.pos, g, p, tc.gain, tc.pan)
		}
	}
	if err := (Rolloff{Near: 0, Far: 1}).Validate(); err == nil {
		t.Error("a rolloff with Near 0 was accepted")
	}
}

// A spatial sound follows its entity as it is drawn: started where the
// entity is, 4 m to the listener's right (gain 0.5, pan 1), then placed
// again each frame as the entity moves to its left, 8 m away.
func TestSpatialSoundFollowsItsEntity(t *testing.T) {
	g := newGame(t)
	w := g.e.World
	car := w.Spawn(geom.NewTransform(mgl32.Vec3{4, 0, 0}), engine.Interpolate)
	if err := g.e.AddSystem(engine.StageScripts, "engine noise", func(c *engine.FixedContext) {
		if c.Tick == 1 {
			g.s.Emit(c, Event{Sound: g.hum, Entity: car, Spatial: true})
		}
		if c.Tick == 2 {
			w.SetTransform(car, geom.NewTransform(mgl32.Vec3{-8, 0, 0}))
		}
	}); err != nil {
		t.Fatal(err)
	}
	g.s.SetListener(Listener{Forward: mgl32.Vec3{0, 0, -1}, Up: mgl32.Vec3{0, 1, 0}})
	frame := func() {
		rb := &g.e.Render
		w.Interpolate(1, float32(g.dt), engine.DefaultInterpolationConfig(), rb)
		g.s.Reconcile(&engine.FrameContext{World: w, Render: rb})
	}
	if !g.e.StepTick(engine.TickTime(1, g.e.TickRate())) {
		t.Fatal(g.e.Err())
	}
	frame()
	if len(g.out.plays) != 1 || g.out.plays[0].p.Volume != 0.5 || g.out.plays[0].p.Pan != 1 {
		t.Fatalf("plays %+v; want the hum at volume 0.5, pan 1", g.out.plays)
	}
	if !g.e.StepTick(engine.TickTime(2, g.e.TickRate())) {
		t.Fatal(g.e.Err())
	}
	frame()
	last := g.out.sets[len(g.out.sets)-1]
	if last.voice != g.out.plays[0].voice || last.volume != 0.25 || last.pan != -1 {
		t.Errorf("the last Set %+v; want the hum at volume 0.25, pan -1", last)
	}
}
