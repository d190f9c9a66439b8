package geom

import (
	"github.com/go-gl/mathgl/mgl32"
	"github.com/nebulaengine/nebula/engine/detmath"
)

// Transform places an entity: position, rotation (a unit quaternion) and
// scale.
type Transform struct {
	Pos   mgl32.Vec3 // position
	Rot   mgl32.Quat // rotation, a unit quaternion
	Scale mgl32.Vec3 // scale along each axis
}

// NewTransform returns a transform at pos with no rotation and scale 1.
func NewTransform(pos mgl32.Vec3) Transform {
	return Transform{Pos: pos, Rot: mgl32.QuatIdent(), Scale: mgl32.Vec3{1, 1, 1}}
}

// The operations below round every product explicitly (float32(a*b)), so
// Go cannot fuse a multiply and an add into one instruction and their
// results are the same bits on every build: fixed-step code may use them.

// Mul returns the composition t * c: c placed in the space t defines, as a
// child's transform c local to its parent at t gives the child's world
// transform. Its position is t applied to c's position (t.Apply), its
// rotation t.Rot * c.Rot (not normalised again) and its scale t.Scale * c.Scale
// axis by axis. With a uniform scale in t (or no rotation in c) that is
// exactly the composition of the two; with a non-uniform scale in t and a
// rotation in c the true composition has a shear, which a Transform cannot
// hold, and Mul drops it (scale stays along c's own axes).
func (t Transform) Mul(c Transform) Transform {
	return Transform{Pos: t.Apply(c.Pos), Rot: detmath.Mul(t.Rot, c.Rot), Scale: mulVec(t.Scale, c.Scale)}
}

// Apply returns the point p moved by t: scaled, rotated, then translated.
func (t Transform) Apply(p mgl32.Vec3) mgl32.Vec3 {
	r := Rotate(t.Rot, mulVec(t.Scale, p))
	return mgl32.Vec3{t.Pos[0] + r[0], t.Pos[1] + r[1], t.Pos[2] + r[2]}
}

// Inverse returns the transform that undoes t: t.Mul(t.Inverse()) is the
// identity up to rounding, and with a uniform scale t.Inverse().Mul(t) is
// too. t.Rot must be a unit quaternion. An axis whose scale is 0 has no
// inverse; Inverse gives it scale 0 (not an infinity). To express a world
// transform in the space of a parent, use Relative, which is exact for
// non-uniform scales too.
func (t Transform) Inverse() Transform {
	s := recipVec(t.Scale)
	r := Conjugate(t.Rot)
	p := mulVec(s, Rotate(r, t.Pos))
	return Transform{Pos: mgl32.Vec3{-p[0], -p[1], -p[2]}, Rot: r, Scale: s}
}

// Relative returns the transform l with t.Mul(l) equal to w up to
// rounding: w seen from the space t defines, the local transform of a
// child at w whose parent is at t. t.Rot must be a unit quaternion; an
// axis of t whose scale is 0 gives l scale and position 0 along it.
func (t Transform) Relative(w Transform) Transform {
	s := recipVec(t.Scale)
	r := Conjugate(t.Rot)
	d := mgl32.Vec3{w.Pos[0] - t.Pos[0], w.Pos[1] - t.Pos[1], w.Pos[2] - t.Pos[2]}
	return Transform{Pos: mulVec(s, Rotate(r, d)), Rot: detmath.Mul(r, w.Rot), Scale: mulVec(s, w.Scale)}
}

// Conjugate returns q with its vector part negated: the inverse rotation
// of a unit quaternion.
func Conjugate(q mgl32.Quat) mgl32.Quat {
	return mgl32.Quat{W: q.W, V: mgl32.Vec3{-q.V[0], -q.V[1], -q.V[2]}}
}

// Rotate returns v rotated by the unit quaternion q, as
// v + w*t + u×t with u = q's vector part and t = 2(u×v), without fusion.
// The identity rotation returns v exactly.
func Rotate(q mgl32.Quat, v mgl32.Vec3) mgl32.Vec3 {
	w, ux, uy, uz := q.W, q.V[0], q.V[1], q.V[2]
	vx, vy, vz := v[0], v[1], v[2]
	tx := 2 * (float32(uy*vz) - float32(uz*vy))
	ty := 2 * (float32(uz*vx) - float32(ux*vz))
	tz := 2 * (float32(ux*vy) - float32(uy*vx))
	return mgl32.Vec3{
		vx + float32(w*tx) + (float32(uy*tz) - float32(uz*ty)),
		vy + float32(w*ty) + (float32(uz*tx) - float32(ux*tz)),
		vz + float32(w*tz) + (float32(ux*ty) - float32(uy*tx)),
	}
}

// mulVec returns a and b multiplied axis by axis, each product rounded
// (so that a sum it goes into later cannot fuse with it).
func mulVec(a, b mgl32.Vec3) mgl32.Vec3 {
	return mgl32.Vec3{float32(a[0] * b[0]), float32(a[1] * b[1]), float32(a[2] * b[2])}
}

// recipVec returns 1/v axis by axis, 0 for an axis that is 0.
func recipVec(v mgl32.Vec3) mgl32.Vec3 {
	var r mgl32.Vec3
	for i, x := range v {
		if x != 0 {
			r[i] = 1 / x
		}
	}
	return r
}
