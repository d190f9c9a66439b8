package physics

import (
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
)

// Ports of Rapier's and Box2D v3's continuous collision tests.
//
// Rapier: dimforge/rapier, crates/rapier3d/tests/ccd_default_vs_fixed.rs
// (its default tier is Nebula's automatic CCD against static bodies, its
// ccd_enabled BodyDef.CCD, its max_ccd_substeps = 0 Config.NoAutoCCD),
// crates/rapier3d/tests/miri_scenes.rs and
// crates/rapier3d/tests/issue_217_ccd_large_dt_hitch.rs. Box2D:
// erincatto/box2d, test/test_large_world.c and test/test_distance.c (2D:
// their polygons extruded along z).

// rapierWall adds Rapier's thin fixed wall (cuboid 0.05 × 5 × 5 at the
// origin) of kind k.
func (tw *testWorld) rapierWall(k Kind) engine.Entity {
	return tw.add(NewBodyDef(k, Shape{Kind: Box, HalfExtents: mgl32.Vec3{0.05, 5, 5}}), mgl32.Vec3{}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
}

// rapierFast adds Rapier's fast body: shape sh at x = −3 moving at
// 200 m/s along +x (3.3 m a step).
func (tw *testWorld) rapierFast(sh Shape, ccd bool) engine.Entity {
	d := NewBodyDef(Dynamic, sh)
	d.CCD = ccd
	return tw.add(d, mgl32.Vec3{-3, 0, 0}, mgl32.QuatIdent(), mgl32.Vec3{200, 0, 0}, mgl32.Vec3{})
}

var rapierCube = Shape{Kind: Box, HalfExtents: mgl32.Vec3{0.1, 0.1, 0.1}}

// Rapier: ccd_default_vs_fixed.rs, default_ccd_vs_fixed_no_tunnel. A fast
// body without CCD is stopped by a fixed wall.
func TestRapierDefaultCCDVsFixedNoTunnel(t *testing.T) {
	tw := newTestWorld(t, zeroG())
	tw.rapierWall(Static)
	b := tw.rapierFast(rapierCube, false)
	tw.steps(120)
	if x := tw.pos(b).X(); x >= 0 {
		t.Errorf("the body tunneled through the fixed wall: x = %v", x)
	}
}

// Rapier: ccd_default_vs_fixed.rs, default_tier_ignores_dynamic. Two
// fast bodies without CCD, head on, pass through each other.
func TestRapierDefaultTierIgnoresDynamic(t *testing.T) {
	tw := newTestWorld(t, zeroG())
	a := tw.rapierFast(rapierCube, false)
	b := tw.add(NewBodyDef(Dynamic, rapierCube), mgl32.Vec3{3, 0, 0}, mgl32.QuatIdent(), mgl32.Vec3{-200, 0, 0}, mgl32.Vec3{})
	tw.steps(5)
	if xa, xb := tw.pos(a).X(), tw.pos(b).X(); !(xa > 0 && xb < 0) {
		t.Errorf("a.x = %v, b.x = %v: they should have passed through each other", xa, xb)
	}
}

// Rapier: ccd_default_vs_fixed.rs, bullet_still_hits_dynamic. A CCD body
// hits a dynamic target and pushes it along, staying behind it.
func TestRapierBulletStillHitsDynamic(t *testing.T) {
	tw := newTestWorld(t, zeroG())
	bullet := tw.rapierFast(rapierCube, true)
	target := tw.add(NewBodyDef(Dynamic, Shape{Kind: Box, HalfExtents: mgl32.Vec3{0.2, 0.2, 0.2}}), mgl32.Vec3{}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	tw.steps(60)
	if x := tw.pos(target).X(); x <= 0.05 {
		t.Errorf("the bullet did not hit the target: target.x = %v", x)
	}
	if xb, xt := tw.pos(bullet).X(), tw.pos(target).X(); xb >= xt {
		t.Errorf("the bullet passed through its target: bullet.x = %v, target.x = %v", xb, xt)
	}
}

// Rapier: ccd_default_vs_fixed.rs, global_ccd_off_tunnels. With the
// automatic CCD off for the whole world, the fast body tunnels.
func TestRapierGlobalCCDOffTunnels(t *testing.T) {
	cfg := zeroG()
	cfg.NoAutoCCD = true
	tw := newTestWorld(t, cfg)
	tw.rapierWall(Static)
	b := tw.rapierFast(rapierCube, false)
	tw.steps(60)
	if x := tw.pos(b).X(); x <= 1 {
		t.Errorf("the body should tunnel with CCD off: x = %v", x)
	}
}

// rapierTwoCubes is ccd_default_vs_fixed.rs's compound: two 0.2 m cubes
// at y = ±0.15.
func rapierTwoCubes(t *testing.T, tw *testWorld) Shape {
	id := tw.compound(t, []Part{
		{Shape: rapierCube, Pos: mgl32.Vec3{0, 0.15, 0}},
		{Shape: rapierCube, Pos: mgl32.Vec3{0, -0.15, 0}},
	})
	return Shape{Kind: Compound, Compound: id}
}

// Rapier: ccd_default_vs_fixed.rs, compound_fast_body_no_tunnel.
func TestRapierCompoundFastBodyNoTunnel(t *testing.T) {
	tw := newTestWorld(t, zeroG())
	tw.rapierWall(Static)
	b := tw.rapierFast(rapierTwoCubes(t, tw), false)
	tw.steps(120)
	if x := tw.pos(b).X(); x >= 0 {
		t.Errorf("the compound tunneled through the fixed wall: x = %v", x)
	}
}

// Rapier: ccd_default_vs_fixed.rs,
// compound_fast_body_vs_trimesh_wall_no_tunnel: a one-part compound
// against a wall of two triangles at x = 0 (no thickness).
func TestRapierCompoundFastBodyVsTrimeshWallNoTunnel(t *testing.T) {
	tw := newTestWorld(t, zeroG())
	m, err := NewTriangleMesh([]mgl32.Vec3{{0, -5, -5}, {0, 5, -5}, {0, 5, 5}, {0, -5, 5}}, []uint32{0, 1, 2, 0, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	mid, err := tw.s.AddMesh(m)
	if err != nil {
		t.Fatal(err)
	}
	tw.add(NewBodyDef(Static, Shape{Kind: Mesh, Mesh: mid}), mgl32.Vec3{}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	id := tw.compound(t, []Part{{Shape: rapierCube}})
	b := tw.rapierFast(Shape{Kind: Compound, Compound: id}, false)
	tw.steps(120)
	if x := tw.pos(b).X(); x >= 0 {
		t.Errorf("the compound tunneled through the mesh wall: x = %v", x)
	}
}

// Rapier: ccd_default_vs_fixed.rs, kinematic_not_a_default_target. The
// automatic CCD is against static bodies only: a fast body without CCD
// passes through a kinematic wall.
func TestRapierKinematicNotADefaultTarget(t *testing.T) {
	tw := newTestWorld(t, zeroG())
	tw.rapierWall(Kinematic)
	b := tw.rapierFast(rapierCube, false)
	tw.steps(60)
	if x := tw.pos(b).X(); x <= 1 {
		t.Errorf("the body should tunnel through a kinematic wall: x = %v", x)
	}
}

// Rapier: miri_scenes.rs, ccd_bullet_vs_thin_floor. A CCD ball of radius
// 0.1 at 100 m/s down onto a floor 0.1 m thick stays above it.
func TestRapierCCDBulletVsThinFloor(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	tw.add(NewBodyDef(Static, Shape{Kind: Box, HalfExtents: mgl32.Vec3{10, 0.05, 10}}), mgl32.Vec3{}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	d := NewBodyDef(Dynamic, Shape{Kind: Sphere, Radius: 0.1})
	d.CCD = true
	b := tw.add(d, mgl32.Vec3{0, 1, 0}, mgl32.QuatIdent(), mgl32.Vec3{0, -100, 0}, mgl32.Vec3{})
	tw.steps(30)
	if y := tw.pos(b).Y(); y <= 0 {
		t.Errorf("the bullet tunneled through the floor: y = %v", y)
	}
}

// Rapier: issue_217_ccd_large_dt_hitch.rs, ccd_large_dt_no_mid_air_hitch.
// At 4 steps a second (dt 0.25 s) a CCD ball of radius 0.5 at 20 m/s (5 m
// a step) towards a thin wall whose near face is at x = 12.2 moves at full
// speed until the impact (within 1e-3), then rests against the wall
// (11.35 < x < 11.71), still (|vx| < 0.1) from the fifth step.
func TestRapierCCDLargeDtNoMidAirHitch(t *testing.T) {
	cfg := zeroG()
	cfg.TickRate = 4
	tw := newTestWorld(t, cfg)
	tw.add(NewBodyDef(Static, Shape{Kind: Box, HalfExtents: mgl32.Vec3{0.05, 5, 5}}), mgl32.Vec3{12.25, 0, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	d := NewBodyDef(Dynamic, Shape{Kind: Sphere, Radius: 0.5})
	d.CCD = true
	ball := tw.add(d, mgl32.Vec3{}, mgl32.QuatIdent(), mgl32.Vec3{20, 0, 0}, mgl32.Vec3{})
	const contact, travel = 12.2 - 0.5, 20 * 0.25
	prev := float32(0)
	for i := range 10 {
		tw.steps(1)
		x, vx := tw.pos(ball).X(), tw.vel(ball).X()
		if prev+travel < contact-0.5 {
			if abs(x-(prev+travel)) >= 1e-3 {
				t.Errorf("step %d: the ball hitched mid-air at x = %v (want %v)", i, x, prev+travel)
			}
		} else {
			if !(x > contact-0.35 && x < contact+0.01) {
				t.Errorf("step %d: the ball is not at the wall: x = %v (contact at %v)", i, x, contact)
			}
			if i >= 4 && abs(vx) >= 0.1 {
				t.Errorf("step %d: the ball still moves against the wall: vx = %v", i, vx)
			}
		}
		prev = x
	}
}

// Box2D: test_large_world.c, LargeWorldBulletTest at the origin (Nebula's
// float32 world has no large-world mode). A bullet ball of radius 0.1 at
// 200 m/s towards a static wall 0.1 m thick (its face at 0.05) stops at
// its near face: 0 < x < 0.5 after 30 steps.
func TestBox2DLargeWorldBulletTest(t *testing.T) {
	tw := newTestWorld(t, zeroG())
	tw.add(NewBodyDef(Static, Shape{Kind: Box, HalfExtents: mgl32.Vec3{0.05, 5, 5}}), mgl32.Vec3{}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	d := NewBodyDef(Dynamic, Shape{Kind: Sphere, Radius: 0.1})
	d.CCD = true
	b := tw.add(d, mgl32.Vec3{10, 0, 0}, mgl32.QuatIdent(), mgl32.Vec3{-200, 0, 0}, mgl32.Vec3{})
	tw.steps(30)
	if x := tw.pos(b).X(); !(x > 0 && x < 0.5) {
		t.Errorf("the bullet ends at x = %v, want in (0, 0.5)", x)
	}
}

// Box2D: test_large_world.c, LargeWorldRayCastTest at the origin. A ray
// from 5 m left of a unit box, 10 m long, hits its left face at
// (−0.5, 0) within 1e-4.
func TestBox2DLargeWorldRayCastTest(t *testing.T) {
	tw := newTestWorld(t, zeroG())
	tw.add(NewBodyDef(Static, unitBox), mgl32.Vec3{}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	h, ok, err := tw.s.RayCast(mgl32.Vec3{-5, 0, 0}, mgl32.Vec3{10, 0, 0}, 10, QueryFilter{})
	if err != nil || !ok || abs(h.Point.X()+0.5) > 1e-4 || abs(h.Point.Y()) > 1e-4 {
		t.Errorf("%+v %v %v, want a hit at (−0.5, 0, 0)", h, ok, err)
	}
}

// Box2D: test_distance.c, ShapeCastTest: the 2×2 square at the origin and
// the segment x = 2, y from −1 to 1, moved by (−2, 0), meet at fraction
// 0.5 within 0.005. In 3D: a static 2×2×2 box, and a box 2 m square and
// 2 mm thick swept from x = 2.001.
func TestBox2DShapeCastTest(t *testing.T) {
	tw := newTestWorld(t, zeroG())
	tw.add(NewBodyDef(Static, Shape{Kind: Box, HalfExtents: mgl32.Vec3{1, 1, 1}}), mgl32.Vec3{}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	h, ok, err := tw.s.Sweep(Shape{Kind: Box, HalfExtents: mgl32.Vec3{0.001, 1, 1}}, mgl32.Vec3{2.001, 0, 0}, mgl32.QuatIdent(), mgl32.Vec3{-2, 0, 0}, QueryFilter{})
	if err != nil || !ok || abs(h.Fraction-0.5) > 0.005 {
		t.Errorf("%+v %v %v, want a hit at fraction 0.5", h, ok, err)
	}
}

// Box2D: test_distance.c, TimeOfImpactTest: the same pair with the
// segment's sweep, through the cast that finds a CCD pair's time of
// impact (impactManifold): fraction 0.5 within 0.005.
func TestBox2DTimeOfImpactTest(t *testing.T) {
	a := convexOf(&shape{kind: Box, half: vec3{0.001, 1, 1}}, pose{p: vec3{2.001, 0, 0}, q: identity})
	b := convexOf(&shape{kind: Box, half: vec3{1, 1, 1}}, pose{q: identity})
	f, _, hit := cast(&a, &b, vec3{-2, 0, 0}, 0.5*DefaultConfig().SpeculativeDistance)
	if !hit || abs(f-0.5) > 0.005 {
		t.Errorf("fraction %v, hit %v; want 0.5", f, hit)
	}
}
