package render

import "github.com/go-gl/mathgl/mgl32"

// LineVertex is one end of a coloured line segment in world space, as a
// debug drawing (engine/physics/debugdraw) hands it to the renderer
// (gfx.LineBatch): segments are consecutive pairs of vertices. It is 16
// bytes, the layout gfx uploads as is.
type LineVertex struct {
	Pos   mgl32.Vec3 // world position
	Color [4]uint8   // RGBA
}
