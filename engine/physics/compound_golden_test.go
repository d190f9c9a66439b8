package physics

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
)

// compoundGoldenSteps is how many steps TestCompoundGoldenHash runs (5 s
// at 60 Hz).
const compoundGoldenSteps = 300

// compoundGoldenHash is the world's state hash after compoundGoldenSteps
// steps of compoundScene xor a hash of every contact event in order, the
// same on amd64 (GOAMD64 v1 and v3), arm64 and 386 (scripts/crossarch.sh
// runs this test on each). Check a new value on every architecture before
// pinning it.
const compoundGoldenHash uint64 = 0xf8095bd87179a5a4

// compoundScene adds to tw the compounds (always in the same order: they
// are assets, which a Space made for a restored world needs too) and,
// unless assetsOnly, the bodies of TestCompoundGoldenHash's scene: a bumpy
// mesh floor walled by four static boxes, a static L as a step, a
// kinematic dumbbell turning and sliding over the floor, a compound
// sensor, and a lattice of 3×3×3 dynamic dumbbells, Ls and stools (a
// seat on three capsule legs), each turned and moving, with a few
// spheres and boxes among them. Every number is a float32 constant or a
// rounded product of small integers: the same bits on every build.
func compoundScene(t testing.TB, tw *testWorld, assetsOnly bool) {
	t.Helper()
	add := func(parts []Part) CompoundID {
		id, err := tw.s.AddCompound(parts)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	// A Pythagorean quaternion tilts the stool's legs: 0.6² + 0.8² = 1.
	leg := Shape{Kind: Capsule, Radius: 0.08, HalfHeight: 0.3}
	db := add(dumbbellParts())
	l := add(lParts())
	stool := add([]Part{
		{Shape: Shape{Kind: Box, HalfExtents: mgl32.Vec3{0.5, 0.08, 0.5}}, Pos: mgl32.Vec3{0, 0.7, 0}},
		{Shape: leg, Pos: mgl32.Vec3{0.3, 0.3, 0}, Rot: mgl32.Quat{W: 0.96, V: mgl32.Vec3{0, 0, 0.28}}},
		{Shape: leg, Pos: mgl32.Vec3{-0.15, 0.3, 0.25}, Rot: mgl32.Quat{W: 0.96, V: mgl32.Vec3{0.28, 0, 0}}},
		{Shape: leg, Pos: mgl32.Vec3{-0.15, 0.3, -0.25}, Rot: mgl32.Quat{W: 0.96, V: mgl32.Vec3{-0.28, 0, 0}}},
		{Shape: Shape{Kind: Sphere, Radius: 0.1}, Pos: mgl32.Vec3{0, 0.85, 0}},
	})
	m := gridMesh(t, 12, func(x, z int) float32 { return float32((x*z+x)%3) * 0.0625 })
	mesh, err := tw.s.AddMesh(m)
	if err != nil {
		t.Fatal(err)
	}
	if assetsOnly {
		return
	}
	none := mgl32.Vec3{}
	id := mgl32.QuatIdent()
	tw.add(NewBodyDef(Static, Shape{Kind: Mesh, Mesh: mesh}), mgl32.Vec3{-6, 0, -6}, id, none, none)
	for _, w := range []struct{ pos, half mgl32.Vec3 }{
		{mgl32.Vec3{-6.5, 2, 0}, mgl32.Vec3{0.5, 2, 7}},
		{mgl32.Vec3{6.5, 2, 0}, mgl32.Vec3{0.5, 2, 7}},
		{mgl32.Vec3{0, 2, -6.5}, mgl32.Vec3{6, 2, 0.5}},
		{mgl32.Vec3{0, 2, 6.5}, mgl32.Vec3{6, 2, 0.5}},
	} {
		tw.add(NewBodyDef(Static, Shape{Kind: Box, HalfExtents: w.half}), w.pos, id, none, none)
	}
	tw.add(NewBodyDef(Static, CompoundShape(l)), mgl32.Vec3{-5, 0, 4}, id, none, none)
	tw.add(NewBodyDef(Kinematic, CompoundShape(db)), mgl32.Vec3{-4, 0.4, -4}, id, mgl32.Vec3{1, 0, 0.5}, mgl32.Vec3{0, 0.75, 0})
	sensor := NewBodyDef(Static, CompoundShape(stool))
	sensor.Sensor = true
	tw.add(sensor, mgl32.Vec3{3, 0, -3}, id, none, none)

	rots := []mgl32.Quat{
		{W: 0.8, V: mgl32.Vec3{0.6, 0, 0}},
		{W: 0.96, V: mgl32.Vec3{0, 0.28, 0}},
		{W: 0.5, V: mgl32.Vec3{0.5, 0.5, 0.5}},
		{W: 0, V: mgl32.Vec3{0.48, 0.6, 0.64}},
		{W: 0.6, V: mgl32.Vec3{0, 0, -0.8}},
		mgl32.QuatIdent(),
	}
	shapes := []Shape{CompoundShape(db), CompoundShape(l), CompoundShape(stool), {Kind: Sphere, Radius: 0.4},
		CompoundShape(db), CompoundShape(stool), {Kind: Box, HalfExtents: mgl32.Vec3{0.4, 0.3, 0.5}}}
	i := 0
	for y := range 3 {
		for z := range 3 {
			for x := range 3 {
				d := NewBodyDef(Dynamic, shapes[i%len(shapes)])
				d.Density = []float32{1, 2, 0.5}[i%3]
				d.Friction = []float32{0.5, 0.25, 0.75, 0}[i%4]
				d.Restitution = []float32{0, 0.25, 0.125}[i%3]
				pos := mgl32.Vec3{
					float32(float32(x)*3) - 3 + float32(float32(y%2)*0.25),
					float32(float32(y)*3.5) + 1.5,
					float32(float32(z)*3) - 3,
				}
				vel := mgl32.Vec3{float32(x-1) * 0.5, float32(y) - 1, float32(1-z) * 0.5}
				ang := mgl32.Vec3{float32(i%3) - 1, float32(i%5) - 2, float32(i%2) * 1.5}
				tw.add(d, pos, rots[(i/len(rots)+i)%len(rots)], vel, ang)
				i++
			}
		}
	}
}

// TestCompoundGoldenHash steps compoundScene compoundGoldenSteps times and
// compares the world's state hash, xor a hash of the events, with
// compoundGoldenHash; a second run in the same process must give the same.
func TestCompoundGoldenHash(t *testing.T) {
	run := func() (uint64, []string) {
		tw := newTestWorld(t, DefaultConfig())
		compoundScene(t, tw, false)
		var log []string
		evh := uint64(0xcbf29ce484222325)
		for step := 1; step <= compoundGoldenSteps; step++ {
			tw.s.Step()
			evh = eventsHash(evh, tw.s.Events())
			if step%10 == 0 {
				log = append(log, fmt.Sprintf("%d:%016x", step, tw.w.Hash()))
			}
		}
		t.Logf("stats %+v", tw.s.Stats())
		return tw.w.Hash() ^ evh, log
	}
	got, log := run()
	for i := 0; i < len(log); i += 6 {
		t.Log(log[i:min(i+6, len(log))])
	}
	t.Logf("after %d steps: hash %016x", compoundGoldenSteps, got)
	if again, _ := run(); again != got {
		t.Errorf("a second run in the same process: hash %016x, the first %016x", again, got)
	}
	if got != compoundGoldenHash {
		t.Errorf("state hash after %d steps %016x, want %016x: if the step's results were meant to change, "+
			"pin the new hash once scripts/crossarch.sh shows it is the same on every architecture", compoundGoldenSteps, got, compoundGoldenHash)
	}
}

// TestCompoundSceneStaysInside: the compound scene does what its comment
// says: nothing leaves the walls or sinks through the floor, nothing is
// NaN, the sensor reports, the lattice settles and some of it sleeps.
func TestCompoundSceneStaysInside(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	compoundScene(t, tw, false)
	sensed := 0
	for range compoundGoldenSteps {
		tw.s.Step()
		for _, ev := range tw.s.Events() {
			if ev.Sensor {
				sensed++
			}
		}
	}
	if sensed == 0 {
		t.Errorf("no sensor events")
	}
	asleep, dynamic := 0, 0
	for e, b := range tw.s.Bodies().All() {
		if b.Kind != Dynamic {
			continue
		}
		dynamic++
		if b.Asleep {
			asleep++
		}
		p, _ := tw.s.CenterOfMass(e)
		if !(p[0] > -6 && p[0] < 6 && p[2] > -6 && p[2] < 6 && p[1] > 0 && p[1] < 8) {
			t.Errorf("body %d (%v) has its centre of mass at %v: outside", e.Index(), b.Shape.Kind, p)
		}
	}
	t.Logf("%d of %d dynamic bodies asleep, %d resets", asleep, dynamic, tw.s.Stats().Resets)
	if dynamic != 27 || asleep == 0 || tw.s.Stats().Resets != 0 {
		t.Errorf("%d of %d dynamic bodies asleep, %d resets; want 27, some asleep, none reset", asleep, dynamic, tw.s.Stats().Resets)
	}
}

// TestCompoundStepIsPureFunctionOfWorld: with compounds, stepping after
// LoadState, and stepping a new Space (given the same compounds and mesh)
// on a world restored from a snapshot, give the bits stepping on gave.
func TestCompoundStepIsPureFunctionOfWorld(t *testing.T) {
	const warm, more = 90, 60
	tw := newTestWorld(t, DefaultConfig())
	compoundScene(t, tw, false)
	tw.steps(warm)
	var st engine.State
	tw.e.SaveState(&st)
	snap := tw.e.Snapshot()
	run := func(tw *testWorld) (uint64, []ContactEvent) {
		var evs []ContactEvent
		for range more {
			tw.s.Step()
			evs = append(evs, tw.s.Events()...)
		}
		return tw.w.Hash(), evs
	}
	h1, ev1 := run(tw)
	if len(ev1) == 0 {
		t.Fatalf("no events: nothing to test")
	}
	tw.e.LoadState(&st)
	if h2, ev2 := run(tw); h2 != h1 || !reflect.DeepEqual(ev1, ev2) {
		t.Errorf("after LoadState: hash %x, want %x (events equal: %v)", h2, h1, reflect.DeepEqual(ev1, ev2))
	}
	fresh := newTestWorld(t, DefaultConfig())
	compoundScene(t, fresh, true)
	if err := fresh.e.Restore(snap); err != nil {
		t.Fatal(err)
	}
	if h3, ev3 := run(fresh); h3 != h1 || !reflect.DeepEqual(ev1, ev3) {
		t.Errorf("a new Space on a restored world: hash %x, want %x (events equal: %v)", h3, h1, reflect.DeepEqual(ev1, ev3))
	}
}
