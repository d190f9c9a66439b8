package gfx

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl32"
)

// Camera is a perspective camera: it sits at Eye, looks at Target with Up
// pointing up, sees FovY radians vertically and draws what lies between the
// Near and Far planes (both positive distances, Near < Far). Eye must differ
// from Target and Up must not be parallel to the line between them.
type Camera struct {
	Eye, Target, Up mgl32.Vec3 // position, look-at point and up direction
	// FovY is the vertical field of view in radians, in (0, π).
	FovY float32
	// Near and Far are the distances to the clipping planes, 0 < Near < Far.
	Near, Far float32
}

// ViewProjection returns the matrix that takes world coordinates to clip
// space for a viewport whose width/height ratio is aspect:
// mgl32.Perspective(FovY, aspect, Near, Far) times mgl32.LookAtV(Eye,
// Target, Up). It panics, with a message starting "gfx: ", if aspect is not
// positive or the camera's fields are out of range; it does not allocate
// otherwise.
func (c Camera) ViewProjection(aspect float32) mgl32.Mat4 {
	if !(aspect > 0) || !(c.FovY > 0 && c.FovY < math.Pi) || !(c.Near > 0 && c.Far > c.Near) {
		panic(fmt.Sprintf("gfx: Camera.ViewProjection: want aspect > 0, 0 < FovY < π and 0 < Near < Far; got aspect %v, FovY %v, Near %v, Far %v",
			aspect, c.FovY, c.Near, c.Far))
	}
	return mgl32.Perspective(c.FovY, aspect, c.Near, c.Far).Mul4(mgl32.LookAtV(c.Eye, c.Target, c.Up))
}
