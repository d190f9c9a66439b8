package gfx_test

import (
	"github.com/nebulaengine/nebula/engine/render"

	"image"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine/model"
	"github.com/nebulaengine/nebula/gfx"
	"github.com/nebulaengine/nebula/internal/modelgen"
)

// whiteTextured returns m with a 1×1 white base colour texture on every
// part: drawn by mesh.frag, the same picture as without it.
func whiteTextured(m *model.Model) *model.Model {
	white := &image.RGBA{Pix: []uint8{255, 255, 255, 255}, Stride: 4, Rect: image.Rect(0, 0, 1, 1)}
	c := *m
	c.Name = m.Name + " (white texture)"
	c.Parts = append([]model.Part(nil), m.Parts...)
	for i := range c.Parts {
		c.Parts[i].Material.Texture = white
	}
	return &c
}

// An untextured part is drawn by a program without the texture fetch, a
// faceted one (every triangle one normal, joint and weights at its
// corners, no morph targets) lit per vertex: each picks the cheapest
// program that draws it as the textured program draws it with a white
// texture, to within one step per channel, at every pixel.
func TestUntexturedShadingsMatchTheTexturedOne(t *testing.T) {
	r, w, h := newRenderer(t, testSize)
	figure, err := model.FromDocument(modelgen.Figure(), "figure")
	if err != nil {
		t.Fatal(err)
	}
	turned := mgl32.QuatRotate(0.6, mgl32.Vec3{1, 2, 0.5}.Normalize())
	for _, c := range []struct {
		m     *model.Model
		want  []string // each part's shading
		rot   mgl32.Quat
		scale mgl32.Vec3
	}{
		{model.Plane(), []string{"faceted"}, facingCamera.Mul(mgl32.QuatRotate(0.4, mgl32.Vec3{1, 0, 0})), mgl32.Vec3{8, 1, 6}},
		{model.Cube(), []string{"faceted"}, turned, mgl32.Vec3{5, 3, 4}},
		{model.Sphere(16), []string{"plain"}, turned, mgl32.Vec3{7, 4, 6}},
		{twoBoneBar(), []string{"faceted"}, turned, mgl32.Vec3{4, 4, 4}},
		{morphQuad(0.5), []string{"plain"}, turned, mgl32.Vec3{3, 3, 3}},
		{figure, nil, turned, mgl32.Vec3{8, 8, 8}},
	} {
		plain, textured := newModel(t, c.m), newModel(t, whiteTextured(c.m))
		for i := range c.m.Parts {
			if got := gfx.PartShading(textured, i); got != "textured" {
				t.Errorf("%s with a texture: part %d drawn %s, want textured", c.m.Name, i, got)
			}
			if i < len(c.want) {
				if got := gfx.PartShading(plain, i); got != c.want[i] {
					t.Errorf("%s: part %d (%s) drawn %s, want %s", c.m.Name, i, c.m.Parts[i].Name, got, c.want[i])
				}
			}
		}
		const a, b = render.MeshFirstGame + 10, render.MeshFirstGame + 11
		register(r, a, plain)
		register(r, b, textured)
		in := render.Instance{Rot: c.rot, Scale: c.scale, Color: [4]uint8{230, 180, 120, 255}, Mesh: a}
		got, s := framePosed(t, r, w, h, testCamera, []render.Instance{in}, nil)
		in.Mesh = b
		want, _ := framePosed(t, r, w, h, testCamera, []render.Instance{in}, nil)
		if s.DrawCalls != len(c.m.Parts) {
			t.Errorf("%s: %d draw calls, want one per part (%d)", c.m.Name, s.DrawCalls, len(c.m.Parts))
		}
		drawn, differ := 0, 0
		for y := range h {
			for x := range w {
				pg, pw := got.RGBAAt(x, y), want.RGBAAt(x, y)
				if pw != rgba(black) {
					drawn++
				}
				if !near(pg, pw, 1) {
					if differ++; differ <= 3 {
						t.Errorf("%s: pixel (%d, %d) is %v untextured, %v with a white texture", c.m.Name, x, y, pg, pw)
					}
				}
			}
		}
		t.Logf("%s: %d pixels drawn, %d differ by more than 1", c.m.Name, drawn, differ)
		if drawn < 200 {
			t.Errorf("%s: %d pixels drawn, want a test of more", c.m.Name, drawn)
		}
	}
}
