package gfx_test

import (
	"math"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/gfx"
)

// These need no GL context.

func TestCubeGeometry(t *testing.T) {
	v, ix := gfx.CubeGeometry()
	if len(v) != 24 || len(ix) != 36 {
		t.Fatalf("CubeGeometry() has %d vertices and %d indices, want 24 and 36", len(v), len(ix))
	}
	normals := map[mgl32.Vec3]int{}
	for _, vert := range v {
		for k := 0; k < 3; k++ {
			if math.Abs(float64(vert.Pos[k])) != 0.5 {
				t.Fatalf("vertex %v is not a corner of the unit cube centred at the origin", vert.Pos)
			}
		}
		// The normal points out of the face the vertex belongs to.
		if d := vert.Pos.Dot(vert.Normal); d != 0.5 || vert.Normal.Len() != 1 {
			t.Errorf("vertex %v has normal %v, want a unit normal of its face", vert.Pos, vert.Normal)
		}
		normals[vert.Normal]++
	}
	if len(normals) != 6 {
		t.Errorf("normals %v, want 6 directions, 4 vertices each", normals)
	}
	for tri := 0; tri < len(ix); tri += 3 {
		a, b, c := v[ix[tri]], v[ix[tri+1]], v[ix[tri+2]]
		if a.Normal != b.Normal || a.Normal != c.Normal {
			t.Errorf("triangle %d spans faces", tri/3)
		}
		// Counter-clockwise seen from outside: the winding's normal points
		// the way of the face's normal (culling keeps these).
		if n := b.Pos.Sub(a.Pos).Cross(c.Pos.Sub(a.Pos)); n.Dot(a.Normal) <= 0 {
			t.Errorf("triangle %d (%v %v %v) winds clockwise seen from outside", tri/3, a.Pos, b.Pos, c.Pos)
		}
	}
}

func TestCameraViewProjection(t *testing.T) {
	cam := gfx.Camera{Eye: mgl32.Vec3{3, 4, 10}, Target: mgl32.Vec3{1, 1, 1}, Up: mgl32.Vec3{0, 1, 0}, FovY: mgl32.DegToRad(60), Near: 0.5, Far: 50}
	vp := cam.ViewProjection(16.0 / 9)
	want := mgl32.Perspective(cam.FovY, 16.0/9, cam.Near, cam.Far).Mul4(mgl32.LookAtV(cam.Eye, cam.Target, cam.Up))
	if !vp.ApproxEqual(want) {
		t.Errorf("ViewProjection = %v, want Perspective * LookAtV = %v", vp, want)
	}
	// The target is in the middle of the screen, between the planes.
	c := vp.Mul4x1(cam.Target.Vec4(1))
	if x, y, z := c[0]/c[3], c[1]/c[3], c[2]/c[3]; math.Abs(float64(x)) > 1e-5 || math.Abs(float64(y)) > 1e-5 || z <= -1 || z >= 1 {
		t.Errorf("the target projects to NDC (%v, %v, %v), want (0, 0, in (-1, 1))", x, y, z)
	}
	if n := testing.AllocsPerRun(100, func() { vp = cam.ViewProjection(1.5) }); n != 0 {
		t.Errorf("ViewProjection allocates %v times, want 0", n)
	}

	bad := []struct {
		name   string
		cam    gfx.Camera
		aspect float32
	}{
		{"zero aspect", cam, 0},
		{"NaN aspect", cam, float32(math.NaN())},
		{"zero near", with(cam, func(c *gfx.Camera) { c.Near = 0 }), 1},
		{"far before near", with(cam, func(c *gfx.Camera) { c.Far = 0.1 }), 1},
		{"fov in degrees", with(cam, func(c *gfx.Camera) { c.FovY = 60 }), 1},
	}
	for _, tt := range bad {
		func() {
			defer func() {
				if msg, _ := recover().(string); !strings.HasPrefix(msg, "gfx: Camera.ViewProjection: ") {
					t.Errorf("%s: panic %q, want one starting with \"gfx: Camera.ViewProjection: \"", tt.name, msg)
				}
			}()
			tt.cam.ViewProjection(tt.aspect)
		}()
	}
}

func with(c gfx.Camera, f func(*gfx.Camera)) gfx.Camera { f(&c); return c }

// BoxEdges gives the box's 12 edges, each once, each along one axis and
// as long as the box.
func TestBoxEdges(t *testing.T) {
	half := mgl32.Vec3{1, 2, 3}
	pts := gfx.BoxEdges(half)
	if len(pts) != 24 {
		t.Fatalf("%d points, want 24 (12 edges)", len(pts))
	}
	seen := map[[2]mgl32.Vec3]bool{}
	for i := 0; i < len(pts); i += 2 {
		a, b := pts[i], pts[i+1]
		d := b.Sub(a)
		axes := 0
		for k := range 3 {
			if d[k] != 0 {
				axes++
				if d[k] != 2*half[k] {
					t.Errorf("edge %v-%v is %v long along axis %d, want %v", a, b, d[k], k, 2*half[k])
				}
			}
			if a[k] != half[k] && a[k] != -half[k] {
				t.Errorf("point %v is not a corner", a)
			}
		}
		if axes != 1 || seen[[2]mgl32.Vec3{a, b}] {
			t.Errorf("edge %v-%v: along %d axes, or twice", a, b, axes)
		}
		seen[[2]mgl32.Vec3{a, b}] = true
	}
}
