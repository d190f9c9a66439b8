package physics

import (
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/geom"
)

// TestNoSleepKeepsIslandAwake: a box with NoSleep never sleeps, nor does
// a box resting on it; a box alone beside them does; SetNoSleep(false)
// lets the two sleep.
func TestNoSleepKeepsIslandAwake(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	tw.floor(0.5, 0)
	d := NewBodyDef(Dynamic, unitBox)
	d.NoSleep = true
	low := tw.add(d, mgl32.Vec3{0, 0.5, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	top := tw.add(NewBodyDef(Dynamic, unitBox), mgl32.Vec3{0, 1.5, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	lone := tw.add(NewBodyDef(Dynamic, unitBox), mgl32.Vec3{5, 0.5, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	tw.steps(240)
	if tw.s.Asleep(low) || tw.s.Asleep(top) || !tw.s.Asleep(lone) {
		t.Fatalf("asleep: NoSleep box %v, box on it %v, lone box %v; want false, false, true", tw.s.Asleep(low), tw.s.Asleep(top), tw.s.Asleep(lone))
	}
	if b, _ := tw.s.Body(low); !b.NoSleep {
		t.Error("Body.NoSleep is false")
	}
	if err := tw.s.SetNoSleep(low, false); err != nil {
		t.Fatal(err)
	}
	tw.steps(120)
	if !tw.s.Asleep(low) || !tw.s.Asleep(top) {
		t.Errorf("after SetNoSleep(false), asleep: %v %v", tw.s.Asleep(low), tw.s.Asleep(top))
	}
	if err := tw.s.SetNoSleep(low, true); err != nil || tw.s.Asleep(low) {
		t.Errorf("SetNoSleep(true) on a sleeper: %v, asleep %v", err, tw.s.Asleep(low))
	}
}

// TestStartAsleep: a body added with StartAsleep hangs in the air until
// something wakes it; then it falls.
func TestStartAsleep(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	d := NewBodyDef(Dynamic, unitBox)
	d.StartAsleep = true
	box := tw.add(d, mgl32.Vec3{0, 5, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	tw.steps(60)
	if !tw.s.Asleep(box) || tw.pos(box) != (mgl32.Vec3{0, 5, 0}) {
		t.Fatalf("asleep %v at %v; want asleep at 0 5 0", tw.s.Asleep(box), tw.pos(box))
	}
	tw.s.WakeUp(box)
	tw.steps(1)
	if tw.s.Asleep(box) || tw.vel(box)[1] >= 0 {
		t.Errorf("after WakeUp: asleep %v, velocity %v", tw.s.Asleep(box), tw.vel(box))
	}
}

// TestStartAsleepRefused: StartAsleep with NoSleep, on a body that is not
// dynamic, or with a velocity, is refused with a message that says why.
func TestStartAsleepRefused(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	for _, c := range []struct {
		name string
		def  func() BodyDef
		vel  mgl32.Vec3
		want string
	}{
		{"no sleep", func() BodyDef { d := NewBodyDef(Dynamic, unitBox); d.NoSleep = true; return d }, mgl32.Vec3{}, "never sleep"},
		{"static", func() BodyDef { return NewBodyDef(Static, unitBox) }, mgl32.Vec3{}, "cannot start asleep"},
		{"moving", func() BodyDef { return NewBodyDef(Dynamic, unitBox) }, mgl32.Vec3{1, 0, 0}, "must be at rest"},
	} {
		d := c.def()
		d.StartAsleep = true
		e := tw.w.Spawn(geom.NewTransform(mgl32.Vec3{}), engine.Interpolate)
		tw.w.SetDrawVelocity(e, c.vel, mgl32.Vec3{})
		err := tw.s.AddBody(e, d)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want an error containing %q", c.name, err, c.want)
		}
	}
}

// TestSleepEvents: the events of a box that falls asleep, is woken by a
// box dropped on it and falls asleep again with it, in slot order, each
// once; none in the steps between.
func TestSleepEvents(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	tw.floor(0.5, 0)
	low := tw.add(NewBodyDef(Dynamic, unitBox), mgl32.Vec3{0, 0.5, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	var got []string
	record := func() {
		for _, ev := range tw.s.SleepEvents() {
			name := "low"
			if ev.Entity != low {
				name = "top"
			}
			if ev.Asleep {
				got = append(got, name+" asleep")
			} else {
				got = append(got, name+" awake")
			}
		}
	}
	for range 60 {
		tw.s.Step()
		record()
	}
	tw.add(NewBodyDef(Dynamic, unitBox), mgl32.Vec3{0, 1.6, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	for range 240 {
		tw.s.Step()
		record()
	}
	want := "low asleep,low awake,low asleep,top asleep"
	if s := strings.Join(got, ","); s != want {
		t.Errorf("events %q; want %q", s, want)
	}
}

// TestSleepCall: Sleep stops a falling body where it is; a NoSleep body
// and a static one are refused.
func TestSleepCall(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	box := tw.add(NewBodyDef(Dynamic, unitBox), mgl32.Vec3{0, 10, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	tw.steps(10)
	if err := tw.s.Sleep(box); err != nil {
		t.Fatal(err)
	}
	p := tw.pos(box)
	tw.steps(10)
	if !tw.s.Asleep(box) || tw.pos(box) != p || tw.vel(box) != (mgl32.Vec3{}) {
		t.Errorf("asleep %v at %v (was %v), velocity %v", tw.s.Asleep(box), tw.pos(box), p, tw.vel(box))
	}
	d := NewBodyDef(Dynamic, unitBox)
	d.NoSleep = true
	ns := tw.add(d, mgl32.Vec3{5, 10, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	if err := tw.s.Sleep(ns); err == nil {
		t.Error("Sleep of a NoSleep body: no error")
	}
	if err := tw.s.Sleep(tw.floor(0.5, 0)); err == nil {
		t.Error("Sleep of a static body: no error")
	}
}

// TestSleepWakeNoAllocs: a stack that is woken, moves, falls asleep again
// (with its sleep events) and has a sleeper added asleep beside it (whose
// pairs the next step finds) allocates nothing per step once the buffers
// have grown.
func TestSleepWakeNoAllocs(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	tw.floor(0.5, 0)
	stack := tw.rowOfCubes(3, 0, 0, 0.5, 1, nil)
	side := tw.add(NewBodyDef(Dynamic, unitBox), mgl32.Vec3{1, 0.5, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	cycle := func() {
		if err := tw.s.ApplyImpulse(stack[2], mgl32.Vec3{0.2, 0, 0}); err != nil {
			t.Fatal(err)
		}
		if err := tw.s.Sleep(side); err != nil {
			t.Fatal(err)
		}
		for range 120 {
			tw.s.Step()
		}
	}
	cycle()
	cycle()
	if tw.numAsleep(stack) != len(stack) {
		t.Fatalf("the stack does not fall asleep within a cycle")
	}
	if a := testing.AllocsPerRun(3, cycle); a != 0 {
		t.Errorf("%v allocations per cycle of 120 steps; want 0", a)
	}
}

// TestMaxExtentOfEveryDynamicShape: the lever that turns a body's turning
// into the speed of its farthest point, which sleep measures, is the
// distance to that point for every shape a dynamic body can have (a
// cylinder's rim, a hull's farthest vertex): a spinning cylinder or hull
// is not calm.
func TestMaxExtentOfEveryDynamicShape(t *testing.T) {
	h, err := NewConvexHull([]mgl32.Vec3{{-1, -2, -3}, {1, -2, -3}, {-1, 2, -3}, {1, 2, -3}, {-1, -2, 3}, {1, -2, 3}, {-1, 2, 3}, {1, 2, 3}}, DefaultHullVertices)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		sh   shape
		want float32
	}{
		{"sphere", shape{kind: Sphere, radius: 0.5}, 0.5},
		{"capsule", shape{kind: Capsule, radius: 0.5, halfHeight: 1}, 1.5},
		{"box", shape{kind: Box, half: vec3{1, 2, 2}}, 3},
		{"cylinder", shape{kind: Cylinder, radius: 3, halfHeight: 4}, 5},
		{"hull", shape{kind: ConvexHull, hull: h}, sqrt(14)},
	} {
		if got := maxExtent(&tc.sh); !nearF(float64(got), float64(tc.want), 1e-5) {
			t.Errorf("%s: maxExtent %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestInnerRadiusOfEveryDynamicShape: automatic CCD counts a body as fast
// by its inner radius; a cylinder or hull moving slowly is not fast.
func TestInnerRadiusOfEveryDynamicShape(t *testing.T) {
	h, err := NewConvexHull([]mgl32.Vec3{{-1, -2, -3}, {1, -2, -3}, {-1, 2, -3}, {1, 2, -3}, {-1, -2, 3}, {1, -2, 3}, {-1, 2, 3}, {1, 2, 3}}, DefaultHullVertices)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		sh   shape
		want float32
	}{
		{"cylinder", shape{kind: Cylinder, radius: 3, halfHeight: 4}, 3},
		{"flat cylinder", shape{kind: Cylinder, radius: 3, halfHeight: 0.5}, 0.5},
		{"hull", shape{kind: ConvexHull, hull: h}, 1},
	} {
		if got := innerRadius(&tc.sh); !nearF(float64(got), float64(tc.want), 1e-5) {
			t.Errorf("%s: innerRadius %v, want %v", tc.name, got, tc.want)
		}
		if fast(&tc.sh, vec3{0.1, 0, 0}, 1.0/60) {
			t.Errorf("%s at 0.1 m/s counts as fast", tc.name)
		}
	}
}
