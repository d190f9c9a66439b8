package gfx_test

// Pipeline tests: real pixels through the whole path a game's frame takes
// with an animated model. An engine.Engine is stepped tick by tick
// (StepTick) with anim's Advance first in the scripts stage; its entity shows a
// model registered both with anim (SetModel) and with the renderer
// (Register); each frame is World.Interpolate at an alpha, anim's Pose on
// a FrameContext, then Renderer.Draw of the render buffer's instances and
// poses, read back.
//
// The pictures are checked against a reference the test draws itself on
// the CPU from the model's data (refPicture): every vertex morphed by its
// targets' weights, skinned by palette matrices made from the node
// hierarchy (each node's global transform times its joint's inverse bind
// matrix), placed by the instance, projected by the camera, and every
// front-facing triangle rasterised at pixel centres with perspective-
// correct colours and normals, a depth test and the renderer's light. No
// code of package anim or gfx makes the reference: only the model's data
// and the rules of mesh.vert and mesh.frag as their comments state them.

import (
	"fmt"
	"image"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/anim"
	"github.com/nebulaengine/nebula/engine/geom"
	"github.com/nebulaengine/nebula/engine/model"
	"github.com/nebulaengine/nebula/engine/render"
	"github.com/nebulaengine/nebula/gfx"
	"github.com/nebulaengine/nebula/internal/modelgen"
)

// pipeMesh is the mesh id the pipeline tests register their model under.
const pipeMesh = render.MeshFirstGame

// pipeTol is how far, per 8-bit channel, a pixel may be from the
// reference: the reference is exact, the GPU rounds to 8 bits (half a
// step) and computes in float32 (skinning, the normal's cofactors and
// normalisation, perspective-correct interpolation), which moves a
// colour by well under a step (llvmpipe: at most half a step, the
// rounding); a wrong normal, light, colour or part moves it by tens of
// steps.
const pipeTol = 2

// pipeline is a game's frame path around a renderer: an engine stepped by
// hand, its animations, and the renderer that draws the frames.
type pipeline struct {
	t     *testing.T
	e     *engine.Engine
	anims *anim.Animations
	r     *gfx.Renderer
	w, h  int
}

// newPipeline makes an engine whose scripts stage runs anim's Advance and
// then game (if not nil), with m played by anim and drawn by r as
// pipeMesh.
func newPipeline(t *testing.T, r *gfx.Renderer, w, h int, m *model.Model, game func(*engine.FixedContext)) *pipeline {
	t.Helper()
	e, err := engine.New(engine.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	anims := anim.New(e.World)
	anims.SetModel(pipeMesh, m)
	register(r, pipeMesh, newModel(t, m))
	e.AddSystem(engine.StageScripts, "anim", anims.Advance)
	if game != nil {
		e.AddSystem(engine.StageScripts, "game", game)
	}
	return &pipeline{t: t, e: e, anims: anims, r: r, w: w, h: h}
}

// spawn adds an entity showing the model at tr, drawn interpolated, white.
func (p *pipeline) spawn(tr geom.Transform) engine.Entity {
	ent := p.e.World.Spawn(tr, engine.Interpolate)
	p.e.World.SetMesh(ent, pipeMesh)
	p.e.World.SetColor(ent, [4]uint8{255, 255, 255, 255})
	return ent
}

// tickTo runs ticks until the world is at tick n.
func (p *pipeline) tickTo(n uint64) {
	p.t.Helper()
	for p.e.World.Tick() < n {
		next := p.e.World.Tick() + 1
		if !p.e.StepTick(engine.TickTime(next, p.e.Loop.TickRate())) {
			p.t.Fatalf("tick %d did not run: %v", next, p.e.Err())
		}
	}
}

// frame draws the frame alpha of the way from the previous tick to the
// current one, as a game's frame does, and reads it back.
func (p *pipeline) frame(alpha float32) *image.RGBA {
	p.t.Helper()
	rb := &p.e.Render
	p.e.World.Interpolate(alpha, float32(p.e.Loop.DT()), p.e.Interpolation(), rb)
	p.anims.Pose(&engine.FrameContext{World: p.e.World, Alpha: alpha, Render: rb})
	img, s := framePosed(p.t, p.r, p.w, p.h, testCamera, rb.Instances, &rb.Poses)
	if s.Unknown != 0 || s.Instances != len(rb.Instances) {
		p.t.Fatalf("alpha %v: Stats %+v, want all %d instances drawn", alpha, s, len(rb.Instances))
	}
	return img
}

// instanceOf returns ent's instance in the last frame.
func (p *pipeline) instanceOf(ent engine.Entity) render.Instance {
	p.t.Helper()
	k, ok := p.e.Render.Find(ent)
	if !ok {
		p.t.Fatalf("%v is not in the render buffer", ent)
	}
	return p.e.Render.Instances[k]
}

// loadArm writes modelgen's Arm as a .glb into a temporary directory and
// loads it from there.
func loadArm(t *testing.T) *model.Model {
	t.Helper()
	data, err := modelgen.ArmGLB()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "arm.glb")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := model.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// The reference picture.

// restLocals returns m's nodes' rest transforms, a local pose to change.
func restLocals(m *model.Model) []geom.Transform {
	locals := make([]geom.Transform, len(m.Nodes))
	for i, n := range m.Nodes {
		locals[i] = n.Rest
	}
	return locals
}

// refPalette returns m's skinning matrices for the local pose locals (one
// transform per node): each palette joint's node's global transform (its
// ancestors' local transforms times its own, T·R·S each) times the
// joint's inverse bind matrix.
func refPalette(m *model.Model, locals []geom.Transform) []mgl32.Mat4 {
	global := make([]mgl32.Mat4, len(m.Nodes))
	for i, n := range m.Nodes {
		l := locals[i]
		g := mgl32.Translate3D(l.Pos[0], l.Pos[1], l.Pos[2]).Mul4(l.Rot.Normalize().Mat4()).Mul4(mgl32.Scale3D(l.Scale[0], l.Scale[1], l.Scale[2]))
		if n.Parent >= 0 {
			g = global[n.Parent].Mul4(g)
		}
		global[i] = g
	}
	pal := make([]mgl32.Mat4, len(m.Palette))
	for j, jt := range m.Palette {
		pal[j] = global[jt.Node].Mul4(jt.InverseBind)
	}
	return pal
}

// refTri is one front-facing triangle of a reference picture: its corners
// in window coordinates (pixels from the left and from the top), NDC
// depth and 1/w, and what mesh.vert passes mesh.frag at each.
type refTri struct {
	x, y, z, invW [3]float64
	color         [3]mgl32.Vec3 // base colour × vertex colour × instance colour
	normal        [3]mgl32.Vec3 // world normal, not unit length
	part          int
	area2         float64    // twice the signed area (negative: front-facing with y down)
	bounds        [4]float64 // min x, min y, max x, max y
}

// refPicture is a model drawn on the CPU.
type refPicture struct {
	tris   []refTri
	light  gfx.Light
	texLo  []mgl32.Vec3 // per part, the darkest texel per channel (white without a texture)
	texHi  []mgl32.Vec3 // per part, the brightest
	parts  []string
	w, h   int
	nParts int
}

// newRefPicture draws m's instance in on the CPU with the palette pal and
// the blend-shape weights weights, as testCamera sees it in a w×h frame
// under the default light.
func newRefPicture(m *model.Model, pal []mgl32.Mat4, weights []float32, in render.Instance, w, h int) *refPicture {
	rp := &refPicture{light: gfx.DefaultLight(), w: w, h: h, nParts: len(m.Parts)}
	rp.light.Dir = rp.light.Dir.Normalize()
	vp := testCamera.ViewProjection(float32(w) / float32(h))
	inst := mgl32.Vec3{float32(in.Color[0]) / 255, float32(in.Color[1]) / 255, float32(in.Color[2]) / 255}
	s := in.Scale
	for pi := range m.Parts {
		p := &m.Parts[pi]
		rp.parts = append(rp.parts, p.Name)
		lo, hi := mgl32.Vec3{1, 1, 1}, mgl32.Vec3{1, 1, 1}
		if tex := p.Material.Texture; tex != nil {
			lo, hi = mgl32.Vec3{1, 1, 1}, mgl32.Vec3{}
			for i := 0; i < len(tex.Pix); i += 4 {
				for c := range 3 {
					v := float32(tex.Pix[i+c]) / 255
					lo[c], hi[c] = min(lo[c], v), max(hi[c], v)
				}
			}
		}
		rp.texLo, rp.texHi = append(rp.texLo, lo), append(rp.texHi, hi)

		n := len(p.Positions)
		x, y, z, invW := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
		col, nrm := make([]mgl32.Vec3, n), make([]mgl32.Vec3, n)
		for v := range n {
			pos, norm := p.Positions[v], mgl32.Vec3{}
			if p.Normals != nil {
				norm = p.Normals[v]
			}
			for ti, tg := range p.Targets {
				wt := weights[p.FirstWeight+ti]
				pos = pos.Add(tg.Positions[v].Mul(wt))
				if tg.Normals != nil {
					norm = norm.Add(tg.Normals[v].Mul(wt))
				}
			}
			var sk mgl32.Mat4
			if p.Joints == nil {
				sk = pal[0]
			} else {
				for i := range 4 {
					if wt := p.Weights[v][i]; wt != 0 {
						sk = sk.Add(pal[p.Joints[v][i]].Mul(wt))
					}
				}
			}
			skinned := sk.Mul4x1(pos.Vec4(1)).Vec3()
			c0, c1, c2 := sk.Col(0).Vec3(), sk.Col(1).Vec3(), sk.Col(2).Vec3()
			skinnedN := c1.Cross(c2).Mul(norm[0]).Add(c2.Cross(c0).Mul(norm[1])).Add(c0.Cross(c1).Mul(norm[2]))
			world := in.Pos.Add(in.Rot.Rotate(mgl32.Vec3{s[0] * skinned[0], s[1] * skinned[1], s[2] * skinned[2]}))
			nrm[v] = in.Rot.Rotate(mgl32.Vec3{skinnedN[0] * s[1] * s[2], skinnedN[1] * s[2] * s[0], skinnedN[2] * s[0] * s[1]})
			clip := vp.Mul4x1(world.Vec4(1))
			x[v] = (float64(clip[0]/clip[3]) + 1) / 2 * float64(w)
			y[v] = (1 - float64(clip[1]/clip[3])) / 2 * float64(h)
			z[v] = float64(clip[2] / clip[3])
			invW[v] = 1 / float64(clip[3])
			base := p.Material.BaseColor
			c := mgl32.Vec3{base[0] * inst[0], base[1] * inst[1], base[2] * inst[2]}
			if p.Colors != nil {
				vc := p.Colors[v]
				c = mgl32.Vec3{c[0] * float32(vc[0]) / 255, c[1] * float32(vc[1]) / 255, c[2] * float32(vc[2]) / 255}
			}
			col[v] = c
		}
		for k := 0; k+2 < len(p.Indices); k += 3 {
			var tri refTri
			tri.part = pi
			tri.bounds = [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
			for c := range 3 {
				v := p.Indices[k+c]
				tri.x[c], tri.y[c], tri.z[c], tri.invW[c] = x[v], y[v], z[v], invW[v]
				tri.color[c], tri.normal[c] = col[v], nrm[v]
				tri.bounds = [4]float64{min(tri.bounds[0], x[v]), min(tri.bounds[1], y[v]), max(tri.bounds[2], x[v]), max(tri.bounds[3], y[v])}
			}
			tri.area2 = edge(tri.x[0], tri.y[0], tri.x[1], tri.y[1], tri.x[2], tri.y[2])
			if tri.area2 < 0 { // counter-clockwise with y up: front-facing (back faces are culled)
				rp.tris = append(rp.tris, tri)
			}
		}
	}
	return rp
}

// edge is twice the signed area of the triangle a, b, p.
func edge(ax, ay, bx, by, px, py float64) float64 {
	return (bx-ax)*(py-ay) - (by-ay)*(px-ax)
}

// refSample is what a reference picture shows at one point.
type refSample struct {
	hit    bool
	part   int
	lo, hi mgl32.Vec3 // the colour, 0 to 255: from the darkest to the brightest texel of the part's texture (the same without one)
}

// at returns what rp shows at window point (px, py): the nearest
// triangle's colour there, lit.
func (rp *refPicture) at(px, py float64) refSample {
	var s refSample
	best := math.Inf(1)
	var bary [3]float64
	var win *refTri
	for i := range rp.tris {
		tr := &rp.tris[i]
		if px < tr.bounds[0] || px > tr.bounds[2] || py < tr.bounds[1] || py > tr.bounds[3] {
			continue
		}
		l0 := edge(tr.x[1], tr.y[1], tr.x[2], tr.y[2], px, py) / tr.area2
		l1 := edge(tr.x[2], tr.y[2], tr.x[0], tr.y[0], px, py) / tr.area2
		l2 := edge(tr.x[0], tr.y[0], tr.x[1], tr.y[1], px, py) / tr.area2
		if l0 < 0 || l1 < 0 || l2 < 0 {
			continue
		}
		if d := l0*tr.z[0] + l1*tr.z[1] + l2*tr.z[2]; d < best {
			best, win, bary = d, tr, [3]float64{l0, l1, l2}
		}
	}
	if win == nil {
		return s
	}
	// Perspective-correct weights, as the rasteriser interpolates.
	var b [3]float32
	sum := bary[0]*win.invW[0] + bary[1]*win.invW[1] + bary[2]*win.invW[2]
	for c := range 3 {
		b[c] = float32(bary[c] * win.invW[c] / sum)
	}
	col := win.color[0].Mul(b[0]).Add(win.color[1].Mul(b[1])).Add(win.color[2].Mul(b[2]))
	n := win.normal[0].Mul(b[0]).Add(win.normal[1].Mul(b[1])).Add(win.normal[2].Mul(b[2]))
	k := rp.light.Ambient
	if l := n.Len(); l > 0 {
		k += rp.light.Diffuse * max(0, n.Dot(rp.light.Dir)/l)
	}
	s.hit, s.part = true, win.part
	lo, hi := rp.texLo[win.part], rp.texHi[win.part]
	for c := range 3 {
		s.lo[c] = 255 * col[c] * k * lo[c]
		s.hi[c] = 255 * col[c] * k * hi[c]
	}
	return s
}

// refJump is how much the reference's colour may change between a pixel's
// centre and its corners for the pixel to count as inside one smooth
// surface: more than a smooth shading gradient moves in 0.7 pixels (a few
// steps), less than the step between two parts' colours.
const refJump = 12

// refStats counts what compare checked.
type refStats struct {
	drawn, background int   // pixels checked against the model's colour, against the background
	skipped           int   // pixels near an edge, not checked
	perPart           []int // drawn pixels checked, per part
	maxDiff           float64
	bad               int
}

func (s refStats) String() string {
	return fmt.Sprintf("%d drawn pixels checked %v, %d background, %d near edges skipped, largest difference %.2f steps", s.drawn, s.perPart, s.background, s.skipped, s.maxDiff)
}

// compare checks img against rp pixel by pixel. A pixel whose centre and
// four corners the reference shows alike (all background, or all one part
// in colours within refJump) must be the background (black) or within
// pipeTol of the reference's colour (for a textured part, between its
// darkest and brightest texel's); a pixel near an edge, where a small
// difference in rasterisation changes what covers it, is skipped. It
// reports the first mismatches as errors, prefixed by what.
func (rp *refPicture) compare(t *testing.T, what string, img *image.RGBA) refStats {
	t.Helper()
	st := refStats{perPart: make([]int, rp.nParts)}
	bg := rgba(black)
	for py := range rp.h {
		for px := range rp.w {
			c := rp.at(float64(px)+0.5, float64(py)+0.5)
			certain := true
			for _, d := range [4][2]float64{{0, 0}, {1, 0}, {0, 1}, {1, 1}} {
				o := rp.at(float64(px)+d[0], float64(py)+d[1])
				if o.hit != c.hit || o.hit && (o.part != c.part || o.lo.Sub(c.lo).Len() > refJump) {
					certain = false
					break
				}
			}
			if !certain {
				st.skipped++
				continue
			}
			got := img.RGBAAt(px, py)
			if !c.hit {
				st.background++
				if got != bg {
					st.bad++
					if st.bad <= 10 {
						t.Errorf("%s: pixel (%d, %d) is %v, want the background: the model does not cover it", what, px, py, got)
					}
				}
				continue
			}
			st.drawn++
			st.perPart[c.part]++
			ok := true
			for ch, v := range [3]uint8{got.R, got.G, got.B} {
				f := float64(v)
				lo, hi := float64(c.lo[ch]), float64(c.hi[ch])
				d := max(lo-f, f-hi, 0)
				st.maxDiff = max(st.maxDiff, d)
				if d > pipeTol {
					ok = false
				}
			}
			if !ok {
				st.bad++
				if st.bad <= 10 {
					t.Errorf("%s: pixel (%d, %d) is %v, want %s's colour %v to %v within %d", what, px, py, got, rp.parts[c.part], c.lo, c.hi, pipeTol)
				}
			}
		}
	}
	if st.bad > 10 {
		t.Errorf("%s: %d pixels differ from the reference in all", what, st.bad)
	}
	return st
}

// rotZ is the rotation by deg degrees about +Z.
func rotZ(deg float64) mgl32.Quat {
	return mgl32.QuatRotate(float32(deg*math.Pi/180), mgl32.Vec3{0, 0, 1})
}

// Test 1: the loaded glTF model matches the reference made from its data.

// The glTF arm, written by modelgen as a .glb and loaded from the file, is
// drawn through the pipeline exactly as the reference the test makes from
// the loaded model's data says, pixel by pixel: at rest without an
// animator (the renderer's rest palette and rest weight 0.25 bulging the
// hand), at rest after anim.Stop (anim's rest pose), and after its "bend"
// clip has played 60 ticks, where the reference poses the nodes with the
// clip's keys at 1 s (forearm 90°, hand 45° more, the shoulder lifted by
// 0.25, the bulge at weight 1). Each part is drawn in its own colour (base
// colour × vertex colours, lit through its smooth normals skinned by the
// blended joints), nothing outside the silhouette.
func TestPipelineGLTFModelMatchesItsData(t *testing.T) {
	r, w, h := newRenderer(t, 256)
	arm := loadArm(t)
	bend := arm.ClipIndex("bend")
	if bend < 0 {
		t.Fatalf("%s has no clip \"bend\"", arm.Name)
	}
	var ent engine.Entity
	var p *pipeline
	p = newPipeline(t, r, w, h, arm, func(c *engine.FixedContext) {
		switch c.Tick {
		case 2:
			p.anims.Stop(ent)
		case 3:
			p.anims.Play(ent, bend, false)
		}
	})
	place := geom.Transform{Pos: mgl32.Vec3{1.5, -4.5, 0}, Rot: mgl32.QuatIdent(), Scale: mgl32.Vec3{3, 3, 3}}
	ent = p.spawn(place)

	// The pose at 1 s from the clip's own keys: the reference's.
	bent := restLocals(arm)
	bentWeights := append([]float32(nil), arm.RestWeights...)
	for _, ch := range arm.Clips[bend].Channels {
		k := -1
		for i, tm := range ch.Times {
			if tm == 1 {
				k = i
			}
		}
		if k < 0 {
			t.Fatalf("bend: a channel has no key at 1 s: %v", ch.Times)
		}
		v := ch.Values
		switch ch.Path {
		case model.Rotation:
			bent[ch.Node].Rot = mgl32.Quat{W: v[4*k+3], V: mgl32.Vec3{v[4*k], v[4*k+1], v[4*k+2]}}
		case model.Translation:
			bent[ch.Node].Pos = mgl32.Vec3{v[3*k], v[3*k+1], v[3*k+2]}
		case model.Weights:
			copy(bentWeights[ch.FirstWeight:], v[ch.Count*k:ch.Count*(k+1)])
		default:
			t.Fatalf("bend: unexpected channel path %d", ch.Path)
		}
	}

	for _, c := range []struct {
		name    string
		tick    uint64
		posed   bool // whether the instance has a pose of its own
		rest    bool // whether it is at rest
		locals  []geom.Transform
		weights []float32
	}{
		{"at rest, no animator", 1, false, true, restLocals(arm), arm.RestWeights},
		{"at rest, stopped", 2, true, true, restLocals(arm), arm.RestWeights},
		{"bent, 60 ticks into the clip", 63, true, false, bent, bentWeights},
	} {
		p.tickTo(c.tick)
		img := p.frame(1)
		in := p.instanceOf(ent)
		if (in.Pose != 0) != c.posed {
			t.Errorf("%s: instance pose %d, want a pose of its own: %v", c.name, in.Pose, c.posed)
		}
		ref := newRefPicture(arm, refPalette(arm, c.locals), c.weights, in, w, h)
		st := ref.compare(t, c.name, img)
		t.Logf("%s: %v", c.name, st)
		// Enough of every part is checked for a wrong one to show; the
		// marker (a textured 0.1-unit cube poking out of the hand's end)
		// covers few pixels away from edges.
		for pi, n := range st.perPart {
			if want := 300; arm.Parts[pi].Material.Texture == nil && n < want {
				t.Errorf("%s: only %d pixels of %s checked, want at least %d", c.name, n, arm.Parts[pi].Name, want)
			}
		}
		if st.background < w*h/2 {
			t.Errorf("%s: only %d background pixels checked", c.name, st.background)
		}
		if !c.rest {
			continue
		}
		// At rest, by Arm's documented numbers rather than the loaded
		// data: segment k is the box from y = k to k+1, its front face
		// at z = 0.2, coloured (1, 0.25, 0.25), (0.25, 1, 0.25) (times a
		// grey vertex colour) and (0.25, 0.25, 1): at its centre the
		// segment's channel dominates and the other two are a quarter
		// of it, whatever the light and the grey.
		for k := range 3 {
			pt := place.Pos.Add(mgl32.Vec3{0, float32(k) + 0.5, 0.2}.Mul(3))
			got := at(img, testCamera, pt)
			ch := [3]float64{float64(got.R), float64(got.G), float64(got.B)}
			for o := range 3 {
				if o == k {
					continue
				}
				if ratio := ch[o] / ch[k]; !(ratio > 0.23 && ratio < 0.27) {
					t.Errorf("%s: segment %d's centre %v is %v, want channel %d dominant and the others a quarter of it (channel %d is %.3f of it)", c.name, k, pt, got, k, o, ratio)
				}
			}
		}
	}
}

// Tests 2 to 4: models made here whose clip changes the pose in one tick.

// The clips of hinge and growQuad hold their first pose until 0.49 s,
// change it by 0.5 s and hold the new pose to their end at 1 s. Played from
// set-up, a clip has played tick×DT at the end of a tick: 0.483 s after
// tick poseBefore, 0.500 s after tick poseAfter. So the frames between
// those two ticks go from one pose to the other.
var switchTimes = []float32{0, 0.49, 0.5, 1}

const poseBefore, poseAfter = 29, 30

// quatKeys lays out rotations as a channel's keys: x y z w each.
func quatKeys(qs ...mgl32.Quat) []float32 {
	var v []float32
	for _, q := range qs {
		v = append(v, q.V[0], q.V[1], q.V[2], q.W)
	}
	return v
}

// flatQuad is a rectangle facing +Z from (x0, y0) to (x1, y1), white,
// every vertex on palette joint 0.
func flatQuad(name string, x0, y0, x1, y1 float32) model.Part {
	p := model.Part{
		Name:      name,
		Positions: []mgl32.Vec3{{x0, y0, 0}, {x1, y0, 0}, {x1, y1, 0}, {x0, y1, 0}},
		Indices:   []uint32{0, 1, 2, 0, 2, 3},
		Material:  model.Material{BaseColor: [4]float32{1, 1, 1, 1}},
	}
	for range 4 {
		p.Normals = append(p.Normals, mgl32.Vec3{0, 0, 1})
		p.Joints = append(p.Joints, [4]uint16{0, 0, 0, 0})
		p.Weights = append(p.Weights, [4]float32{1, 0, 0, 0})
	}
	return p
}

// hinge is a flat bar facing +Z, 0.8 wide, 4 long from its pivot up +Y
// (at rest), skinned whole to node "bar", a child of node "base", both at
// the origin. Its clip 0, "swing", turns the bar about Z from from degrees
// to to degrees (see switchTimes), its to keys stored as the negated
// quaternion: the same rotation, but one whose dot product with the from
// keys is negative, so that a blend that does not take the shortest arc
// goes the long way round.
func hinge(from, to float64) *model.Model {
	neg := func(q mgl32.Quat) mgl32.Quat { return mgl32.Quat{W: -q.W, V: q.V.Mul(-1)} }
	a, b := rotZ(from), neg(rotZ(to))
	return &model.Model{
		Name:  fmt.Sprintf("hinge %v° to %v°", from, to),
		Parts: []model.Part{flatQuad("bar", -0.4, 0, 0.4, 4)},
		Nodes: []model.Node{
			{Name: "base", Parent: -1, Rest: geom.NewTransform(mgl32.Vec3{})},
			{Name: "bar", Parent: 0, Rest: geom.NewTransform(mgl32.Vec3{})},
		},
		Palette: []model.Joint{{Node: 1, InverseBind: mgl32.Ident4()}},
		Clips: []model.Clip{{Name: "swing", Duration: 1, Channels: []model.Channel{{
			Path: model.Rotation, Node: 1, Times: switchTimes, Values: quatKeys(a, a, b, b),
		}}}},
	}
}

// hingePose returns the hinge's palette with the bar turned deg degrees.
func hingePose(m *model.Model, deg float64) []mgl32.Mat4 {
	locals := restLocals(m)
	locals[1].Rot = rotZ(deg)
	return refPalette(m, locals)
}

// hingeTip returns where the instance in draws the point of the hinge's
// bar 3.5 units from its pivot when the bar is turned deg degrees.
func hingeTip(in render.Instance, deg float64) mgl32.Vec3 {
	s, c := math.Sincos(deg * math.Pi / 180)
	local := mgl32.Vec3{float32(-3.5 * s), float32(3.5 * c), 0}
	return in.Pos.Add(in.Rot.Rotate(mgl32.Vec3{local[0] * in.Scale[0], local[1] * in.Scale[1], 0}))
}

// Test 2: a bone between two ticks is drawn halfway along the shortest arc.

// A bone whose clip turns it by 90° (0° to 90°) or 160° (80° to -80°)
// within one tick, its keys stored with opposite signs, is drawn at
// alpha 0, 0.25, 0.5, 0.75 and 1 between those ticks turned from + alpha ×
// the shortest arc: the whole picture matches the reference of the bar
// at that angle, the bar's tip is drawn there, and at alpha 0.5 neither
// end's tip nor the long way's halfway point (-135°, 180°) is drawn.
func TestPipelineBoneHalfwayAlongShortestArc(t *testing.T) {
	r, w, h := newRenderer(t, testSize)
	bg := rgba(black)
	for _, c := range []struct{ from, to, arc float64 }{
		{0, 90, 90},
		{80, -80, -160},
	} {
		m := hinge(c.from, c.to)
		keys := m.Clips[0].Channels[0].Values
		if dot := keys[0]*keys[8] + keys[1]*keys[9] + keys[2]*keys[10] + keys[3]*keys[11]; dot >= 0 {
			t.Fatalf("%s: the keys' dot product is %v, want it negative", m.Name, dot)
		}
		p := newPipeline(t, r, w, h, m, nil)
		ent := p.spawn(geom.NewTransform(mgl32.Vec3{}))
		p.anims.Play(ent, 0, false)
		p.tickTo(poseAfter)
		longWay := c.from + (c.arc-math.Copysign(360, c.arc))/2
		for _, alpha := range []float32{0, 0.25, 0.5, 0.75, 1} {
			deg := c.from + float64(alpha)*c.arc
			what := fmt.Sprintf("%s, alpha %v (%v°)", m.Name, alpha, deg)
			img := p.frame(alpha)
			in := p.instanceOf(ent)
			st := newRefPicture(m, hingePose(m, deg), nil, in, w, h).compare(t, what, img)
			if st.drawn < 200 {
				t.Errorf("%s: only %d of the bar's pixels checked", what, st.drawn)
			}
			t.Logf("%s: %v", what, st)
			if got := at(img, testCamera, hingeTip(in, deg)); got == bg {
				t.Errorf("%s: the tip's place at %v° is not drawn", what, deg)
			}
			if alpha != 0.5 {
				continue
			}
			for _, off := range []struct {
				what string
				deg  float64
			}{{"the start", c.from}, {"the end", c.to}, {"halfway the long way", longWay}} {
				if got := at(img, testCamera, hingeTip(in, off.deg)); got != bg {
					t.Errorf("%s: the tip's place at %s, %v°, is drawn (%v), want the background", what, off.what, off.deg, got)
				}
			}
		}
	}
}

// Test 3: a blend weight between two ticks is drawn halfway.

// growQuad is a quad facing +Z from (-1, 0) to (1, 1) whose one morph
// target raises its top edge by 1; its clip 0, "grow", takes the weight
// from 0 to 1 (see switchTimes).
func growQuad() *model.Model {
	p := flatQuad("quad", -1, 0, 1, 1)
	p.Targets = []model.Target{{Positions: []mgl32.Vec3{{}, {}, {0, 1, 0}, {0, 1, 0}}}}
	return &model.Model{
		Name:        "growing quad",
		Parts:       []model.Part{p},
		Nodes:       []model.Node{{Name: "quad", Parent: -1, Rest: geom.NewTransform(mgl32.Vec3{})}},
		Palette:     []model.Joint{{Node: 0, InverseBind: mgl32.Ident4()}},
		RestWeights: []float32{0},
		Clips: []model.Clip{{Name: "grow", Duration: 1, Channels: []model.Channel{{
			Path: model.Weights, Count: 1, Times: switchTimes, Values: []float32{0, 0, 1, 1},
		}}}},
	}
}

// A morph target whose weight goes from 0 to 1 within one tick is drawn
// at alpha 0, 0.25, 0.5, 0.75 and 1 between those ticks with its weight
// at alpha: the quad's top edge (moved by 1 unit, 30 pixels, at weight 1)
// is at the row the weight puts it on, within a pixel, its bottom edge
// stays, and the picture matches the reference at that weight.
func TestPipelineBlendWeightHalfway(t *testing.T) {
	r, w, h := newRenderer(t, testSize)
	m := growQuad()
	p := newPipeline(t, r, w, h, m, nil)
	place := geom.Transform{Pos: mgl32.Vec3{0, -2.5, 0}, Rot: mgl32.QuatIdent(), Scale: mgl32.Vec3{2.5, 2.5, 2.5}}
	ent := p.spawn(place)
	p.anims.Play(ent, 0, false)
	p.tickTo(poseAfter)
	_, bottom := project(testCamera, w, h, place.Pos)
	_, top0 := project(testCamera, w, h, place.Pos.Add(mgl32.Vec3{0, 2.5, 0}))
	_, top1 := project(testCamera, w, h, place.Pos.Add(mgl32.Vec3{0, 5, 0}))
	for _, alpha := range []float32{0, 0.25, 0.5, 0.75, 1} {
		what := fmt.Sprintf("alpha %v", alpha)
		img := p.frame(alpha)
		in := p.instanceOf(ent)
		st := newRefPicture(m, refPalette(m, restLocals(m)), []float32{alpha}, in, w, h).compare(t, what, img)
		b := findBlob(img, rgba(black))
		wantTop := top0 + float64(alpha)*(top1-top0)
		t.Logf("%s: rows %d to %d, want %.1f to %.1f (weight 0: top %.1f, weight 1: %.1f); %v", what, b.bounds.Min.Y, b.bounds.Max.Y, wantTop, bottom, top0, top1, st)
		if math.Abs(float64(b.bounds.Min.Y)-wantTop) > 1 || math.Abs(float64(b.bounds.Max.Y)-bottom) > 1 {
			t.Errorf("%s: the quad covers rows %d to %d, want %.1f to %.1f", what, b.bounds.Min.Y, b.bounds.Max.Y, wantTop, bottom)
		}
	}
}

// Test 4: a teleported model is never drawn in between.

// An animated model teleported across the screen during the tick in which
// its bone turns 90° is drawn, at alpha 0.25, 0.5 and 0.75 of the frame
// after that tick, exactly as at alpha 1: at its new place in the current
// tick's pose (the reference's picture of it), with nothing where it came
// from, nothing at the midpoint, and nothing where an interpolated bone
// (22.5°, 45°, 67.5°) would put the bar's tip. The same move made with
// SetTransform instead (7 units, under the snap distance) is drawn at the
// midpoint, bent 45°, at alpha 0.5: the test sees interpolation when
// there is some.
func TestPipelineTeleportedModelNeverInBetween(t *testing.T) {
	r, w, h := newRenderer(t, testSize)
	bg := rgba(black)
	scale := mgl32.Vec3{0.6, 0.6, 0.6}
	from := geom.Transform{Pos: mgl32.Vec3{-3.5, -1, 0}, Rot: mgl32.QuatIdent(), Scale: scale}
	to := geom.Transform{Pos: mgl32.Vec3{3.5, -1, 0}, Rot: mgl32.QuatIdent(), Scale: scale}
	mid := geom.Transform{Pos: mgl32.Vec3{0, -1, 0}, Rot: mgl32.QuatIdent(), Scale: scale}
	for _, teleport := range []bool{true, false} {
		m := hinge(0, 90)
		var ent engine.Entity
		p := newPipeline(t, r, w, h, m, func(c *engine.FixedContext) {
			if c.Tick != poseAfter {
				return
			}
			if teleport {
				c.World.Teleport(ent, to)
			} else {
				c.World.SetTransform(ent, to)
			}
		})
		ent = p.spawn(from)
		p.anims.Play(ent, 0, false)
		p.tickTo(poseAfter)
		final := p.frame(1)
		finalIn := p.instanceOf(ent)
		if finalIn.Pos != to.Pos {
			t.Fatalf("teleport %v: at alpha 1 the instance is at %v, want %v", teleport, finalIn.Pos, to.Pos)
		}
		ref := newRefPicture(m, hingePose(m, 90), nil, finalIn, w, h)
		if st := ref.compare(t, fmt.Sprintf("teleport %v, alpha 1", teleport), final); st.drawn < 100 {
			t.Errorf("teleport %v, alpha 1: only %d of the bar's pixels checked", teleport, st.drawn)
		}
		if !teleport {
			img := p.frame(0.5)
			in := p.instanceOf(ent)
			if in.Pos != mid.Pos {
				t.Errorf("moved: at alpha 0.5 the instance is at %v, want %v", in.Pos, mid.Pos)
			}
			st := newRefPicture(m, hingePose(m, 45), nil, in, w, h).compare(t, "moved, alpha 0.5", img)
			t.Logf("moved, alpha 0.5, against the bar at the midpoint bent 45°: %v", st)
			if got := at(img, testCamera, hingeTip(in, 45)); got == bg {
				t.Errorf("moved, alpha 0.5: the tip at the midpoint bent 45° is not drawn: the test cannot see interpolation")
			}
			continue
		}
		for _, alpha := range []float32{0.25, 0.5, 0.75} {
			what := fmt.Sprintf("teleported, alpha %v", alpha)
			img := p.frame(alpha)
			if n := p.e.Render.Snaps; n != 1 {
				t.Errorf("%s: %d snaps, want 1", what, n)
			}
			diff := 0
			for y := range h {
				for x := range w {
					if img.RGBAAt(x, y) != final.RGBAAt(x, y) {
						diff++
					}
				}
			}
			if diff != 0 {
				t.Errorf("%s: %d pixels differ from the picture at alpha 1", what, diff)
			}
			st := ref.compare(t, what, img)
			t.Logf("%s: %d pixels differ from alpha 1; against the reference at the new place, bent 90°: %v", what, diff, st)
			newPlace := render.Instance{Pos: to.Pos, Rot: to.Rot, Scale: to.Scale}
			for _, c := range []struct {
				what string
				p    mgl32.Vec3
			}{
				{"the old place's tip", hingeTip(render.Instance{Pos: from.Pos, Rot: from.Rot, Scale: from.Scale}, 0)},
				{"the old place's pivot", from.Pos},
				{"the midpoint's pivot", mid.Pos},
				{"the midpoint's tip bent 45°", hingeTip(render.Instance{Pos: mid.Pos, Rot: mid.Rot, Scale: mid.Scale}, 45)},
				{"the tip bent 90° alpha of the way", hingeTip(newPlace, 90*float64(alpha))},
			} {
				if got := at(img, testCamera, c.p); got != bg {
					t.Errorf("%s: %s at %v is drawn (%v), want the background", what, c.what, c.p, got)
				}
			}
			if got := at(img, testCamera, hingeTip(newPlace, 90)); got == bg {
				t.Errorf("%s: the tip bent 90° at the new place is not drawn", what)
			}
		}
	}
}
