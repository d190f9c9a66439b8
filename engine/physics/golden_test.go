package physics

import (
	"fmt"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/geom"
)

// goldenSteps is how many steps TestStepGoldenHash runs (5 s at 60 Hz):
// the pile lands, tumbles, is pushed by the kinematic sweeper and partly
// falls asleep.
const goldenSteps = 300

// goldenHash is the world's state hash after goldenSteps steps of
// goldenScene, driven by goldenWorld.drive, xor a hash of every contact
// event in order, the same on amd64 (GOAMD64 v1 and v3), arm64 and 386
// (scripts/crossarch.sh runs this test on each). A change to the step that
// changes results changes it: check the new value on every architecture
// before pinning it (scripts/crossarch.sh prints the hashes the test logs).
const goldenHash uint64 = 0xef864e5ff02c7f95

// goldenWorld is a world and a Space on it.
type goldenWorld struct {
	w              *engine.World
	s              *Space
	walker, floaty engine.Entity // bodies the test pushes
}

// goldenScene builds the scene TestStepGoldenHash steps: an open box (a
// floor and four walls), a static ramp turned about Z, a kinematic paddle
// sliding and turning across the floor, and a lattice of 4×3×4 dynamic
// spheres, boxes, capsules and flat boxes, each turned and moving, and one
// fast sphere with continuous collision. Every number is written as a
// float32 constant or made of rounded products of small integers, so the
// scene is the same bits on every build; no trigonometry.
func goldenScene(t testing.TB) *goldenWorld {
	t.Helper()
	e, err := engine.New(engine.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(e.World, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	g := &goldenWorld{w: e.World, s: s}
	add := func(d BodyDef, pos mgl32.Vec3, rot mgl32.Quat, vel, ang mgl32.Vec3) engine.Entity {
		tr := geom.NewTransform(pos)
		tr.Rot = rot
		en := g.w.Spawn(tr, engine.Interpolate)
		g.w.SetDrawVelocity(en, vel, ang)
		if err := s.AddBody(en, d); err != nil {
			t.Fatalf("body %d: %v", en.Index(), err)
		}
		return en
	}
	box := func(hx, hy, hz float32) Shape { return Shape{Kind: Box, HalfExtents: mgl32.Vec3{hx, hy, hz}} }
	none := mgl32.Vec3{}

	// The open box: 12×12 m inside.
	floor := NewBodyDef(Static, box(8, 0.5, 8))
	floor.Friction, floor.Restitution = 0.6, 0.2
	add(floor, mgl32.Vec3{0, -0.5, 0}, mgl32.QuatIdent(), none, none)
	for _, w := range []struct{ pos, half mgl32.Vec3 }{
		{mgl32.Vec3{-6.5, 2, 0}, mgl32.Vec3{0.5, 2, 7}},
		{mgl32.Vec3{6.5, 2, 0}, mgl32.Vec3{0.5, 2, 7}},
		{mgl32.Vec3{0, 2, -6.5}, mgl32.Vec3{6, 2, 0.5}},
		{mgl32.Vec3{0, 2, 6.5}, mgl32.Vec3{6, 2, 0.5}},
	} {
		add(NewBodyDef(Static, box(w.half[0], w.half[1], w.half[2])), w.pos, mgl32.QuatIdent(), none, none)
	}
	// A ramp, turned about Z by a Pythagorean quaternion (0.28² + 0.96² = 1).
	add(NewBodyDef(Static, box(2, 0.25, 1.5)), mgl32.Vec3{-3.5, 1, 3.5},
		mgl32.Quat{W: 0.96, V: mgl32.Vec3{0, 0, 0.28}}, none, none)
	// A paddle that slides along X at floor level and turns about Y.
	add(NewBodyDef(Kinematic, box(0.25, 0.5, 2)), mgl32.Vec3{-5, 0.5, -3},
		mgl32.QuatIdent(), mgl32.Vec3{1.5, 0, 0}, mgl32.Vec3{0, 0.5, 0})

	shapes := []Shape{
		{Kind: Sphere, Radius: 0.5},
		box(0.5, 0.5, 0.5),
		{Kind: Capsule, Radius: 0.25, HalfHeight: 0.5},
		box(0.75, 0.25, 0.5),
		{Kind: Sphere, Radius: 0.375},
		{Kind: Capsule, Radius: 0.375, HalfHeight: 0.25},
	}
	rots := []mgl32.Quat{
		{W: 0.8, V: mgl32.Vec3{0.6, 0, 0}},
		{W: 0.96, V: mgl32.Vec3{0, 0.28, 0}},
		{W: 0.5, V: mgl32.Vec3{0.5, 0.5, 0.5}},
		{W: 0, V: mgl32.Vec3{0.48, 0.6, 0.64}},
		{W: 0.6, V: mgl32.Vec3{0, 0, -0.8}},
		mgl32.QuatIdent(),
	}
	i := 0
	for y := range 3 {
		for z := range 4 {
			for x := range 4 {
				d := NewBodyDef(Dynamic, shapes[i%len(shapes)])
				d.Density = []float32{1, 2, 0.5}[i%3]
				d.Friction = []float32{0.5, 0.25, 0.75, 0}[i%4]
				d.Restitution = []float32{0, 0.5, 0.25}[i%3]
				pos := mgl32.Vec3{
					float32(float32(x)*2) - 3 + float32(float32(y%2)*0.25),
					float32(float32(y)*1.75) + 1.5,
					float32(float32(z)*2) - 3,
				}
				vel := mgl32.Vec3{float32(x-2) * 0.5, float32(y) - 1, float32(1-z) * 0.5}
				ang := mgl32.Vec3{float32(i%3) - 1, float32(i%5) - 2, float32(i%2) * 1.5}
				add(d, pos, rots[(i/len(shapes)+i)%len(rots)], vel, ang)
				i++
			}
		}
	}
	// A small fast sphere fired across the pile.
	bullet := NewBodyDef(Dynamic, Shape{Kind: Sphere, Radius: 0.125})
	bullet.CCD, bullet.Density = true, 4
	add(bullet, mgl32.Vec3{5, 1, 0.25}, mgl32.QuatIdent(), mgl32.Vec3{-60, 2, 0}, none)
	// A sensor on the floor, which the pile rolls through.
	sensor := NewBodyDef(Static, box(1.5, 0.25, 1.5))
	sensor.Sensor = true
	add(sensor, mgl32.Vec3{2.5, 0.25, 2.5}, mgl32.QuatIdent(), none, none)
	// A character: an upright capsule that cannot tip over, damped,
	// walking into the pile.
	walker := NewBodyDef(Dynamic, Shape{Kind: Capsule, Radius: 0.375, HalfHeight: 0.5})
	walker.Locks = LockAngularX | LockAngularZ
	walker.LinearDamping, walker.AngularDamping = 0.5, 0.25
	g.walker = add(walker, mgl32.Vec3{4.5, 0.875, -4.5}, mgl32.QuatIdent(), mgl32.Vec3{-2, 0, 1.5}, none)
	// A light box under half gravity, pushed and turned by the test.
	floaty := NewBodyDef(Dynamic, box(0.25, 0.25, 0.25))
	floaty.GravityScale, floaty.Density = 0.5, 0.25
	g.floaty = add(floaty, mgl32.Vec3{0, 7, 0}, mgl32.Quat{W: 0.8, V: mgl32.Vec3{0, 0.6, 0}}, none, none)
	return g
}

// drive is what TestStepGoldenHash's game code does before step n: a
// steady push on the walker, a torque on the floating box, and one
// impulse of each kind.
func (g *goldenWorld) drive(t testing.TB, n int) {
	t.Helper()
	check := func(err error) {
		if err != nil {
			t.Fatalf("step %d: %v", n, err)
		}
	}
	check(g.s.ApplyForce(g.walker, mgl32.Vec3{-4, 0, 3}))
	if n < 120 {
		check(g.s.ApplyTorque(g.floaty, mgl32.Vec3{0, 0.001953125, 0.0009765625}))
	}
	if n == 90 {
		check(g.s.ApplyImpulse(g.floaty, mgl32.Vec3{0.0625, 0.03125, -0.03125}))
		check(g.s.ApplyAngularImpulse(g.floaty, mgl32.Vec3{0.0009765625, 0, 0}))
	}
}

// eventsHash folds the step's contact events, in their order, into h.
func eventsHash(h uint64, evs []ContactEvent) uint64 {
	mix := func(v uint64) { h = (h ^ v) * 0x100000001b3 }
	for _, ev := range evs {
		mix(uint64(ev.Kind))
		mix(uint64(ev.A.Index())<<32 | uint64(ev.B.Index()))
		if ev.Sensor {
			mix(1)
		}
		for _, v := range [...]mgl32.Vec3{ev.Point, ev.Normal} {
			for _, c := range v {
				mix(uint64(math.Float32bits(c)))
			}
		}
	}
	return h
}

// TestStepGoldenHash steps goldenScene goldenSteps times and compares the
// world's state hash with goldenHash, which pins the bits of every
// position, rotation, velocity, body and contact on every architecture
// (scripts/crossarch.sh runs it on arm64, 386 and amd64-v3, where Go fuses
// multiply-adds that the plain amd64 build does not). On a failure the log
// holds the hash every 10 steps, to compare with another build's
// (go test -run TestStepGoldenHash -v) and find the first step that differs.
func TestStepGoldenHash(t *testing.T) {
	g := goldenScene(t)
	var log []string
	evh, nev := uint64(0xcbf29ce484222325), 0
	for step := 1; step <= goldenSteps; step++ {
		g.drive(t, step)
		g.s.Step()
		evh = eventsHash(evh, g.s.Events())
		nev += len(g.s.Events())
		if step%10 == 0 {
			log = append(log, fmt.Sprintf("%d:%016x", step, g.w.Hash()))
		}
	}
	for i := 0; i < len(log); i += 6 {
		t.Log(log[i:min(i+6, len(log))])
	}
	got := g.w.Hash() ^ evh
	st := g.s.Stats()
	t.Logf("after %d steps: hash %016x (world %016x, %d events %016x), stats %+v", goldenSteps, got, g.w.Hash(), nev, evh, st)
	if got != goldenHash {
		t.Errorf("state hash after %d steps %016x, want %016x: if the step's results were meant to change, "+
			"pin the new hash once scripts/crossarch.sh shows it is the same on every architecture", goldenSteps, got, goldenHash)
	}
}

// TestGoldenSceneStaysInside: goldenScene, driven as TestStepGoldenHash
// drives it, does what its comment says: no body leaves the open box (the
// bullet included: continuous collision), nothing is NaN, the sensor
// reports, and the pile settles but not all of it sleeps.
func TestGoldenSceneStaysInside(t *testing.T) {
	g := goldenScene(t)
	sensed := 0
	for step := 1; step <= goldenSteps; step++ {
		g.drive(t, step)
		g.s.Step()
		for _, ev := range g.s.Events() {
			if ev.Sensor {
				sensed++
			}
		}
	}
	if sensed == 0 {
		t.Errorf("no sensor events")
	}
	b := g.w.Bodies()
	asleep, dynamic := 0, 0
	for e, body := range g.s.Bodies().All() {
		if body.Kind != Dynamic {
			continue
		}
		dynamic++
		if body.Asleep {
			asleep++
		}
		p := b.Pos[e.Index()]
		if !(p[0] > -6 && p[0] < 6 && p[2] > -6 && p[2] < 6 && p[1] > 0 && p[1] < 6) {
			t.Errorf("body %d (%v) at %v: outside the box", e.Index(), body.Shape.Kind, p)
		}
	}
	t.Logf("%d of %d dynamic bodies asleep", asleep, dynamic)
	if dynamic != 51 || asleep == 0 || asleep == dynamic {
		t.Errorf("%d of %d dynamic bodies asleep, want 51 bodies, some asleep and some not", asleep, dynamic)
	}
}
