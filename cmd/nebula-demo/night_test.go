package main

import (
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/cmd/nebula-demo/scene"
)

// The physics mode's arena at night, in real pixels: a lamp's bulb glows
// in its own colour, its light pools warm on the floor beside its post
// (red well above blue, where the moonlight alone leaves the floor
// blue-grey) and brighter than the floor in the middle of the arena's
// front, and the goal at the back glows green.
func TestNightArenaIsLitByItsLamps(t *testing.T) {
	needDisplay(t)
	const w, h = 640, 480
	img := demoScreenshot(t, "-physics", "-entities", "27", "-frames", "30", "-width", "640", "-height", "480")
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Fatalf("screenshot %v, want %dx%d", b, w, h)
	}
	at := func(p mgl32.Vec3) [3]int {
		c := camera.ViewProjection(float32(w) / float32(h)).Mul4x1(p.Vec4(1))
		x := int((c[0]/c[3] + 1) / 2 * w)
		y := int((1 - c[1]/c[3]) / 2 * h)
		r, g, b, _ := img.At(x, y).RGBA()
		return [3]int{int(r >> 8), int(g >> 8), int(b >> 8)}
	}
	floorY := -scene.Box[1]
	lamp := mgl32.Vec3{-(scene.Box[0] - 2), floorY, scene.Box[2] - 2} // the front-left lamp's post
	bulb := at(lamp.Add(mgl32.Vec3{0, scene.LampHeight + 0.2, 0}))
	pool := at(lamp.Add(mgl32.Vec3{1.5, 0, -1.5}))
	middle := at(mgl32.Vec3{0, floorY, scene.Box[2] - 2})
	// The goal's right end: the figure, walking from the left along the
	// back, takes 5 s to reach it.
	goal := at(mgl32.Vec3{scene.GoalHalf[0] - 0.5, floorY + scene.GoalHalf[1], -scene.Box[2] + 1})
	t.Logf("bulb %v, floor by the lamp %v, floor in the front's middle %v, goal %v", bulb, pool, middle, goal)
	if bulb[0] < 230 || bulb[1] < 180 {
		t.Errorf("the bulb is %v, want its glow (red 230 or more, green 180 or more)", bulb)
	}
	if pool[0] < pool[2]+30 || pool[0]+pool[1]+pool[2] < middle[0]+middle[1]+middle[2]+30 {
		t.Errorf("the floor by the lamp is %v, the front's middle %v: want the lamp's warm pool (red 30 above blue) and brighter", pool, middle)
	}
	// Green well above red, and above blue, which the pulsing background
	// seen through the goal and the wall behind it raises by up to 20.
	if goal[1] < goal[0]+60 || goal[1] < goal[2]+20 {
		t.Errorf("the goal is %v, want it glowing green", goal)
	}
}
