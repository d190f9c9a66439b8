package physics

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/geom"
	"github.com/nebulaengine/nebula/engine/render"
)

// VisualOf returns the built-in mesh and the scale that draw sh exactly as
// it collides: a box is render.MeshCube (corners at ±0.5) scaled by twice
// its half extents, a sphere render.MeshSphere (diameter 1) scaled by its
// diameter. It reports false for the other shapes, which no built-in mesh
// draws: give such a body a mesh of the game's own (World.SetMesh).
func VisualOf(sh Shape) (render.MeshID, mgl32.Vec3, bool) {
	switch sh.Kind {
	case Box:
		h := sh.HalfExtents
		return render.MeshCube, mgl32.Vec3{float32(2 * h[0]), float32(2 * h[1]), float32(2 * h[2])}, true
	case Sphere:
		d := float32(2 * sh.Radius)
		return render.MeshSphere, mgl32.Vec3{d, d, d}, true
	}
	return 0, mgl32.Vec3{}, false
}

// SpawnBody spawns a root entity at pos, turned by rot (a unit
// quaternion), of scale one, drawn with mode, and makes it a body of d,
// with the mesh and mesh scale that draw d.Shape as it collides
// (VisualOf, engine.World.SetMeshScale): one call, so that what is drawn
// and what collides cannot drift apart. It returns an error, and spawns
// nothing, when d.Shape has no built-in visual (use AddBody and a mesh of
// the game's own) or when AddBody refuses the body.
//
// The size is the mesh's, not the transform's, so a child of the body is
// placed in metres and drawn at its own size, not stretched by the body's.
//
//	ball, err := space.SpawnBody(mgl32.Vec3{0, 5, 0}, mgl32.QuatIdent(), engine.Interpolate,
//		physics.NewBodyDef(physics.Dynamic, physics.Shape{Kind: physics.Sphere, Radius: 0.3}))
func (s *Space) SpawnBody(pos mgl32.Vec3, rot mgl32.Quat, mode engine.DrawMode, d BodyDef) (engine.Entity, error) {
	mesh, scale, ok := VisualOf(d.Shape)
	if !ok {
		return engine.Entity{}, fmt.Errorf("physics: SpawnBody: a %v has no built-in visual (use AddBody and a mesh of your own)", d.Shape.Kind)
	}
	e := s.w.Spawn(geom.Transform{Pos: pos, Rot: rot, Scale: mgl32.Vec3{1, 1, 1}}, mode)
	s.w.SetMesh(e, mesh)
	s.w.SetMeshScale(e, scale)
	if err := s.AddBody(e, d); err != nil {
		s.w.Despawn(e)
		return engine.Entity{}, fmt.Errorf("physics: SpawnBody: %w", err)
	}
	return e, nil
}
