package gfx_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine/render"
	"github.com/nebulaengine/nebula/gfx"
)

// falloff is lights.glsl's attenuation at distance d of a light of range
// r: 1/(1 + d²) windowed by (1 − (d/r)⁴)², 0 at and past r.
func falloff(d, r float64) float64 {
	if d >= r {
		return 0
	}
	q := d * d / (r * r)
	win := 1 - q*q
	return win * win / (1 + d*d)
}

// Point and spot lights light real pixels as render.Light says, with no
// other light in the scene: on a white floor seen from above, under a
// point light 1 m up, the pixel below is lit 2 × falloff(1) × cos 0, one
// 3 m aside 2 × falloff(√10) × cos(atan 3), and one past the range
// nothing; a spot light 2 m up, pointing down with half-angles 0.3 and
// 0.5 rad, lights the floor fully 0.4 m aside (11°), not at all 1.5 m
// aside (37°), and in between at 0.8 m. A cube's and a sphere's tops
// under a light are lit like the floor.
func TestPointAndSpotLightsLightPixels(t *testing.T) {
	r, w, h := newRenderer(t, 128)
	onMain(func() { r.SetLight(gfx.Light{Dir: mgl32.Vec3{0, 1, 0}}) }) // no ambient, no diffuse: only the lights
	t.Cleanup(func() { onMain(func() { r.SetLight(gfx.DefaultLight()); r.SetLights(nil) }) })
	cam := gfx.Camera{Eye: mgl32.Vec3{0, 12, 0.001}, Target: mgl32.Vec3{}, Up: mgl32.Vec3{0, 0, -1}, FovY: mgl32.DegToRad(60), Near: 0.1, Far: 100}
	floor := render.Instance{Pos: mgl32.Vec3{}, Rot: mgl32.QuatIdent(), Scale: mgl32.Vec3{30, 1, 30}, Color: [4]uint8{255, 255, 255, 255}, Mesh: render.MeshPlane}
	// pixel draws insts lit by lights and returns the green of the pixel
	// where p is drawn, and the ray from the eye through that pixel's
	// centre (the expected values are worked out where the ray meets the
	// surface, not at p, which is up to half a pixel away).
	inv := cam.ViewProjection(float32(w) / float32(h)).Inv()
	var ray mgl32.Vec3
	pixel := func(insts []render.Instance, lights []render.Light, p mgl32.Vec3) (float64, gfx.Stats) {
		t.Helper()
		onMain(func() { r.SetLights(lights) })
		img, s := framePosed(t, r, w, h, cam, insts, nil)
		x, y := project(cam, w, h, p)
		px, py := int(x), int(y)
		ndc := mgl32.Vec4{float32((float64(px)+0.5)/float64(w)*2 - 1), float32(1 - (float64(py)+0.5)/float64(h)*2), 1, 1}
		far := inv.Mul4x1(ndc)
		ray = far.Vec3().Mul(1 / far[3]).Sub(cam.Eye).Normalize()
		return float64(img.RGBAAt(px, py).G), s
	}
	// onPlane returns where the ray meets the plane y = level.
	onPlane := func(level float32) mgl32.Vec3 {
		return cam.Eye.Add(ray.Mul((level - cam.Eye[1]) / ray[1]))
	}
	// lightAt returns what a light brings to a surface at q facing n.
	lightAt := func(l render.Light, q, n mgl32.Vec3) float64 {
		d := l.Pos.Sub(q)
		dist := float64(d.Len())
		cos := math.Max(0, float64(n.Dot(d))/dist)
		v := float64(l.Color[1]) * falloff(dist, float64(l.Range)) * cos
		if l.Kind == render.SpotLight {
			c, lo, hi := float64(l.Dir.Dot(d.Mul(-1)))/dist, float64(l.CosOuter), float64(l.CosInner)
			u := math.Min(1, math.Max(0, (c-lo)/(hi-lo)))
			v *= u * u * (3 - 2*u)
		}
		return 255 * math.Min(1, v)
	}
	expect := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 3 {
			t.Errorf("%s: green %v, want %.1f", name, got, want)
		}
	}

	up := mgl32.Vec3{0, 1, 0}
	point := []render.Light{{Kind: render.PointLight, Pos: mgl32.Vec3{0, 1, 0}, Color: mgl32.Vec3{2, 2, 2}, Range: 5}}
	g, s := pixel([]render.Instance{floor}, point, mgl32.Vec3{0, 0, 0})
	expect("the floor under the point light", g, lightAt(point[0], onPlane(0), up))
	if want := 255 * 2 * falloff(1, 5); math.Abs(g-want) > 3 {
		t.Errorf("the floor under the point light: %v, want about %.1f (2 falloff(1))", g, want)
	}
	if s.Lights != 1 || s.LightsLeftOut != 0 {
		t.Errorf("Stats.Lights %d, LightsLeftOut %d; want 1 and 0", s.Lights, s.LightsLeftOut)
	}
	g, _ = pixel([]render.Instance{floor}, point, mgl32.Vec3{3, 0, 0})
	expect("the floor 3 m aside", g, lightAt(point[0], onPlane(0), up))
	g, _ = pixel([]render.Instance{floor}, point, mgl32.Vec3{5.5, 0, 0})
	expect("the floor past the range", g, 0)
	g, _ = pixel([]render.Instance{floor}, nil, mgl32.Vec3{0, 0, 0})
	expect("the floor with no light", g, 0)

	spot := []render.Light{{Kind: render.SpotLight, Pos: mgl32.Vec3{0, 2, 0}, Dir: mgl32.Vec3{0, -1, 0}, Color: mgl32.Vec3{6, 6, 6}, Range: 10,
		CosInner: float32(math.Cos(0.3)), CosOuter: float32(math.Cos(0.5))}}
	for _, tc := range []struct {
		x    float64
		full bool // inside the inner cone
	}{{0.4, true}, {0.8, false}, {1.5, false}} {
		d := math.Hypot(tc.x, 2)
		cone := 0.0
		if c, lo, hi := 2/d, math.Cos(0.5), math.Cos(0.3); c >= hi {
			cone = 1
		} else if c > lo {
			u := (c - lo) / (hi - lo)
			cone = u * u * (3 - 2*u)
		}
		g, _ := pixel([]render.Instance{floor}, spot, mgl32.Vec3{float32(tc.x), 0, 0})
		expect(fmt.Sprintf("the floor under the spot, %v m aside", tc.x), g, lightAt(spot[0], onPlane(0), up))
		if tc.full && cone != 1 || tc.x == 1.5 && cone != 0 || tc.x == 0.8 && !(cone > 0 && cone < 1) {
			t.Fatalf("the test's own cone at %v m: %v", tc.x, cone)
		}
	}

	// A cube's and a sphere's tops, 0.5 m up, under a light 1.5 m up.
	for _, mesh := range []render.MeshID{render.MeshCube, render.MeshSphere} {
		in := render.Instance{Pos: mgl32.Vec3{}, Rot: mgl32.QuatIdent(), Scale: mgl32.Vec3{1, 1, 1}, Color: [4]uint8{255, 255, 255, 255}, Mesh: mesh}
		lit := []render.Light{{Kind: render.PointLight, Pos: mgl32.Vec3{0, 1.5, 0}, Color: mgl32.Vec3{1.5, 1.5, 1.5}, Range: 5}}
		g, _ := pixel([]render.Instance{in}, lit, mgl32.Vec3{0, 0.5, 0})
		q, n := onPlane(0.5), up // the cube's top face
		if mesh == render.MeshSphere {
			// Where the ray meets the sphere of radius 0.5 at the origin.
			b := float64(cam.Eye.Dot(ray))
			c := float64(cam.Eye.Dot(cam.Eye)) - 0.25
			tHit := -b - math.Sqrt(b*b-c)
			q = cam.Eye.Add(ray.Mul(float32(tHit)))
			n = q.Normalize()
		}
		expect(fmt.Sprintf("the top of mesh %d", mesh), g, lightAt(lit[0], q, n))
	}
}

// At most MaxLights lights light a frame, the nearest the camera; lights
// whose range does not reach into the view are left out first.
func TestLightsBeyondMaxAndOutOfViewAreLeftOut(t *testing.T) {
	r, w, h := newRenderer(t, 32)
	t.Cleanup(func() { onMain(func() { r.SetLights(nil) }) })
	var lights []render.Light
	for i := range gfx.MaxLights + 6 {
		lights = append(lights, render.Light{Kind: render.PointLight, Pos: mgl32.Vec3{float32(i%8)/2 - 2, float32(i/8)/2 - 2, 0}, Color: mgl32.Vec3{0.01, 0.01, 0.01}, Range: 1})
	}
	lights = append(lights, render.Light{Kind: render.PointLight, Pos: mgl32.Vec3{0, 0, 50}, Color: mgl32.Vec3{1, 1, 1}, Range: 2}) // behind the camera
	onMain(func() { r.SetLights(lights) })
	_, s := framePosed(t, r, w, h, featureCam, []render.Instance{box(mgl32.Vec3{}, 1, [4]uint8{255, 255, 255, 255}, render.MeshCube)}, nil)
	if s.Lights != gfx.MaxLights || s.LightsLeftOut != 7 {
		t.Errorf("Stats.Lights %d, LightsLeftOut %d; want %d and 7", s.Lights, s.LightsLeftOut, gfx.MaxLights)
	}
}
