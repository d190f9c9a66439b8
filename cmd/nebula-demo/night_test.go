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
// front, the goal at the back glows green, and the walls are translucent
// (the lamp's dark post and the lit floor beside it show through the
// front wall).
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
	// Seen through the front wall (3 m high, 2 m in front of the lamp,
	// between it and the camera): the lamp's dark post half a metre up,
	// and the lit floor 0.8 m to its right. An opaque wall would show its
	// own outer face at both, lit alike (the lamp is behind it).
	post := at(lamp.Add(mgl32.Vec3{0, 0.5, 0}))
	beside := at(lamp.Add(mgl32.Vec3{0.8, 0, 0}))
	t.Logf("bulb %v, floor by the lamp %v, floor in the front's middle %v, goal %v; through the front wall: the post %v, the floor beside it %v", bulb, pool, middle, goal, post, beside)
	if sum3(beside) < sum3(post)+90 {
		t.Errorf("through the front wall the lamp's post is %v and the floor beside it %v: want the lit floor seen through (90 brighter in R+G+B), the walls being translucent", post, beside)
	}
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

// The player casts the moon's shadow: the moon is low to the right, so
// the floor along a line to the left of the player, where the shadow of
// its upper half falls, is darker with shadows (the default) than with
// -shadows=false, while the floor as far to its right is the same in
// both. (Other bodies' shadows can only darken the floor more; the
// figure walks along the back, far from both spots.)
func TestPlayerCastsAShadow(t *testing.T) {
	needDisplay(t)
	const w, h = 640, 480
	floorY := -scene.Box[1]
	// Where the shadow of the point hi above the player's feet falls: the
	// moon's direction projected onto the floor, away from the moon.
	fall := func(hi float32, side float32) mgl32.Vec3 {
		d := moonlight.Dir
		return mgl32.Vec3{-side * d[0] / d[1] * hi, floorY, -side * d[2] / d[1] * hi}
	}
	brightness := func(args ...string) (shadowSide, otherSide int) {
		img := demoScreenshot(t, append([]string{"-physics", "-entities", "1", "-frames", "30", "-width", "640", "-height", "480"}, args...)...)
		at := func(p mgl32.Vec3) int {
			c := camera.ViewProjection(float32(w) / float32(h)).Mul4x1(p.Vec4(1))
			x := int((c[0]/c[3] + 1) / 2 * w)
			y := int((1 - c[1]/c[3]) / 2 * h)
			r, g, b, _ := img.At(x, y).RGBA()
			return int(r>>8 + g>>8 + b>>8)
		}
		shadowSide, otherSide = 1<<30, 0
		for _, hi := range []float32{0.9, 1.1, 1.3} {
			shadowSide = min(shadowSide, at(fall(hi, 1)))
			otherSide = max(otherSide, at(fall(hi, -1)))
		}
		return shadowSide, otherSide
	}
	onShadow, onOther := brightness()
	offShadow, offOther := brightness("-shadows=false")
	t.Logf("the floor left of the player (R+G+B): %d with shadows, %d without; to its right %d and %d", onShadow, offShadow, onOther, offOther)
	if onShadow > offShadow-40 {
		t.Errorf("the floor where the player's shadow falls is %d with shadows, %d without: want it 40 darker", onShadow, offShadow)
	}
	if d := onOther - offOther; d < -6 || d > 6 {
		t.Errorf("the floor right of the player is %d with shadows, %d without: want the same (within 6)", onOther, offOther)
	}
}

// sum3 returns r + g + b.
func sum3(c [3]int) int { return c[0] + c[1] + c[2] }
