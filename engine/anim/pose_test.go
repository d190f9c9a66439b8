package anim

import (
	"github.com/nebulaengine/nebula/engine/geom"

	"github.com/nebulaengine/nebula/engine/render"

	"math"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/model"
)

// frame interpolates w into rb at alpha with cfg and runs a's Pose on it,
// as the engine's render phase does.
func frame(w *engine.World, a *Animations, rb *engine.RenderBuffer, alpha float32, cfg engine.InterpolationConfig) {
	w.Interpolate(alpha, 1.0/60, cfg, rb)
	a.Pose(&engine.FrameContext{World: w, Alpha: alpha, Render: rb})
}

// bonesOf returns a copy of the palette and weights of pose number p of
// rb (0: none, nil slices).
func bonesOf(rb *engine.RenderBuffer, p uint16) ([]render.Bone, []float32) {
	if p == 0 {
		return nil, nil
	}
	ps := &rb.Poses
	ref := ps.Refs[p-1]
	endB, endW := len(ps.Bones), len(ps.Weights)
	if int(p) < len(ps.Refs) {
		endB, endW = int(ps.Refs[p].FirstBone), int(ps.Refs[p].FirstWeight)
	}
	return slices.Clone(ps.Bones[ref.FirstBone:endB]), slices.Clone(ps.Weights[ref.FirstWeight:endW])
}

// boneOf returns the top three rows of m (column-major) as a Bone.
func boneOf(m mgl32.Mat4) render.Bone {
	return render.Bone{m[0], m[4], m[8], m[12], m[1], m[5], m[9], m[13], m[2], m[6], m[10], m[14]}
}

func bonesNear(a, b render.Bone, tol float32) bool {
	for i := range a {
		if d := a[i] - b[i]; d > tol || d < -tol {
			return false
		}
	}
	return true
}

// paletteOf returns r's palette of the pose sampled at key, computed as
// Pose computes it.
func paletteOf(r *rig, clip int, ns uint64, loop bool) []render.Bone {
	var p LocalPose
	Sample(r.m, clip, ns, loop, &p)
	bones := make([]render.Bone, len(r.joints))
	r.palette(&p, make([]render.Bone, len(r.m.Nodes)), bones)
	return bones
}

// swing is a one-node model whose clip (1 s) turns the node from the
// identity to a quarter turn about Z (stored negated: the shortest arc is
// still 90 degrees), moves it from the origin to (2, 4, 6), scales it from
// 1 to 3 and its one weight from 0 to 1.
func swing() *model.Model {
	times := []float32{0, 1}
	return oneNode(1, 1,
		model.Channel{Path: model.Rotation, Node: 0, Times: times, Values: rotKeys(mgl32.QuatIdent(), neg(axisAngle(mgl32.Vec3{0, 0, 1}, 90)))},
		model.Channel{Path: model.Translation, Node: 0, Times: times, Values: []float32{0, 0, 0, 2, 4, 6}},
		model.Channel{Path: model.Scale, Node: 0, Times: times, Values: []float32{1, 1, 1, 3, 3, 3}},
		model.Channel{Path: model.Weights, Count: 1, Times: times, Values: []float32{0, 1}})
}

// TestPoseBlend: between two ticks the pose is alpha of the way from the
// previous tick's to the current one's; alpha 0 and 1 are those poses
// exactly.
func TestPoseBlend(t *testing.T) {
	w := engine.NewWorld(1)
	a := New(w)
	a.SetModel(meshChain, swing())
	r := a.rig(meshChain)
	ent := w.Spawn(geom.NewTransform(mgl32.Vec3{}), engine.Interpolate)
	w.SetMesh(ent, meshChain)
	w.BeginTick(1)
	// The previous tick at the clip's start, the current one at its end.
	a.Component().Set(ent, Animator{Clip: 0, PrevClip: 0, PrevTime: 0, Time: 1e9})
	cfg := engine.DefaultInterpolationConfig()

	z := mgl32.Vec3{0, 0, 1}
	tests := []struct {
		alpha  float32
		deg    float64 // the rotation about Z
		tr, sc float32 // translation (tr times (1, 2, 3)) and scale
		weight float32
		exact  []render.Bone // the bones exactly, or nil
	}{
		{0, 0, 0, 1, 0, paletteOf(r, 0, 0, false)},
		{0.25, 22.5, 0.5, 1.5, 0.25, nil},
		{0.5, 45, 1, 2, 0.5, nil},
		{0.75, 67.5, 1.5, 2.5, 0.75, nil},
		{1, 90, 2, 3, 1, paletteOf(r, 0, 1e9, false)},
	}
	var rb engine.RenderBuffer
	for _, tt := range tests {
		frame(w, a, &rb, tt.alpha, cfg)
		p := rb.Instances[0].Pose
		bones, weights := bonesOf(&rb, p)
		if p != 1 || len(bones) != 1 || len(weights) != 1 {
			t.Fatalf("alpha %v: pose %d with %d bones and %d weights, want pose 1 with 1 and 1", tt.alpha, p, len(bones), len(weights))
		}
		if tt.exact != nil && bones[0] != tt.exact[0] {
			t.Errorf("alpha %v: bone %v, want exactly %v", tt.alpha, bones[0], tt.exact[0])
		}
		// The local pose Pose blends, and the palette it makes of it.
		var prev, cur, mix LocalPose
		Sample(r.m, 0, 0, false, &prev)
		Sample(r.m, 0, 1e9, false, &cur)
		Blend(&prev, &cur, tt.alpha, &mix)
		mixed := make([]render.Bone, 1)
		r.palette(&mix, make([]render.Bone, 1), mixed)
		if !bonesNear(bones[0], mixed[0], 1e-6) {
			t.Errorf("alpha %v: bone %v, want the palette of Blend's pose %v", tt.alpha, bones[0], mixed[0])
		}
		if mix.Weights[0] != tt.weight {
			t.Errorf("alpha %v: Blend's weight %v, want %v", tt.alpha, mix.Weights[0], tt.weight)
		}
		if tt.alpha > 0 && tt.alpha < 1 {
			if q := mix.Nodes[0].Rot; !sameRotation(q, axisAngle(z, tt.deg), 1e-7) {
				t.Errorf("alpha %v: local rotation %v, want %v degrees about Z along the shortest arc", tt.alpha, q, tt.deg)
			}
			if tr, sc := mix.Nodes[0].Pos, mix.Nodes[0].Scale; tr != (mgl32.Vec3{tt.tr, 2 * tt.tr, 3 * tt.tr}) || sc != (mgl32.Vec3{tt.sc, tt.sc, tt.sc}) {
				t.Errorf("alpha %v: local translation %v and scale %v, want %v and %v", tt.alpha, tr, sc, tt.tr, tt.sc)
			}
		}
		want := boneOf(mgl32.Translate3D(tt.tr, 2*tt.tr, 3*tt.tr).Mul4(axisAngle(z, tt.deg).Mat4()).Mul4(mgl32.Scale3D(tt.sc, tt.sc, tt.sc)))
		if !bonesNear(bones[0], want, 1e-6) {
			t.Errorf("alpha %v: bone %v, want %v", tt.alpha, bones[0], want)
		}
		if weights[0] != tt.weight {
			t.Errorf("alpha %v: weight %v, want %v", tt.alpha, weights[0], tt.weight)
		}
	}
}

// TestPaletteMatchesMat4 checks the palette (global transforms parent
// first, times the inverse bind matrices) against mgl32's 4×4 matrices.
func TestPaletteMatchesMat4(t *testing.T) {
	m := chain(12, 0, 6)
	m.Nodes[5].Parent = 2 // a tree, not only a chain
	m.Nodes[7].Rest.Scale = mgl32.Vec3{1.5, 0.5, 2}
	m.Palette[3].InverseBind = mgl32.HomogRotate3DX(0.3).Mul4(m.Palette[3].InverseBind)
	r := newRig(m)
	var p LocalPose
	Sample(m, 0, 123_456_789, true, &p)
	got := make([]render.Bone, len(r.joints))
	r.palette(&p, make([]render.Bone, len(m.Nodes)), got)
	globals := make([]mgl32.Mat4, len(m.Nodes))
	for i, n := range m.Nodes {
		l := mgl32.Translate3D(p.Nodes[i].Pos[0], p.Nodes[i].Pos[1], p.Nodes[i].Pos[2]).Mul4(p.Nodes[i].Rot.Mat4()).Mul4(mgl32.Scale3D(p.Nodes[i].Scale[0], p.Nodes[i].Scale[1], p.Nodes[i].Scale[2]))
		if n.Parent >= 0 {
			l = globals[n.Parent].Mul4(l)
		}
		globals[i] = l
	}
	for j, jt := range m.Palette {
		if want := boneOf(globals[jt.Node].Mul4(jt.InverseBind)); !bonesNear(got[j], want, 2e-5) {
			t.Errorf("joint %d: %v, want %v", j, got[j], want)
		}
	}
	// At rest the chain's palette is the identity (its inverse bind
	// matrices undo the rest pose).
	for j, b := range newRig(chain(12, 0, 6)).restBones {
		if !bonesNear(b, boneOf(mgl32.Ident4()), 1e-6) {
			t.Errorf("rest joint %d: %v, want the identity", j, b)
		}
	}
}

// TestPoseAtCurrent: an entity drawn at its current state (teleported,
// NoInterpolation, interpolation off) has its current tick's pose, never
// one in between; the others are blended.
func TestPoseAtCurrent(t *testing.T) {
	w := engine.NewWorld(1)
	a := New(w)
	a.SetModel(meshChain, swing())
	r := a.rig(meshChain)
	walker := w.Spawn(geom.NewTransform(mgl32.Vec3{}), engine.Interpolate)
	jumper := w.Spawn(geom.NewTransform(mgl32.Vec3{}), engine.Interpolate)
	still := w.Spawn(geom.NewTransform(mgl32.Vec3{}), engine.NoInterpolation)
	cube := w.Spawn(geom.NewTransform(mgl32.Vec3{}), engine.Interpolate) // an animator, but no model
	for _, ent := range []engine.Entity{walker, jumper, still} {
		w.SetMesh(ent, meshChain)
	}
	w.BeginTick(1)
	w.Teleport(jumper, geom.NewTransform(mgl32.Vec3{5, 0, 0}))
	for _, ent := range []engine.Entity{walker, jumper, still, cube} {
		a.Component().Set(ent, Animator{Clip: 0, PrevClip: 0, PrevTime: 250e6, Time: 750e6})
	}
	cur, prev := paletteOf(r, 0, 750e6, false), paletteOf(r, 0, 250e6, false)

	var rb engine.RenderBuffer
	cfg := engine.DefaultInterpolationConfig()
	frame(w, a, &rb, 0.5, cfg)
	if rb.Instances[3].Pose != 0 {
		t.Errorf("an entity without a model has pose %d, want 0", rb.Instances[3].Pose)
	}
	for k, name := range []string{"walker", "jumper", "still"} {
		b, _ := bonesOf(&rb, rb.Instances[k].Pose)
		switch atCur := k > 0; {
		case b == nil:
			t.Errorf("%s has no pose", name)
		case atCur && b[0] != cur[0]:
			t.Errorf("%s: bone %v, want the current tick's %v", name, b[0], cur[0])
		case !atCur && (b[0] == cur[0] || b[0] == prev[0]):
			t.Errorf("%s: bone %v at an end, want one in between", name, b[0])
		}
	}
	cfg.Enabled = false
	frame(w, a, &rb, 0.5, cfg)
	for k := range 3 {
		if b, _ := bonesOf(&rb, rb.Instances[k].Pose); b == nil || b[0] != cur[0] {
			t.Errorf("interpolation off: entity %d: bones %v, want the current tick's %v", k, b, cur[0])
		}
	}
}

// TestPoseSamplesPerTick: frames between two ticks sample nothing, a tick
// samples one pose per entity (its old current pose is the new previous
// one), a held clip none, and a restored state resamples and draws what
// was drawn before.
func TestPoseSamplesPerTick(t *testing.T) {
	const n = 5
	e, a, ents := newEngine(t, 60, n)
	for _, ent := range ents {
		a.Play(ent, 0, true)
	}
	var rb engine.RenderBuffer
	cfg := e.Interpolation()
	draw := func(alpha float32) { frame(e.World, a, &rb, alpha, cfg) }
	e.StepTick(0)
	draw(0.5)
	if a.samples != 2*n {
		t.Fatalf("first frame: %d samples, want %d", a.samples, 2*n)
	}
	for _, alpha := range []float32{0.1, 0.6, 0, 1, 0.9} {
		draw(alpha)
	}
	if a.samples != 2*n {
		t.Errorf("frames without a tick sampled %d times", a.samples-2*n)
	}
	snap := e.Snapshot()
	draw(0.3)
	before := slices.Clone(rb.Poses.Bones)
	beforeW := slices.Clone(rb.Poses.Weights)
	for tick := range 4 {
		s := a.samples
		e.StepTick(0)
		draw(0.5)
		draw(0.7)
		if a.samples-s != n {
			t.Errorf("tick %d: %d samples, want %d (one per entity)", tick, a.samples-s, n)
		}
	}
	if err := e.Restore(snap); err != nil {
		t.Fatal(err)
	}
	s := a.samples
	draw(0.3)
	if a.samples-s != 2*n {
		t.Errorf("after Restore: %d samples, want %d", a.samples-s, 2*n)
	}
	if !slices.Equal(rb.Poses.Bones, before) || !slices.Equal(rb.Poses.Weights, beforeW) {
		t.Error("after Restore, Pose draws other bones or weights than before")
	}

	// A clip that is not looped holds its last keys: no more samples.
	for _, ent := range ents {
		a.Play(ent, 0, false)
	}
	for range 70 {
		e.StepTick(0)
		draw(0.5)
	}
	s = a.samples
	for range 10 {
		e.StepTick(0)
		draw(0.5)
	}
	if a.samples != s {
		t.Errorf("a held clip: %d samples in 10 ticks, want 0", a.samples-s)
	}
	held := paletteOf(a.rig(meshChain), 0, 1e9, false)
	if b, _ := bonesOf(&rb, rb.Instances[0].Pose); !slices.Equal(b, held) {
		t.Error("a held clip is not drawn at its last keys")
	}

	// A clip the model does not have (from a snapshot of another
	// program, say) is drawn at rest, like NoClip.
	a.Component().Ptr(ents[0]).Clip = 7
	a.Component().Ptr(ents[0]).PrevClip = 7
	draw(0.5)
	if b, w := bonesOf(&rb, rb.Instances[0].Pose); !slices.Equal(b, a.rig(meshChain).restBones) || !slices.Equal(w, []float32{0, 0}) {
		t.Error("an unknown clip is not drawn at rest")
	}
}

// TestPoseAllocs: a steady frame, and a tick with its frames, allocate
// nothing.
func TestPoseAllocs(t *testing.T) {
	e, a, ents := newEngine(t, 60, 100)
	a.SetModel(meshChain, chain(64, 4, 30))
	for i, ent := range ents {
		a.Play(ent, 0, true)
		if i%10 == 0 {
			e.World.Bodies().Mode[ent.Index()] = engine.NoInterpolation
		}
	}
	var rb engine.RenderBuffer
	cfg := e.Interpolation()
	alpha := float32(0)
	run := func() {
		e.StepTick(0)
		for range 3 {
			alpha = float32(math.Mod(float64(alpha)+0.37, 1))
			frame(e.World, a, &rb, alpha, cfg)
		}
	}
	run()
	if n := testing.AllocsPerRun(50, func() { frame(e.World, a, &rb, 0.4, cfg) }); n != 0 {
		t.Errorf("a frame allocates %v times, want 0", n)
	}
	if n := testing.AllocsPerRun(50, run); n != 0 {
		t.Errorf("a tick and three frames allocate %v times, want 0", n)
	}
}

// TestBlendEnds: Blend at 0 and 1 gives its ends exactly, and refuses
// poses of different models.
func TestBlendEnds(t *testing.T) {
	m := chain(8, 3, 6)
	var a, b, got LocalPose
	Sample(m, 0, 100e6, true, &a)
	Sample(m, 0, 700e6, true, &b)
	for _, end := range []struct {
		t    float32
		want *LocalPose
	}{{0, &a}, {1, &b}} {
		Blend(&a, &b, end.t, &got)
		if !slices.Equal(got.Nodes, end.want.Nodes) || !slices.Equal(got.Weights, end.want.Weights) {
			t.Errorf("Blend at %v is not that end exactly", end.t)
		}
	}
	var other LocalPose
	Sample(chain(4, 3, 6), 0, 0, false, &other)
	defer func() {
		if r := recover(); r == nil || r.(string) != "anim: Blend: poses of 8 and 4 nodes, 3 and 3 weights" {
			t.Errorf("Blend of different models panicked with %v", r)
		}
	}()
	Blend(&a, &other, 0.5, &got)
}
