package geom

import "github.com/go-gl/mathgl/mgl32"

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
