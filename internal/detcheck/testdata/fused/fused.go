// Package fused is detcheck's test case for Dir: it imports mathgl.
package fused

import "github.com/go-gl/mathgl/mgl32"

// Scaled returns a's X times b, unrounded.
func Scaled(a mgl32.Vec3, b float32) float32 {
	// A line comment keeps the column of the product below the same.
	return a.X() * b
}

// Dot calls mathgl's Dot.
func Dot(a, b mgl32.Vec3) float32 {
	return a.Dot(b)
}

// Rounded is fine.
func Rounded(a mgl32.Vec3, b float32) float32 { return float32(a[0]*b) + a[1] }

// Identity returns a constant of mathgl's, which is fine.
func Identity() mgl32.Quat { return mgl32.QuatIdent() }
