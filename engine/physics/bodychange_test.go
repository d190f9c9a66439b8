package physics

import (
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
)

// TestSetShape: a resting box made a ball of radius 1 gets the ball's mass
// and rests at y = 1; the box resting on it wakes and rides up with it.
func TestSetShape(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	tw.floor(0.5, 0)
	a := tw.add(NewBodyDef(Dynamic, unitBox), mgl32.Vec3{0, 0.5, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	b := tw.add(NewBodyDef(Dynamic, unitBox), mgl32.Vec3{0, 1.5, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	tw.steps(120)
	if !tw.s.Asleep(a) || !tw.s.Asleep(b) {
		t.Fatal("the stack is not asleep after 2 s")
	}
	ball := Shape{Kind: Sphere, Radius: 0.5}
	if err := tw.s.SetShape(a, ball, 3); err != nil {
		t.Fatal(err)
	}
	body, _ := tw.s.Body(a)
	bs := shapeOf(ball)
	wantM, _ := bs.massProperties(3)
	if body.Shape != ball || body.Mass != wantM || tw.s.Asleep(a) || tw.s.Asleep(b) {
		t.Errorf("after SetShape: %+v; want the ball's mass %v, both awake (b asleep: %v)", body, wantM, tw.s.Asleep(b))
	}
	if err := tw.s.SetShape(a, Shape{Kind: Sphere, Radius: 1}, 3); err != nil {
		t.Fatal(err)
	}
	tw.steps(120)
	if p := tw.pos(a); !nearF(float64(p[1]), 1, 0.02) {
		t.Errorf("the ball at %v, want resting at y = 1", p)
	}
	if p := tw.pos(b); p[1] < 2.3 {
		t.Errorf("the box on it at %v, want lifted above 2.3", p)
	}
	// Errors change nothing.
	before, _ := tw.s.Body(a)
	for _, c := range []struct {
		sh      Shape
		density float32
		want    string
	}{
		{Shape{Kind: Sphere}, 1, "sphere radius"},
		{Shape{Kind: Mesh, Mesh: 1}, 1, "cannot have a mesh shape"},
		{HullShape(4), 1, "hull 4 was not added"},
		{ball, 0, "density must be positive"},
	} {
		if err := tw.s.SetShape(a, c.sh, c.density); err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "physics: SetShape(") {
			t.Errorf("SetShape(%+v, %v): %v, want an error with %q", c.sh, c.density, err, c.want)
		}
	}
	if after, _ := tw.s.Body(a); after != before {
		t.Error("a failed SetShape changed the body")
	}
	if err := tw.s.SetShape(engine.Entity{}, ball, 1); err == nil {
		t.Error("SetShape of no body: no error")
	}
}

// TestSetKind: a static box made dynamic falls; a falling box made static
// stops where it is; a mesh stays static.
func TestSetKind(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	tw.floor(0.5, 0)
	a := tw.add(NewBodyDef(Static, unitBox), mgl32.Vec3{0, 3, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	tw.steps(10)
	if p := tw.pos(a); p[1] != 3 {
		t.Fatalf("the static box moved to %v", p)
	}
	if err := tw.s.SetKind(a, Dynamic, 2); err != nil {
		t.Fatal(err)
	}
	if b, _ := tw.s.Body(a); b.Kind != Dynamic || !nearF(float64(b.Mass), 2, 1e-6) {
		t.Errorf("after SetKind: %+v, want dynamic with mass 2", b)
	}
	tw.steps(20)
	p := tw.pos(a)
	if p[1] > 2.9 {
		t.Fatalf("made dynamic, it stays at %v", p)
	}
	if err := tw.s.SetKind(a, Static, 0); err != nil {
		t.Fatal(err)
	}
	if v := tw.vel(a); v != (mgl32.Vec3{}) {
		t.Errorf("made static, its velocity is %v", v)
	}
	tw.steps(20)
	if q := tw.pos(a); q != p {
		t.Errorf("made static at %v, it moved to %v", p, q)
	}
	if err := tw.s.SetKind(a, Kind(9), 1); err == nil || !strings.Contains(err.Error(), "unknown body kind") {
		t.Errorf("an unknown kind: %v", err)
	}
	m, err := NewTriangleMesh([]mgl32.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 0, 1}}, []uint32{0, 1, 2})
	if err != nil {
		t.Fatal(err)
	}
	id, _ := tw.s.AddMesh(m)
	g := tw.add(NewBodyDef(Static, Shape{Kind: Mesh, Mesh: id}), mgl32.Vec3{5, 0, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	if err := tw.s.SetKind(g, Dynamic, 1); err == nil || !strings.Contains(err.Error(), "mesh") {
		t.Errorf("a dynamic mesh: %v", err)
	}
}

// TestSetLayers: a box asleep on the floor whose mask no longer takes the
// floor's layer wakes, its contact ends (an End event) and it falls
// through.
func TestSetLayers(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	tw.floor(0.5, 0)
	a := tw.add(NewBodyDef(Dynamic, unitBox), mgl32.Vec3{0, 0.5, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	tw.steps(90)
	if !tw.s.Asleep(a) {
		t.Fatal("not asleep")
	}
	if err := tw.s.SetLayers(a, 2, 2); err != nil {
		t.Fatal(err)
	}
	if tw.s.Asleep(a) {
		t.Error("asleep after SetLayers")
	}
	tw.s.Step()
	ended := false
	for _, ev := range tw.s.Events() {
		if ev.Kind == End && (ev.A == a || ev.B == a) {
			ended = true
		}
	}
	if !ended {
		t.Errorf("no End event: %+v", tw.s.Events())
	}
	tw.steps(30)
	if p := tw.pos(a); p[1] > 0 {
		t.Errorf("at %v, want fallen through the floor", p)
	}
	if err := tw.s.SetLayers(engine.Entity{}, 1, 1); err == nil {
		t.Error("SetLayers of no body: no error")
	}
}

// TestBodyChangesRollBack: a change made after a saved state is undone by
// loading it, and made again it gives the same bits; a change is carried
// by a snapshot into a new world.
func TestBodyChangesRollBack(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	tw.floor(0.5, 0)
	hid := tw.boxHull(t, mgl32.Vec3{0.5, 0.5, 0.5})
	a := tw.add(NewBodyDef(Dynamic, unitBox), mgl32.Vec3{0, 2, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	b := tw.add(NewBodyDef(Dynamic, unitBox), mgl32.Vec3{0.2, 4, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	tw.steps(30)
	var st engine.State
	tw.e.SaveState(&st)
	change := func() {
		if err := tw.s.SetShape(a, Shape{Kind: Cylinder, Radius: 0.6, HalfHeight: 0.3}, 2); err != nil {
			t.Fatal(err)
		}
		if err := tw.s.SetShape(b, HullShape(hid), 1); err != nil {
			t.Fatal(err)
		}
		if err := tw.s.SetLayers(b, 1, 1); err != nil {
			t.Fatal(err)
		}
	}
	change()
	tw.steps(60)
	h1 := tw.w.Hash()
	snap := tw.e.Snapshot()
	tw.e.LoadState(&st)
	if body, _ := tw.s.Body(a); body.Shape != unitBox {
		t.Fatalf("after LoadState the shape is %+v", body.Shape)
	}
	tw.steps(60)
	if tw.w.Hash() == h1 {
		t.Fatal("the same hash without the change: the test tests nothing")
	}
	tw.e.LoadState(&st)
	change()
	tw.steps(60)
	if h2 := tw.w.Hash(); h2 != h1 {
		t.Errorf("the change made again: hash %x, want %x", h2, h1)
	}
	fresh := newTestWorld(t, DefaultConfig())
	fresh.boxHull(t, mgl32.Vec3{0.5, 0.5, 0.5})
	if err := fresh.e.Restore(snap); err != nil {
		t.Fatal(err)
	}
	if body, _ := fresh.s.Body(b); body.Shape != HullShape(hid) {
		t.Errorf("restored: the shape is %+v", body.Shape)
	}
	tw.steps(30)
	fresh.steps(30)
	if fresh.w.Hash() != tw.w.Hash() {
		t.Error("a new Space on the restored world steps to other bits")
	}
}

// TestBodyChangesKeepMaterialAndSleep: SetShape and SetKind keep what the
// body was given besides its shape and kind, including the combine rules
// and NoSleep.
func TestBodyChangesKeepMaterialAndSleep(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	d := NewBodyDef(Dynamic, unitBox)
	d.FrictionCombine, d.RestitutionCombine, d.NoSleep = CombineMin, CombineMax, true
	e := tw.add(d, mgl32.Vec3{0, 5, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	check := func(what string) {
		t.Helper()
		b, _ := tw.s.Body(e)
		if b.FrictionCombine != CombineMin || b.RestitutionCombine != CombineMax || !b.NoSleep {
			t.Errorf("after %s: FrictionCombine %v, RestitutionCombine %v, NoSleep %v; want %v, %v, true", what, b.FrictionCombine, b.RestitutionCombine, b.NoSleep, CombineMin, CombineMax)
		}
	}
	if err := tw.s.SetShape(e, Shape{Kind: Sphere, Radius: 0.5}, 2); err != nil {
		t.Fatal(err)
	}
	check("SetShape")
	if err := tw.s.SetKind(e, Kinematic, 0); err != nil {
		t.Fatal(err)
	}
	if err := tw.s.SetKind(e, Dynamic, 1); err != nil {
		t.Fatal(err)
	}
	check("SetKind")
}
