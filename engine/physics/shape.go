package physics

import "github.com/go-gl/mathgl/mgl32"

// ShapeKind is the kind of a collision shape.
type ShapeKind uint8

//go:generate go run golang.org/x/tools/cmd/stringer@v0.52.0 -type=ShapeKind

// The shapes. Sphere < Capsule < Box < Mesh is also the order in which the
// narrow phase takes a pair (the lower kind first). ConvexHull and Cylinder
// are convex shapes met by the general convex routine (convexcollide.go);
// a HeightField is read by the step as the triangle mesh it is made of.
const (
	Sphere      ShapeKind = iota + 1 // a ball of Radius
	Capsule                          // a segment of 2×HalfHeight along local Y, swept by a ball of Radius
	Box                              // a cuboid of HalfExtents along the local axes
	Mesh                             // a static triangle mesh (level geometry)
	Compound                         // several spheres, capsules and boxes (Space.AddCompound; make it with CompoundShape)
	ConvexHull                       // the convex hull of points (NewConvexHull, Space.AddConvexHull; make it with HullShape)
	Cylinder                         // a cylinder of Radius around local Y, 2×HalfHeight long, with flat ends
	HeightField                      // static terrain from a grid of heights (NewHeightField, Space.AddHeightField)
)

// Shape is a body's collision shape, centred on the body's position and
// turned with it (a compound's parts are placed in the body's frame).
type Shape struct {
	Kind        ShapeKind  // which shape; its fields below
	HalfExtents mgl32.Vec3 // Box: half the size along each local axis
	Radius      float32    // Sphere, Capsule, Cylinder
	HalfHeight  float32    // Capsule, Cylinder: half the length of its axis (local Y)
	Mesh        MeshID     // Mesh: the triangles, from Space.AddMesh
	Compound    CompoundID // Compound: the parts, from Space.AddCompound
	// Hull is a ConvexHull shape's hull, from Space.AddConvexHull.
	Hull HullID
	// HeightField is a HeightField shape's grid, from Space.AddHeightField.
	HeightField HeightFieldID
}

// MeshID names a TriangleMesh added to a Space (Space.AddMesh), from 1;
// 0 is no mesh.
type MeshID uint32

// hasParts reports whether a shape of kind k meets others part by part: a
// mesh's triangles, a compound's parts.
func (k ShapeKind) hasParts() bool { return k == Mesh || k == Compound }

// shape is a Shape as the step reads it.
type shape struct {
	kind       ShapeKind
	half       vec3          // box half extents
	radius     float32       // sphere, capsule
	halfHeight float32       // capsule
	mesh       *TriangleMesh // Mesh, and a HeightField's triangles (its kind is Mesh here)
	comp       *compound     // Compound
	hull       *Hull         // ConvexHull
}

func toVec3(v mgl32.Vec3) vec3   { return vec3{v[0], v[1], v[2]} }
func fromVec3(v vec3) mgl32.Vec3 { return mgl32.Vec3{v.x, v.y, v.z} }
func toQuat(q mgl32.Quat) quat   { return quat{q.V[0], q.V[1], q.V[2], q.W} }
func fromQuat(q quat) mgl32.Quat { return mgl32.Quat{W: q.w, V: mgl32.Vec3{q.x, q.y, q.z}} }
