package physics

import (
	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
)

// This file gives a debug drawing (package engine/physics/debugdraw) what
// it reads of the Space besides the world's components: the assets'
// geometry and the contact points. None of it is used by a step.

// TriangleMesh returns the mesh added as id (Space.AddMesh), or nil when
// there is none.
func (s *Space) TriangleMesh(id MeshID) *TriangleMesh {
	if id == 0 || int(id) > len(s.meshes) {
		return nil
	}
	return s.meshes[id-1]
}

// Triangle returns triangle i's corners (0 <= i < Triangles()), in the
// mesh's own coordinates.
func (m *TriangleMesh) Triangle(i int) (a, b, c mgl32.Vec3) {
	x, y, z := m.triangle(uint32(i))
	return fromVec3(x), fromVec3(y), fromVec3(z)
}

// ConvexHull returns the hull added as id (Space.AddConvexHull), or nil
// when there is none.
func (s *Space) ConvexHull(id HullID) *Hull {
	if id == 0 || int(id) > len(s.hulls) {
		return nil
	}
	return s.hulls[id-1]
}

// AppendEdges appends the hull's edges to dst, each once as its two ends
// (relative to the centre of mass, as Vertices), and returns dst. It
// allocates only when dst is too short.
func (h *Hull) AppendEdges(dst [][2]mgl32.Vec3) [][2]mgl32.Vec3 {
	for _, e := range h.edgeEnds {
		dst = append(dst, [2]mgl32.Vec3{fromVec3(h.verts[e[0]]), fromVec3(h.verts[e[1]])})
	}
	return dst
}

// Edges returns how many edges the hull has.
func (h *Hull) Edges() int { return len(h.edgeEnds) }

// HeightGrid returns the height field added as id (Space.AddHeightField),
// or nil when there is none.
func (s *Space) HeightGrid(id HeightFieldID) *HeightGrid {
	if id == 0 || int(id) > len(s.heights) {
		return nil
	}
	return s.heights[id-1]
}

// TriangleMesh returns the triangles the height field is made of, in its
// body's coordinates, as the step reads them.
func (h *HeightGrid) TriangleMesh() *TriangleMesh { return h.mesh }

// AppendCompoundParts appends the parts of the compound added as id
// (Space.AddCompound) to dst, in the order they were given, and returns
// dst; dst unchanged when there is no such compound. Each part's Rot is
// a unit quaternion. It allocates only when dst is too short.
func (s *Space) AppendCompoundParts(id CompoundID, dst []Part) []Part {
	if id == 0 || int(id) > len(s.compounds) {
		return dst
	}
	for _, p := range s.compounds[id-1].parts {
		sh := Shape{Kind: p.shape.kind, HalfExtents: fromVec3(p.shape.half), Radius: p.shape.radius, HalfHeight: p.shape.halfHeight}
		dst = append(dst, Part{Shape: sh, Pos: fromVec3(p.pose.p), Rot: fromQuat(p.pose.q)})
	}
	return dst
}

// ContactPoint is one point of a cached contact (Contacts.AppendPoints).
type ContactPoint struct {
	// A and B are the pair's bodies, A in the lower slot.
	A, B engine.Entity
	// Point is the point, in world coordinates, and Separation its
	// separation (<= 0 when the shapes overlap there), as the last Step's
	// narrow phase found them; Normal is the manifold's normal, from A
	// towards B.
	Point, Normal mgl32.Vec3
	Separation    float32 // m, <= 0 when overlapping
	// Touching is set when the pair's shapes touch (some point within
	// Config.TouchDistance, or a sensor's overlap); Sensor when one of
	// the two is a sensor.
	Touching, Sensor bool
}

// AppendPoints appends every point of the cached manifolds to dst, in the
// cache's order (by the pairs' slots), and returns dst. It allocates only
// when dst is too short.
func (c *Contacts) AppendPoints(dst []ContactPoint) []ContactPoint {
	for i := range c.m {
		m := &c.m[i]
		for k := range int(m.n) {
			p := &m.pts[k]
			dst = append(dst, ContactPoint{
				A: m.a, B: m.b, Point: fromVec3(p.p), Normal: fromVec3(m.normal),
				Separation: p.sep, Touching: m.touching, Sensor: m.sensor,
			})
		}
	}
	return dst
}
