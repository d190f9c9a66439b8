package physics

import (
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/geom"
	"github.com/nebulaengine/nebula/engine/render"
)

// SpawnBody draws a box and a sphere at the size they collide at: the
// entity's mesh scale is the box's full extents and the sphere's diameter
// (its transform's scale is one, so children are not stretched), its
// mesh the built-in cube and sphere, and the body's shape the one given.
// A shape without a built-in visual, or a body AddBody refuses, spawns
// nothing.
func TestSpawnBodyVisualMatchesShape(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	for _, tc := range []struct {
		shape Shape
		mesh  render.MeshID
		scale mgl32.Vec3
	}{
		{Shape{Kind: Box, HalfExtents: mgl32.Vec3{0.5, 1.5, 2}}, render.MeshCube, mgl32.Vec3{1, 3, 4}},
		{Shape{Kind: Sphere, Radius: 0.3}, render.MeshSphere, mgl32.Vec3{0.6, 0.6, 0.6}},
	} {
		e, err := tw.s.SpawnBody(mgl32.Vec3{1, 2, 3}, mgl32.QuatIdent(), engine.Interpolate, NewBodyDef(Dynamic, tc.shape))
		if err != nil {
			t.Fatal(err)
		}
		tr := tw.w.Transform(e)
		ms := tw.w.MeshScale(e)
		b, _ := tw.s.Body(e)
		if ms != tc.scale || tr.Scale != (mgl32.Vec3{1, 1, 1}) || tw.w.Mesh(e) != tc.mesh || b.Shape != tc.shape || tr.Pos != (mgl32.Vec3{1, 2, 3}) {
			t.Errorf("%v: drawn as mesh %d at mesh scale %v, scale %v (at %v), collides as %+v; want mesh %d at mesh scale %v, scale 1, shape %+v",
				tc.shape.Kind, tw.w.Mesh(e), ms, tr.Scale, tr.Pos, b.Shape, tc.mesh, tc.scale, tc.shape)
		}
		// The drawn extents are the shape's: half the mesh scale is the
		// box's half extents, the sphere's radius.
		_, scale, _ := VisualOf(b.Shape)
		if scale != ms {
			t.Errorf("%v: VisualOf(the body's shape) gives scale %v, the entity has mesh scale %v", tc.shape.Kind, scale, ms)
		}
		// A child placed 1 m above the body is drawn 1 m above it, at its
		// own size.
		c := tw.w.Spawn(geom.NewTransform(mgl32.Vec3{0, 1, 0}), engine.Interpolate)
		if err := tw.w.SetParent(c, e, engine.KeepLocal); err != nil {
			t.Fatal(err)
		}
		if ct := tw.w.WorldTransform(c); ct.Pos != (mgl32.Vec3{1, 3, 3}) || ct.Scale != (mgl32.Vec3{1, 1, 1}) {
			t.Errorf("%v: a child 1 m above the body is at %v, scale %v; want {1 3 3}, scale 1", tc.shape.Kind, ct.Pos, ct.Scale)
		}
		tw.w.Despawn(c)
	}
	n := tw.w.Len()
	if _, err := tw.s.SpawnBody(mgl32.Vec3{}, mgl32.QuatIdent(), engine.Interpolate, NewBodyDef(Dynamic, Shape{Kind: Capsule, Radius: 0.3, HalfHeight: 0.5})); err == nil || !strings.Contains(err.Error(), "physics: SpawnBody: a Capsule has no built-in visual") {
		t.Errorf("a capsule: %v, want no built-in visual", err)
	}
	if _, err := tw.s.SpawnBody(mgl32.Vec3{}, mgl32.QuatIdent(), engine.Interpolate, NewBodyDef(Dynamic, Shape{Kind: Box})); err == nil || !strings.HasPrefix(err.Error(), "physics: SpawnBody: physics: AddBody") {
		t.Errorf("a box of size 0: %v, want AddBody's error", err)
	}
	if tw.w.Len() != n {
		t.Errorf("%d entities after two refused spawns, want %d", tw.w.Len(), n)
	}
}
