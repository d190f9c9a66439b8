package physics

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
)

// rotZ90 turns a part a quarter turn about Z (a capsule's axis, local Y,
// along X).
var rotZ90 = mgl32.Quat{W: 0.70710677, V: mgl32.Vec3{0, 0, 0.70710677}}

// dumbbellParts are two balls of radius 0.25 at x = 0 and x = 1 joined by
// a bar (a capsule of radius 0.1 along X): the entity's position is the
// first ball's centre, the centre of mass is at (0.5, 0, 0).
func dumbbellParts() []Part {
	return []Part{
		{Shape: Shape{Kind: Sphere, Radius: 0.25}},
		{Shape: Shape{Kind: Sphere, Radius: 0.25}, Pos: mgl32.Vec3{1, 0, 0}},
		{Shape: Shape{Kind: Capsule, Radius: 0.1, HalfHeight: 0.4}, Pos: mgl32.Vec3{0.5, 0, 0}, Rot: rotZ90},
	}
}

// lParts is an L of two boxes in the XY plane: a leg 1×3×1 m standing on
// the origin (x in [-0.5, 0.5], y in [0, 3]) and a foot 2×1×1 m beside it
// (x in [0.5, 2.5], y in [0, 1]). Hand-computed at density 1: mass 5,
// centre of mass (0.6, 1.1, 0), tensor about it
// [[121/30, 1.8, 0], [1.8, 121/30, 0], [0, 0, 217/30]].
func lParts() []Part {
	return []Part{
		{Shape: Shape{Kind: Box, HalfExtents: mgl32.Vec3{0.5, 1.5, 0.5}}, Pos: mgl32.Vec3{0, 1.5, 0}},
		{Shape: Shape{Kind: Box, HalfExtents: mgl32.Vec3{1, 0.5, 0.5}}, Pos: mgl32.Vec3{1.5, 0.5, 0}},
	}
}

// compound adds parts to tw's Space.
func (tw *testWorld) compound(t *testing.T, parts []Part) CompoundID {
	t.Helper()
	id, err := tw.s.AddCompound(parts)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// boxFloor adds a static 20×1×20 m box whose top is y = 0.
func (tw *testWorld) boxFloor() engine.Entity {
	return tw.add(NewBodyDef(Static, Shape{Kind: Box, HalfExtents: mgl32.Vec3{10, 0.5, 10}}),
		mgl32.Vec3{0, -0.5, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
}

func nearF(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func nearVec(a, b mgl32.Vec3, tol float64) bool {
	return nearF(float64(a[0]), float64(b[0]), tol) && nearF(float64(a[1]), float64(b[1]), tol) && nearF(float64(a[2]), float64(b[2]), tol)
}

// TestCompoundMassProperties checks a dumbbell's and an L's mass, centre
// of mass and inertia tensor against hand-computed values.
func TestCompoundMassProperties(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())

	// Two balls of radius 0.5 at x = ±1: m = π/6 each; about the centre
	// Ixx = 2·(2/5)mr², Iyy = Izz = 2·((2/5)mr² + m·1²).
	balls := tw.compound(t, []Part{
		{Shape: Shape{Kind: Sphere, Radius: 0.5}, Pos: mgl32.Vec3{-1, 0, 0}},
		{Shape: Shape{Kind: Sphere, Radius: 0.5}, Pos: mgl32.Vec3{1, 0, 0}},
	})
	c := tw.s.compounds[balls-1]
	m := math.Pi / 6
	own := 0.4 * m * 0.25
	if !nearF(float64(c.volume), 2*m, 1e-6) || c.com != (vec3{}) {
		t.Errorf("balls: volume %v com %v, want %v and 0", c.volume, c.com, 2*m)
	}
	if c.frame != identity {
		t.Errorf("balls: a diagonal tensor gave the frame %v, want the identity", c.frame)
	}
	want := vec3{float32(2 * own), float32(2 * (own + m)), float32(2 * (own + m))}
	if !nearVec(fromVec3(c.moments), fromVec3(want), 1e-6) {
		t.Errorf("balls: moments %v, want %v", c.moments, want)
	}

	// The L: its tensor is not diagonal in the body's frame.
	id := tw.compound(t, lParts())
	c = tw.s.compounds[id-1]
	if !nearF(float64(c.volume), 5, 1e-6) || !nearVec(fromVec3(c.com), mgl32.Vec3{0.6, 1.1, 0}, 1e-6) {
		t.Errorf("L: volume %v com %v, want 5 and (0.6, 1.1, 0)", c.volume, c.com)
	}
	ten := c.tensor()
	hand := [3][3]float64{{121.0 / 30, 1.8, 0}, {1.8, 121.0 / 30, 0}, {0, 0, 217.0 / 30}}
	rows := [3]vec3{ten.r0, ten.r1, ten.r2}
	for i := range 3 {
		for j := range 3 {
			if got := float64(rows[i].at(j)); !nearF(got, hand[i][j], 2e-5) {
				t.Errorf("L tensor[%d][%d] = %v, want %v", i, j, got, hand[i][j])
			}
		}
	}
	mo := []float64{float64(c.moments.x), float64(c.moments.y), float64(c.moments.z)}
	slices.Sort(mo)
	for i, w := range []float64{121.0/30 - 1.8, 121.0/30 + 1.8, 217.0 / 30} {
		if !nearF(mo[i], w, 2e-5) {
			t.Errorf("L principal moments %v, want %v", mo, []float64{121.0/30 - 1.8, 121.0/30 + 1.8, 217.0 / 30})
			break
		}
	}

	// A body of it at density 2.
	d := NewBodyDef(Dynamic, CompoundShape(id))
	d.Density = 2
	e := tw.add(d, mgl32.Vec3{3, 4, 5}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	b, _ := tw.s.Body(e)
	if b.Mass != 10 || b.InvMass != 0.1 {
		t.Errorf("mass %v (inverse %v), want 10", b.Mass, b.InvMass)
	}
	if got, _ := tw.s.CenterOfMass(e); !nearVec(got, mgl32.Vec3{3.6, 5.1, 5}, 1e-5) {
		t.Errorf("centre of mass %v, want (3.6, 5.1, 5)", got)
	}
	// The inverse tensor, through an angular impulse: ω = I⁻¹j, with
	// I = 2·hand; the XY block [[a, b], [b, a]] has the inverse
	// [[a, -b], [-b, a]]/(a² - b²).
	if err := tw.s.ApplyAngularImpulse(e, mgl32.Vec3{1, 0, 0}); err != nil {
		t.Fatal(err)
	}
	a, bb := 2*121.0/30, 2*1.8
	det := a*a - bb*bb
	if w := tw.w.Bodies().AngVel[e.Index()]; !nearVec(w, mgl32.Vec3{float32(a / det), float32(-bb / det), 0}, 1e-5) {
		t.Errorf("ω after the impulse (1, 0, 0): %v, want %v", w, mgl32.Vec3{float32(a / det), float32(-bb / det), 0})
	}
}

// TestAddCompoundErrors: every bad compound is refused with an error that
// says what is wrong, and adds nothing.
func TestAddCompoundErrors(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	nan := float32(math.NaN())
	ball := Shape{Kind: Sphere, Radius: 0.5}
	cases := []struct {
		name  string
		parts []Part
		want  string
	}{
		{"empty", nil, "at least one part"},
		{"too many", make([]Part, MaxCompoundParts+1), "at most 256 parts"},
		{"mesh part", []Part{{Shape: Shape{Kind: Mesh, Mesh: 1}}}, "part 0: a compound's parts are spheres, capsules and boxes, got a Mesh"},
		{"nested", []Part{{Shape: ball}, {Shape: CompoundShape(1)}}, "part 1: a compound's parts are spheres, capsules and boxes, got a Compound"},
		{"zero shape", []Part{{}}, "part 0: unknown shape kind 0"},
		{"bad radius", []Part{{Shape: Shape{Kind: Sphere, Radius: -1}}}, "part 0: sphere radius must be positive"},
		{"NaN box", []Part{{Shape: Shape{Kind: Box, HalfExtents: mgl32.Vec3{1, nan, 1}}}}, "part 0: box half extents must be positive and finite"},
		{"NaN position", []Part{{Shape: ball, Pos: mgl32.Vec3{nan, 0, 0}}}, "part 0: the position"},
		{"far position", []Part{{Shape: ball, Pos: mgl32.Vec3{0, 2e4, 0}}}, "within 10000 m"},
		{"bad rotation", []Part{{Shape: ball, Rot: mgl32.Quat{W: 2}}}, "part 0: the rotation"},
		{"NaN rotation", []Part{{Shape: ball, Rot: mgl32.Quat{W: nan}}}, "not a unit quaternion"},
	}
	for _, c := range cases {
		id, err := tw.s.AddCompound(c.parts)
		if err == nil || id != 0 || !strings.HasPrefix(err.Error(), "physics: AddCompound: ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %d, %v; want an error containing %q", c.name, id, err, c.want)
		}
	}
	if len(tw.s.compounds) != 0 {
		t.Errorf("%d compounds added by bad calls", len(tw.s.compounds))
	}
	// A body naming a compound the Space does not have.
	e := tw.w.Spawn(geomAt(mgl32.Vec3{}), engine.Interpolate)
	for _, sh := range []Shape{{Kind: Compound}, CompoundShape(3)} {
		if err := tw.s.AddBody(e, NewBodyDef(Dynamic, sh)); err == nil || !strings.Contains(err.Error(), "compound") {
			t.Errorf("AddBody with %+v: %v, want an error about the compound", sh, err)
		}
	}
	// A density that overflows the compound's mass.
	id := tw.compound(t, []Part{{Shape: Shape{Kind: Box, HalfExtents: mgl32.Vec3{1000, 1000, 1000}}}})
	d := NewBodyDef(Dynamic, CompoundShape(id))
	d.Density = 1e30
	if err := tw.s.AddBody(e, d); err == nil || !strings.Contains(err.Error(), "not positive and finite") {
		t.Errorf("AddBody with an overflowing mass: %v", err)
	}
	if CompoundShape(id).Compound != id {
		t.Errorf("CompoundID does not give back CompoundShape's id")
	}
}

// TestDumbbellRests: a dumbbell dropped on a box floor comes to rest with
// both balls on the floor and stays still: under 1 mm of drift in 10 s,
// and asleep. Its entity's position is one ball's centre, not its centre
// of mass.
func TestDumbbellRests(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	tw.boxFloor()
	id := tw.compound(t, dumbbellParts())
	e := tw.add(NewBodyDef(Dynamic, CompoundShape(id)), mgl32.Vec3{0, 0.3, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	tw.steps(60)
	start, rot := tw.pos(e), tw.w.Bodies().Rot[e.Index()]
	tw.steps(600)
	if d := tw.pos(e).Sub(start).Len(); d > 1e-3 {
		t.Errorf("drifted %v m in 10 s", d)
	}
	if !nearVec(tw.pos(e), mgl32.Vec3{0, 0.25, 0}, 0.01) {
		t.Errorf("rests at %v, want (0, 0.25, 0)", tw.pos(e))
	}
	if r := tw.w.Bodies().Rot[e.Index()]; !r.ApproxEqualThreshold(rot, 1e-4) || !r.ApproxEqualThreshold(mgl32.QuatIdent(), 1e-3) {
		t.Errorf("turned from %v to %v", rot, r)
	}
	if !tw.s.Asleep(e) {
		t.Errorf("not asleep after 10 s at rest")
	}
}

// TestLTips: an L standing on the end of its short leg, with its long
// leg out to one side at the top, falls over to that side (its centre of
// mass is not over its support); the same L lying on its long leg, the
// short one up, stays as it is.
func TestLTips(t *testing.T) {
	for _, side := range []float32{1, -1} {
		tw := newTestWorld(t, DefaultConfig())
		tw.boxFloor()
		// Short leg 0.5×1×0.5 (x in ±0.25, y in [0, 1]); long leg
		// 3×0.5×0.5 on top of it, reaching out along side·X.
		tipping := tw.compound(t, []Part{
			{Shape: Shape{Kind: Box, HalfExtents: mgl32.Vec3{0.25, 0.5, 0.25}}, Pos: mgl32.Vec3{0, 0.5, 0}},
			{Shape: Shape{Kind: Box, HalfExtents: mgl32.Vec3{1.5, 0.25, 0.25}}, Pos: mgl32.Vec3{side * 1.25, 1.25, 0}},
		})
		// The same boxes with the long leg on the floor.
		lying := tw.compound(t, []Part{
			{Shape: Shape{Kind: Box, HalfExtents: mgl32.Vec3{0.25, 0.5, 0.25}}, Pos: mgl32.Vec3{0, 1, 0}},
			{Shape: Shape{Kind: Box, HalfExtents: mgl32.Vec3{1.5, 0.25, 0.25}}, Pos: mgl32.Vec3{side * 1.25, 0.25, 0}},
		})
		a := tw.add(NewBodyDef(Dynamic, CompoundShape(tipping)), mgl32.Vec3{0, 0, -3}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
		b := tw.add(NewBodyDef(Dynamic, CompoundShape(lying)), mgl32.Vec3{0, 0, 3}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
		comA, _ := tw.s.CenterOfMass(a)
		if !nearVec(comA, mgl32.Vec3{side * 0.9375, 1.0625, -3}, 1e-5) {
			t.Errorf("side %v: the tipping L's centre of mass %v, want (%v, 1.0625, -3)", side, comA, side*0.9375)
		}
		tw.steps(180)
		// It turns about the short leg's outer edge until the long leg's
		// end meets the floor, 21.8° on (tan = 1/2.5), and rests there.
		up := tw.w.Bodies().Rot[a.Index()].Rotate(mgl32.Vec3{0, 1, 0})
		if !nearF(float64(up[0]*side), 0.3714, 0.03) {
			t.Errorf("side %v: the L on its short leg has its up axis at %v after 3 s, want it turned 21.8° towards %v·X", side, up, side)
		}
		comA2, _ := tw.s.CenterOfMass(a)
		if !(comA2[0]*side > comA[0]*side+0.25) || !(comA2[1] < 0.8) {
			t.Errorf("side %v: its centre of mass went from %v to %v, want it further out and lower", side, comA, comA2)
		}
		rb := tw.w.Bodies().Rot[b.Index()]
		if !rb.ApproxEqualThreshold(mgl32.QuatIdent(), 1e-3) || !nearVec(tw.pos(b), mgl32.Vec3{0, 0, 3}, 2e-3) {
			t.Errorf("side %v: the L on its long leg moved to %v, %v", side, tw.pos(b), rb)
		}
	}
}

// TestCompoundSpin: without gravity, an L spun about the principal axis
// of its least moment (not one of the entity's axes) keeps its angular
// velocity and its angular momentum, and turns about its centre of mass,
// which stays put while the entity's position circles it.
func TestCompoundSpin(t *testing.T) {
	tw := newTestWorld(t, zeroG())
	id := tw.compound(t, lParts())
	c := tw.s.compounds[id-1]
	// The principal axis of the least moment (121/30 - 1.8), a diagonal
	// of the XY plane: a stable spin (about the middle one, it would
	// tumble).
	axis := c.frame.rotate(vec3{1, 0, 0})
	if c.moments.y < c.moments.x {
		axis = c.frame.rotate(vec3{0, 1, 0})
	}
	if abs(axis.z) > 1e-6 || abs(abs(axis.x)-abs(axis.y)) > 1e-5 || abs(axis.x+axis.y) > 1e-5 {
		t.Fatalf("principal axis %v, want the diagonal (1, -1, 0) of the XY plane", axis)
	}
	w0 := fromVec3(axis.scale(2))
	e := tw.add(NewBodyDef(Dynamic, CompoundShape(id)), mgl32.Vec3{1, 2, 3}, mgl32.QuatIdent(), mgl32.Vec3{}, w0)
	com0, _ := tw.s.CenterOfMass(e)
	momentum := func() vec3 {
		b, _ := tw.s.Body(e)
		q := tw.w.Bodies().Rot[e.Index()]
		inv := worldInvInertia(inertiaFrame(&shape{comp: c}, toQuat(q)), toVec3(b.InvInertia), 0)
		// I = (I⁻¹)⁻¹ along the axis of spin: L = ω / (I⁻¹ω·ω/|ω|²)
		// holds only for a principal axis, which is what is checked.
		w := toVec3(tw.w.Bodies().AngVel[e.Index()])
		iw := inv.mulVec(w)
		return w.scale(w.lengthSq() / iw.dot(w))
	}
	l0 := momentum()
	origins := 0
	for range 10 {
		p := tw.pos(e)
		tw.steps(30)
		if tw.pos(e).Sub(p).Len() > 0.01 {
			origins++
		}
	}
	if w := tw.w.Bodies().AngVel[e.Index()]; !nearVec(w, w0, 2e-3) {
		t.Errorf("angular velocity %v after 5 s, want %v", w, w0)
	}
	if l := momentum(); l.sub(l0).length() > float32(1e-3*l0.length()) {
		t.Errorf("angular momentum went from %v to %v", l0, l)
	}
	if com, _ := tw.s.CenterOfMass(e); !nearVec(com, com0, 1e-4) {
		t.Errorf("centre of mass moved from %v to %v", com0, com)
	}
	if v := tw.vel(e); v != (mgl32.Vec3{}) {
		t.Errorf("velocity %v, want 0 (the centre of mass's)", v)
	}
	if origins < 8 {
		t.Errorf("the entity's position moved in only %d of 10 half seconds; it should circle the centre of mass", origins)
	}
	if d := tw.pos(e).Sub(com0).Len(); !nearF(float64(d), math.Hypot(0.6, 1.1), 1e-3) {
		t.Errorf("the entity's position is %v from the centre of mass, want %v", d, math.Hypot(0.6, 1.1))
	}
}

// TestApplyImpulseAt: an impulse through the centre of mass only pushes;
// one off it also turns the body, by I⁻¹(r × j).
func TestApplyImpulseAt(t *testing.T) {
	tw := newTestWorld(t, zeroG())
	id := tw.compound(t, dumbbellParts())
	e := tw.add(NewBodyDef(Dynamic, CompoundShape(id)), mgl32.Vec3{0, 5, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	b, _ := tw.s.Body(e)
	com, _ := tw.s.CenterOfMass(e)
	if com != (mgl32.Vec3{0.5, 5, 0}) {
		t.Fatalf("centre of mass %v, want (0.5, 5, 0)", com)
	}
	if err := tw.s.ApplyImpulseAt(e, mgl32.Vec3{0, 1, 0}, com); err != nil {
		t.Fatal(err)
	}
	if w := tw.w.Bodies().AngVel[e.Index()]; w != (mgl32.Vec3{}) {
		t.Errorf("an impulse through the centre of mass turned it: %v", w)
	}
	if v := tw.vel(e); !nearVec(v, mgl32.Vec3{0, b.InvMass, 0}, 1e-6) {
		t.Errorf("velocity %v, want (0, %v, 0)", v, b.InvMass)
	}
	// At the far ball, 0.5 m out along X: r × j = (0, 0, 0.5), about Z,
	// a principal axis (the dumbbell is symmetric about its middle).
	if err := tw.s.ApplyImpulseAt(e, mgl32.Vec3{0, 1, 0}, mgl32.Vec3{1, 5, 0}); err != nil {
		t.Fatal(err)
	}
	wz := 0.5 * float64(b.InvInertia[2])
	if w := tw.w.Bodies().AngVel[e.Index()]; !nearVec(w, mgl32.Vec3{0, 0, float32(wz)}, 1e-4*wz) {
		t.Errorf("angular velocity %v, want (0, 0, %v)", w, wz)
	}
	// ApplyForceAt over one step gives the same as an impulse of F·dt.
	tw2 := newTestWorld(t, zeroG())
	id2 := tw2.compound(t, dumbbellParts())
	e2 := tw2.add(NewBodyDef(Dynamic, CompoundShape(id2)), mgl32.Vec3{0, 5, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	if err := tw2.s.ApplyForceAt(e2, mgl32.Vec3{0, 60, 0}, mgl32.Vec3{1, 5, 0}); err != nil {
		t.Fatal(err)
	}
	tw2.steps(1)
	if w := tw2.w.Bodies().AngVel[e2.Index()]; !nearVec(w, mgl32.Vec3{0, 0, float32(wz)}, 1e-3*wz) {
		t.Errorf("ApplyForceAt: angular velocity %v, want (0, 0, %v)", w, wz)
	}
	for _, err := range []error{
		tw.s.ApplyImpulseAt(e, mgl32.Vec3{0, 1, 0}, mgl32.Vec3{float32(math.Inf(1)), 0, 0}),
		tw.s.ApplyForceAt(e, mgl32.Vec3{0, 1, 0}, mgl32.Vec3{float32(math.NaN()), 0, 0}),
	} {
		if err == nil || !strings.Contains(err.Error(), "not finite") {
			t.Errorf("a non-finite point: %v", err)
		}
	}
}

// TestCompoundOnCompound: a dumbbell dropped on the foot of an L lying on
// the floor lands on it and both come to rest: one Begin event per pair of
// bodies, a manifold for each touching pair of parts (the foot and each
// ball), and the contact ids persistent (every point warm-started).
func TestCompoundOnCompound(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	floor := tw.boxFloor()
	l := tw.add(NewBodyDef(Dynamic, CompoundShape(tw.compound(t, lParts()))), mgl32.Vec3{}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	// Its balls at x = 1 and 2 over the foot (top y = 1), 5 cm up.
	db := tw.add(NewBodyDef(Dynamic, CompoundShape(tw.compound(t, dumbbellParts()))), mgl32.Vec3{1, 1.3, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	begins := map[[2]int]int{}
	for i := range 240 {
		tw.s.Step()
		for _, ev := range tw.s.Events() {
			if ev.Kind == Begin {
				begins[[2]int{ev.A.Index(), ev.B.Index()}]++
			}
		}
		if st := tw.s.Stats(); i >= 60 && st.WarmPoints != st.Points {
			t.Errorf("step %d: %d of %d points warm-started", i, st.WarmPoints, st.Points)
		}
	}
	want := map[[2]int]int{{floor.Index(), l.Index()}: 1, {l.Index(), db.Index()}: 1}
	if len(begins) != len(want) || begins[[2]int{floor.Index(), l.Index()}] != 1 || begins[[2]int{l.Index(), db.Index()}] != 1 {
		t.Errorf("Begin events %v, want %v", begins, want)
	}
	if !nearVec(tw.pos(db), mgl32.Vec3{1, 1.25, 0}, 1e-3) || !nearVec(tw.pos(l), mgl32.Vec3{}, 1e-3) {
		t.Errorf("the dumbbell rests at %v, the L at %v; want (1, 1.25, 0) and 0", tw.pos(db), tw.pos(l))
	}
	if !tw.s.Asleep(l) || !tw.s.Asleep(db) {
		t.Errorf("not asleep: %v %v", tw.s.Asleep(l), tw.s.Asleep(db))
	}
	// The cache: the foot (part 1 of the L, A) with each ball (parts 0
	// and 1 of the dumbbell): subs 1<<8 | 0 and 1<<8 | 1.
	cp := tw.s.Contacts().Ptr()
	var subs []uint32
	for i := range cp.m {
		if m := &cp.m[i]; m.a == l && m.b == db {
			subs = append(subs, m.sub)
		}
	}
	if !slices.Equal(subs, []uint32{0x100, 0x101}) {
		t.Errorf("manifolds between the L and the dumbbell: subs %#x, want [0x100 0x101]", subs)
	}
}

// TestCompoundOnMesh: a dumbbell and an L dropped on a floor of triangles
// rest on it within a millimetre of their resting height, each with one
// Begin event, manifolds named by part and triangle.
func TestCompoundOnMesh(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	tw.meshFloor(t)
	db := tw.compound(t, dumbbellParts())
	l := tw.compound(t, lParts())
	a := tw.add(NewBodyDef(Dynamic, CompoundShape(db)), mgl32.Vec3{-2.2, 0.4, -1.3}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	b := tw.add(NewBodyDef(Dynamic, CompoundShape(l)), mgl32.Vec3{1.3, 0.1, 1.7}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	begins := 0
	for i := range 240 {
		tw.s.Step()
		for _, ev := range tw.s.Events() {
			if ev.Kind == Begin {
				begins++
			}
		}
		if i >= 120 {
			st := tw.s.Stats()
			if st.WarmPoints != st.Points {
				t.Errorf("step %d: %d of %d points warm-started", i, st.WarmPoints, st.Points)
			}
		}
	}
	if begins != 2 {
		t.Errorf("%d Begin events, want 2", begins)
	}
	if y := tw.pos(a)[1]; !nearF(float64(y), 0.25, 1e-3) {
		t.Errorf("the dumbbell rests at y = %v, want 0.25", y)
	}
	if y := tw.pos(b)[1]; !nearF(float64(y), 0, 1e-3) {
		t.Errorf("the L rests at y = %v, want 0", y)
	}
	if !tw.s.Asleep(a) || !tw.s.Asleep(b) {
		t.Errorf("not asleep: %v %v", tw.s.Asleep(a), tw.s.Asleep(b))
	}
	cp := tw.s.Contacts().Ptr()
	parts := map[uint32]bool{}
	for i := range cp.m {
		m := &cp.m[i]
		if m.b == b || m.a == b {
			parts[m.sub>>24] = true
		}
	}
	if !parts[0] || !parts[1] || len(parts) != 2 {
		t.Errorf("the L's manifolds name the parts %v, want 0 and 1", parts)
	}
}

// TestCompoundQueries: a ray hits the right part of a compound, at the
// right distance; an overlap or a sweep in the gap between parts (inside
// the compound's box) sees nothing, one at a part sees it.
func TestCompoundQueries(t *testing.T) {
	tw := newTestWorld(t, zeroG())
	id := tw.compound(t, dumbbellParts())
	// Turned a quarter about Y: the balls at (2, 1, 0) and (2, 1, -1).
	q := mgl32.Quat{W: 0.70710677, V: mgl32.Vec3{0, 0.70710677, 0}}
	e := tw.add(NewBodyDef(Dynamic, CompoundShape(id)), mgl32.Vec3{2, 1, 0}, q, mgl32.Vec3{}, mgl32.Vec3{})
	down := mgl32.Vec3{0, -1, 0}
	for _, c := range []struct {
		x, z float32
		part int
		dist float32
	}{
		{2, 0, 0, 1.75},      // the first ball's top
		{2, -1, 1, 1.75},     // the second's
		{2, -0.5, 2, 1.9},    // the bar's
		{2.05, -1, 1, 1.755}, // beside the second ball's top
	} {
		hit, ok, err := tw.s.RayCast(mgl32.Vec3{c.x, 3, c.z}, down, 10, QueryFilter{})
		if err != nil || !ok || hit.Entity != e || hit.Part != c.part || !nearF(float64(hit.Distance), float64(c.dist), 2e-3) {
			t.Errorf("ray at (%v, %v): %+v %v %v, want part %d at %v", c.x, c.z, hit, ok, err, c.part, c.dist)
		}
	}
	// Through the gap beside the bar: inside the box, no part.
	if hit, ok, _ := tw.s.RayCast(mgl32.Vec3{2.2, 3, -0.5}, down, 10, QueryFilter{}); ok {
		t.Errorf("a ray beside the bar hit %+v", hit)
	}
	small := Shape{Kind: Sphere, Radius: 0.05}
	if got, _ := tw.s.Overlap(small, mgl32.Vec3{2.2, 1, -0.5}, mgl32.QuatIdent(), QueryFilter{}, nil); len(got) != 0 {
		t.Errorf("overlap beside the bar: %v", got)
	}
	if got, _ := tw.s.Overlap(small, mgl32.Vec3{2.2, 1, -1}, mgl32.QuatIdent(), QueryFilter{}, nil); len(got) != 1 || got[0] != e {
		t.Errorf("overlap at the second ball: %v", got)
	}
	hit, ok, err := tw.s.Sweep(small, mgl32.Vec3{2, 1, 2}, mgl32.QuatIdent(), mgl32.Vec3{0, 0, -4}, QueryFilter{})
	if err != nil || !ok || hit.Entity != e || !nearF(float64(hit.Fraction*4), 2-0.25-0.05, 3e-3) {
		t.Errorf("sweep along Z into the first ball: %+v %v %v", hit, ok, err)
	}
	// Along X over the bar (top at 1.1), between the balls.
	if hit, ok, _ := tw.s.Sweep(small, mgl32.Vec3{0, 1.2, -0.5}, mgl32.QuatIdent(), mgl32.Vec3{4, 0, 0}, QueryFilter{}); ok {
		t.Errorf("a sweep over the bar hit %+v", hit)
	}
	if _, err := tw.s.Overlap(CompoundShape(id), mgl32.Vec3{}, mgl32.QuatIdent(), QueryFilter{}, nil); err == nil {
		t.Errorf("a compound as an overlap's shape: no error")
	}
}

// TestCompoundSensor: a static compound sensor reports a ball passing
// through one of its parts, with one Begin and one End, and does not stop
// it.
func TestCompoundSensor(t *testing.T) {
	tw := newTestWorld(t, zeroG())
	id := tw.compound(t, lParts())
	d := NewBodyDef(Static, CompoundShape(id))
	d.Sensor = true
	s := tw.add(d, mgl32.Vec3{}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	// Through the foot (x in [0.5, 2.5], y in [0, 1]), along Z.
	ball := tw.sphere(Dynamic, 0.2, mgl32.Vec3{1.5, 0.5, -3}, mgl32.Vec3{0, 0, 3})
	// Past the leg's side, above the foot, through the L's box only.
	miss := tw.sphere(Dynamic, 0.2, mgl32.Vec3{1.5, 2.5, -3}, mgl32.Vec3{0, 0, 3})
	var evs []ContactEvent
	for range 150 {
		tw.s.Step()
		evs = append(evs, tw.s.Events()...)
	}
	// miss gets no event: it passes through the L's box, not its parts.
	if len(evs) != 2 || evs[0].Kind != Begin || evs[1].Kind != End || !evs[0].Sensor || evs[0].A != s || evs[0].B != ball || evs[1].B != ball {
		t.Errorf("events %+v, want a Begin and an End of the sensor and the ball (%v), none of %v", evs, ball, miss)
	}
	if v := tw.vel(ball); v != (mgl32.Vec3{0, 0, 3}) {
		t.Errorf("the sensor changed the ball's velocity to %v", v)
	}
}

// FuzzAddCompound: whatever numbers a game gives its parts, AddCompound
// returns an error or a compound with finite, positive mass properties
// and a unit principal frame, and a body of it (or AddBody's error)
// takes impulses and forces at a point, steps without a panic or a NaN
// in the world, and answers ray casts, overlaps and sweeps with finite
// results.
func FuzzAddCompound(f *testing.F) {
	f.Add(uint8(1), uint8(3), float32(0.5), float32(0.25), float32(1), float32(1), float32(0), float32(0), float32(0), float32(0), float32(0), float32(1), float32(1))
	f.Add(uint8(2), uint8(2), float32(1e-4), float32(1e4), float32(0), float32(-1e4), float32(1e4), float32(3), float32(0.6), float32(0), float32(0), float32(0.8), float32(1e20))
	f.Add(uint8(3), uint8(5), float32(1), float32(2), float32(3), float32(0), float32(0), float32(0), float32(0), float32(0), float32(0), float32(0), float32(1))
	f.Fuzz(func(t *testing.T, k0, k1 uint8, a, b, c, x, y, z, qx, qy, qz, qw, density float32) {
		shape := func(k uint8) Shape {
			switch k % 6 {
			case 0:
				return Shape{Kind: Sphere, Radius: a}
			case 1:
				return Shape{Kind: Capsule, Radius: b, HalfHeight: c}
			case 2:
				return Shape{Kind: Box, HalfExtents: mgl32.Vec3{a, b, c}}
			case 3:
				return Shape{Kind: Sphere, Radius: b}
			case 4:
				return Shape{Kind: Box, HalfExtents: mgl32.Vec3{c, a, b}}
			}
			return Shape{Kind: ShapeKind(k % 8)}
		}
		parts := []Part{
			{Shape: shape(k0)},
			{Shape: shape(k1), Pos: mgl32.Vec3{x, y, z}, Rot: mgl32.Quat{W: qw, V: mgl32.Vec3{qx, qy, qz}}},
		}
		tw := newTestWorld(t, DefaultConfig())
		id, err := tw.s.AddCompound(parts)
		if err != nil {
			if id != 0 || !strings.HasPrefix(err.Error(), "physics: AddCompound: ") {
				t.Fatalf("id %d, error %v", id, err)
			}
			return
		}
		cm := tw.s.compounds[id-1]
		mo := cm.moments
		if !(cm.volume > 0) || !finite(cm.volume) || !cm.com.finite() || !mo.finite() || !(mo.x > 0 && mo.y > 0 && mo.z > 0) ||
			!cm.frame.finite() || abs(cm.frame.lengthSq()-1) > 1e-5 {
			t.Fatalf("volume %v com %v moments %v frame %v", cm.volume, cm.com, mo, cm.frame)
		}
		tw.boxFloor()
		d := NewBodyDef(Dynamic, CompoundShape(id))
		d.Density = density
		e := tw.w.Spawn(geomAt(mgl32.Vec3{0, 3, 0}), engine.Interpolate)
		if err := tw.s.AddBody(e, d); err != nil {
			if !strings.HasPrefix(err.Error(), "physics: AddBody(") {
				t.Fatalf("AddBody: %v", err)
			}
			return
		}
		o, dir := mgl32.Vec3{x, y, z}, mgl32.Vec3{qx, qy, qz}
		tw.s.ApplyImpulseAt(e, dir, o)
		tw.s.ApplyForceAt(e, o, dir)
		tw.steps(5)
		if p, w := tw.pos(e), tw.w.Bodies().AngVel[e.Index()]; !toVec3(p).finite() || !toVec3(w).finite() {
			t.Fatalf("position %v angular velocity %v", p, w)
		}
		// The queries, with the same numbers, against the compound.
		if h, ok, err := tw.s.RayCast(o, dir, a, QueryFilter{}); err == nil && ok && (!finite(h.Distance) || !toVec3(h.Point).finite() || h.Part < 0 || h.Part > 1) {
			t.Fatalf("ray hit %+v", h)
		}
		ball := Shape{Kind: Sphere, Radius: b}
		tw.s.Overlap(ball, o, mgl32.QuatIdent(), QueryFilter{}, nil)
		if h, ok, err := tw.s.Sweep(ball, o, mgl32.QuatIdent(), dir, QueryFilter{}); err == nil && ok && !(h.Fraction >= 0 && h.Fraction <= 1) {
			t.Fatalf("sweep hit %+v", h)
		}
	})
}

// TestCompoundAgainstEachKind: a ball, a lying capsule and a box dropped
// on the foot of a static L (top y = 1) rest on it, and an L dropped on a
// mesh floor rests on it, with the compound in the lower slot of the pair
// or in the higher one (the normals of its manifolds turned either way).
func TestCompoundAgainstEachKind(t *testing.T) {
	lying := mgl32.Quat{W: 0.70710677, V: mgl32.Vec3{0.70710677, 0, 0}} // the capsule's axis along Z
	for _, c := range []struct {
		sh   Shape
		rot  mgl32.Quat
		rest float32
	}{
		{Shape{Kind: Sphere, Radius: 0.3}, mgl32.QuatIdent(), 1.3},
		{Shape{Kind: Capsule, Radius: 0.2, HalfHeight: 0.3}, lying, 1.2},
		{Shape{Kind: Box, HalfExtents: mgl32.Vec3{0.25, 0.25, 0.25}}, mgl32.QuatIdent(), 1.25},
	} {
		for _, compoundFirst := range []bool{true, false} {
			tw := newTestWorld(t, DefaultConfig())
			id := tw.compound(t, lParts())
			addL := func() {
				tw.add(NewBodyDef(Static, CompoundShape(id)), mgl32.Vec3{}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
			}
			if compoundFirst {
				addL()
			}
			e := tw.add(NewBodyDef(Dynamic, c.sh), mgl32.Vec3{1.5, c.rest + 0.1, 0}, c.rot, mgl32.Vec3{}, mgl32.Vec3{})
			if !compoundFirst {
				addL()
			}
			tw.steps(120)
			if p := tw.pos(e); !nearVec(p, mgl32.Vec3{1.5, c.rest, 0}, 2e-3) {
				t.Errorf("%v (compound first: %v) rests at %v, want (1.5, %v, 0)", c.sh.Kind, compoundFirst, p, c.rest)
			}
		}
	}
	// A dynamic L on a mesh added after it.
	tw := newTestWorld(t, DefaultConfig())
	e := tw.add(NewBodyDef(Dynamic, CompoundShape(tw.compound(t, lParts()))), mgl32.Vec3{0.5, 0.05, 0.5}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	tw.meshFloor(t)
	tw.steps(120)
	// Landing shifts it by a few millimetres sideways, as it does a box
	// of its leg's size alone.
	if p := tw.pos(e); !nearF(float64(p[1]), 0, 1e-3) || !nearVec(p, mgl32.Vec3{0.5, 0, 0.5}, 0.01) {
		t.Errorf("the L on a mesh in a higher slot rests at %v, want (0.5, 0, 0.5)", p)
	}
}

// TestCollidePartsInvariants: for compounds placed at random against a
// ball, a box, a mesh and another compound, in both orders, every
// manifold has a unit normal pointing from the first shape to the
// second (the second's part lies ahead along it), finite points, and
// the manifolds come in strictly ascending sub order naming parts that
// exist.
func TestCollidePartsInvariants(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	db := tw.s.compounds[tw.compound(t, dumbbellParts())-1]
	l := tw.s.compounds[tw.compound(t, lParts())-1]
	mesh := gridMesh(t, 4, func(x, z int) float32 { return float32((x+z)%2) * 0.25 })
	others := []shape{
		{kind: Sphere, radius: 0.4},
		{kind: Box, half: vec3{0.5, 0.3, 0.4}},
		{kind: Capsule, radius: 0.2, halfHeight: 0.5},
		{kind: Mesh, mesh: mesh},
		{kind: Compound, comp: l},
		{kind: Compound, comp: db},
	}
	g := sceneLCG{7}
	coord := func(lo, hi float64) float32 { return float32(lo + (hi-lo)*g.next()) }
	manifolds := 0
	var first []manifold
	for i := range 4000 {
		a := shape{kind: Compound, comp: []*compound{db, l}[i%2]}
		b := others[i%len(others)]
		pa := pose{vec3{coord(0, 4), coord(-0.5, 1.5), coord(0, 4)}, toQuat(g.rotation())}
		pb := pose{vec3{coord(0, 4), coord(-0.5, 1.5), coord(0, 4)}, toQuat(g.rotation())}
		if b.kind == Mesh {
			pb = pose{q: identity}
		}
		for _, swap := range []bool{false, true} {
			x, y, px, py := &a, &b, pa, pb
			if swap {
				x, y, px, py = &b, &a, pb, pa
			}
			out := tw.s.collideParts(x, px, y, py, 0.02, nil)
			for k := range out {
				m := &out[k]
				manifolds++
				if k > 0 && out[k-1].sub >= m.sub {
					t.Fatalf("case %d swap %v: subs %#x then %#x", i, swap, out[k-1].sub, m.sub)
				}
				if l := m.normal.length(); abs(l-1) > 1e-4 || m.n < 1 || m.n > maxPoints {
					t.Fatalf("case %d swap %v: normal %v (length %v), %d points", i, swap, m.normal, l, m.n)
				}
				for j := range m.n {
					if !m.pts[j].p.finite() || !(m.pts[j].sep <= 0.02) {
						t.Fatalf("case %d swap %v: point %+v", i, swap, m.pts[j])
					}
				}
				// The parts the sub names exist.
				ca, cb := x.comp, y.comp
				switch {
				case ca != nil && cb != nil:
					if int(m.sub>>8) >= len(ca.parts) || int(m.sub&0xff) >= len(cb.parts) {
						t.Fatalf("sub %#x", m.sub)
					}
				case x.kind == Mesh || y.kind == Mesh:
					c := ca
					if c == nil {
						c = cb
					}
					if int(m.sub>>24) >= len(c.parts) || int(m.sub&0xffffff) >= mesh.Triangles() {
						t.Fatalf("sub %#x", m.sub)
					}
				default:
					c := ca
					if c == nil {
						c = cb
					}
					if int(m.sub) >= len(c.parts) {
						t.Fatalf("sub %#x", m.sub)
					}
				}
			}
			if !swap {
				first = append(first[:0], out...)
				continue
			}
			// Swapped, the same pairs of parts touch, with the normal
			// turned round (the same computation, or for two parts of
			// one kind the other's face as the reference).
			if len(out) != len(first) {
				t.Fatalf("case %d: %d manifolds, swapped %d", i, len(first), len(out))
			}
			for k := range out {
				want := first[k].sub
				if x.comp != nil && y.comp != nil {
					want = (want&0xff)<<8 | want>>8
				}
				var m *manifold
				for j := range out {
					if out[j].sub == want {
						m = &out[j]
					}
				}
				if m == nil || !(m.normal.dot(first[k].normal) < 0) {
					t.Fatalf("case %d: manifold %#x normal %v, swapped %+v", i, first[k].sub, first[k].normal, m)
				}
			}
		}
	}
	if manifolds < 500 {
		t.Errorf("only %d manifolds in 8000 pairs: the cases do not touch enough", manifolds)
	}
}

// worldMomentum returns the angular momentum I ω of the compound body e,
// I about its centre of mass in world axes.
func worldMomentum(tw *testWorld, e engine.Entity) vec3 {
	b, _ := tw.s.Body(e)
	sh := tw.s.bodyShape(b.Shape)
	r := inertiaFrame(&sh, toQuat(tw.w.Bodies().Rot[e.Index()])).rotation()
	ii := toVec3(b.InvInertia)
	in := vec3{1 / ii.x, 1 / ii.y, 1 / ii.z}
	w := toVec3(tw.w.Bodies().AngVel[e.Index()])
	// R diag(I) Rᵀ ω.
	return r.mulVec(r.mulTVec(w).mul(in))
}

// TestCompoundTumble: without gravity, an L spun about an axis that is
// none of its principal ones tumbles, its angular velocity wandering,
// and keeps its angular momentum (the gyroscopic term; within 0.5 %) and
// its energy (1 %) over 10 s; one spun about its middle principal axis,
// nudged, flips over (the tennis racket), its momentum kept all the
// while.
func TestCompoundTumble(t *testing.T) {
	tw := newTestWorld(t, zeroG())
	id := tw.compound(t, lParts())
	e := tw.add(NewBodyDef(Dynamic, CompoundShape(id)), mgl32.Vec3{}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{2, 0, 0.5})
	l0 := worldMomentum(tw, e)
	w0 := toVec3(tw.w.Bodies().AngVel[e.Index()])
	e0 := w0.dot(l0)
	wandered := float32(0)
	for range 600 {
		tw.s.Step()
		w := toVec3(tw.w.Bodies().AngVel[e.Index()])
		wandered = max(wandered, w.sub(w0).length())
		l := worldMomentum(tw, e)
		if d := l.sub(l0).length(); d > float32(0.005*l0.length()) {
			t.Fatalf("angular momentum went from %v to %v", l0, l)
		}
		if en := w.dot(l); abs(en-e0) > float32(e0*0.01) {
			t.Fatalf("energy went from %v to %v", e0, en)
		}
	}
	if wandered < 0.5 {
		t.Errorf("the angular velocity wandered at most %v from %v in 10 s: no tumbling", wandered, w0)
	}

	// The middle axis: 121/30 + 1.8, the diagonal (1, 1, 0).
	tw = newTestWorld(t, zeroG())
	id = tw.compound(t, lParts())
	c := tw.s.compounds[id-1]
	mid := c.frame.rotate(vec3{1, 0, 0})
	if c.moments.y > c.moments.x {
		mid = c.frame.rotate(vec3{0, 1, 0})
	}
	if mid.x < 0 {
		mid = mid.neg()
	}
	w0 = mid.scale(3).add(vec3{0, 0, 0.01})
	e = tw.add(NewBodyDef(Dynamic, CompoundShape(id)), mgl32.Vec3{}, mgl32.QuatIdent(), mgl32.Vec3{}, fromVec3(w0))
	l0 = worldMomentum(tw, e)
	flipped := false
	for range 900 {
		tw.s.Step()
		// Along the axis in the body, now turned with it.
		q := toQuat(tw.w.Bodies().Rot[e.Index()])
		w := toVec3(tw.w.Bodies().AngVel[e.Index()])
		if q.rotate(mid).dot(w) < -2 {
			flipped = true
		}
		if l := worldMomentum(tw, e); l.sub(l0).length() > float32(0.02*l0.length()) {
			t.Fatalf("angular momentum went from %v to %v", l0, l)
		}
	}
	if !flipped {
		t.Errorf("a nudged spin about the middle axis did not flip over in 15 s")
	}
}
