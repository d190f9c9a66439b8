package anim

import (
	"github.com/nebulaengine/nebula/engine/geom"

	"github.com/nebulaengine/nebula/engine/render"

	"fmt"
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/model"
)

// rig is a model prepared for posing: what SetModel derives from it once.
type rig struct {
	m         *model.Model
	dur       []uint64      // each clip's duration in nanoseconds
	parent    []int32       // each node's parent, -1 for a root
	order     []int32       // the nodes the palette depends on, parents first
	joints    []int32       // each palette joint's node
	invBind   []render.Bone // each palette joint's inverse bind matrix, top three rows
	identity  []bool        // whether a joint's inverse bind matrix is the identity
	rest      LocalPose     // the rest pose
	restBones []render.Bone // the palette at rest
}

// newRig prepares m, which Check accepted.
func newRig(m *model.Model) *rig {
	r := &rig{
		m:        m,
		dur:      make([]uint64, len(m.Clips)),
		parent:   make([]int32, len(m.Nodes)),
		joints:   make([]int32, len(m.Palette)),
		invBind:  make([]render.Bone, len(m.Palette)),
		identity: make([]bool, len(m.Palette)),
	}
	for c := range m.Clips {
		r.dur[c] = clipNanos(m.Clips[c].Duration)
	}
	needed := make([]bool, len(m.Nodes))
	for j, jt := range m.Palette {
		r.joints[j] = int32(jt.Node)
		ib := &jt.InverseBind // column-major
		r.invBind[j] = render.Bone{
			ib[0], ib[4], ib[8], ib[12],
			ib[1], ib[5], ib[9], ib[13],
			ib[2], ib[6], ib[10], ib[14],
		}
		r.identity[j] = jt.InverseBind == mgl32.Ident4()
		for n := jt.Node; n >= 0 && !needed[n]; n = m.Nodes[n].Parent {
			needed[n] = true
		}
	}
	for i, n := range m.Nodes {
		r.parent[i] = int32(n.Parent)
		if needed[i] {
			r.order = append(r.order, int32(i))
		}
	}
	r.rest.Rest(m)
	r.restBones = make([]render.Bone, len(m.Palette))
	r.palette(&r.rest, make([]render.Bone, len(m.Nodes)), r.restBones)
	return r
}

// poseKey names a sampled pose of a rig: the clip (NoClip: the rest pose)
// and the time in it, wrapped or held (clipTime).
type poseKey struct {
	clip uint16
	ns   uint64
}

// key returns the pose key of an animator's clip, time and loop flag; a
// clip the model does not have is the rest pose.
func (r *rig) key(clip uint16, ns uint64, loop bool) poseKey {
	if int(clip) >= len(r.dur) {
		return poseKey{clip: NoClip}
	}
	return poseKey{clip, clipTime(ns, r.dur[clip], loop)}
}

// palette writes into bones the skinning matrices of the local pose p,
// using globals (one per node) as scratch.
//
// This runs per frame for every bone of every animated entity, so it is
// written for speed (BenchmarkPose): scalars rather than mgl32's arrays
// (which the compiler keeps in memory), matrices stored element by
// element (a composite literal is built on the stack and copied), a
// node's local matrix multiplied into its parent's as it is made.
func (r *rig) palette(p *LocalPose, globals, bones []render.Bone) {
	nodes := p.Nodes
	for _, n := range r.order {
		l := &nodes[n]
		if par := r.parent[n]; par < 0 {
			trs(&globals[n], &l.Pos, &l.Rot, &l.Scale)
		} else {
			mulTRS(&globals[n], &globals[par], &l.Pos, &l.Rot, &l.Scale)
		}
	}
	r.skin(globals, bones)
}

// skin writes into bones each palette joint's global transform (from
// globals) times its inverse bind matrix.
func (r *rig) skin(globals, bones []render.Bone) {
	bones = bones[:len(r.joints)]
	ident, ib := r.identity[:len(bones)], r.invBind[:len(bones)]
	for j, n := range r.joints {
		a, m := &globals[n], &bones[j]
		if ident[j] {
			*m = *a
			continue
		}
		// globals[n] * ib[j], column by column: a's rotation part and one
		// column of b stay in registers. Written out, not called: faster.
		b := &ib[j]
		p0, p1, p2 := a[0], a[1], a[2]
		p4, p5, p6 := a[4], a[5], a[6]
		p8, p9, p10 := a[8], a[9], a[10]
		c0, c1, c2 := b[0], b[4], b[8]
		m[0] = p0*c0 + p1*c1 + p2*c2
		m[4] = p4*c0 + p5*c1 + p6*c2
		m[8] = p8*c0 + p9*c1 + p10*c2
		c0, c1, c2 = b[1], b[5], b[9]
		m[1] = p0*c0 + p1*c1 + p2*c2
		m[5] = p4*c0 + p5*c1 + p6*c2
		m[9] = p8*c0 + p9*c1 + p10*c2
		c0, c1, c2 = b[2], b[6], b[10]
		m[2] = p0*c0 + p1*c1 + p2*c2
		m[6] = p4*c0 + p5*c1 + p6*c2
		m[10] = p8*c0 + p9*c1 + p10*c2
		c0, c1, c2 = b[3], b[7], b[11]
		m[3] = p0*c0 + p1*c1 + p2*c2 + a[3]
		m[7] = p4*c0 + p5*c1 + p6*c2 + a[7]
		m[11] = p8*c0 + p9*c1 + p10*c2 + a[11]
	}
}

// trs writes into m the matrix of translation t, rotation q (unit) and
// scale s: T*R*S.
func trs(m *render.Bone, t *mgl32.Vec3, q *mgl32.Quat, s *mgl32.Vec3) {
	w, x, y, z := q.W, q.V[0], q.V[1], q.V[2]
	x2, y2, z2 := x+x, y+y, z+z
	xx, yy, zz := x*x2, y*y2, z*z2
	xy, xz, yz := x*y2, x*z2, y*z2
	wx, wy, wz := w*x2, w*y2, w*z2
	sx, sy, sz := s[0], s[1], s[2]
	m[0], m[1], m[2], m[3] = (1-(yy+zz))*sx, (xy-wz)*sy, (xz+wy)*sz, t[0]
	m[4], m[5], m[6], m[7] = (xy+wz)*sx, (1-(xx+zz))*sy, (yz-wx)*sz, t[1]
	m[8], m[9], m[10], m[11] = (xz-wy)*sx, (yz+wx)*sy, (1-(xx+yy))*sz, t[2]
}

// mulTRS writes into m the product of a and the matrix of translation t,
// rotation q (unit) and scale s; m may not be a.
func mulTRS(m, a *render.Bone, t *mgl32.Vec3, q *mgl32.Quat, s *mgl32.Vec3) {
	w, x, y, z := q.W, q.V[0], q.V[1], q.V[2]
	x2, y2, z2 := x+x, y+y, z+z
	xx, yy, zz := x*x2, y*y2, z*z2
	xy, xz, yz := x*y2, x*z2, y*z2
	wx, wy, wz := w*x2, w*y2, w*z2
	sx, sy, sz := s[0], s[1], s[2]
	l0, l1, l2, l3 := (1-(yy+zz))*sx, (xy-wz)*sy, (xz+wy)*sz, t[0]
	l4, l5, l6, l7 := (xy+wz)*sx, (1-(xx+zz))*sy, (yz-wx)*sz, t[1]
	l8, l9, l10, l11 := (xz-wy)*sx, (yz+wx)*sy, (1-(xx+yy))*sz, t[2]
	a0, a1, a2, a3 := a[0], a[1], a[2], a[3]
	m[0] = a0*l0 + a1*l4 + a2*l8
	m[1] = a0*l1 + a1*l5 + a2*l9
	m[2] = a0*l2 + a1*l6 + a2*l10
	m[3] = a0*l3 + a1*l7 + a2*l11 + a3
	a0, a1, a2, a3 = a[4], a[5], a[6], a[7]
	m[4] = a0*l0 + a1*l4 + a2*l8
	m[5] = a0*l1 + a1*l5 + a2*l9
	m[6] = a0*l2 + a1*l6 + a2*l10
	m[7] = a0*l3 + a1*l7 + a2*l11 + a3
	a0, a1, a2, a3 = a[8], a[9], a[10], a[11]
	m[8] = a0*l0 + a1*l4 + a2*l8
	m[9] = a0*l1 + a1*l5 + a2*l9
	m[10] = a0*l2 + a1*l6 + a2*l10
	m[11] = a0*l3 + a1*l7 + a2*l11 + a3
}

// Blend writes into dst the pose t of the way from a to b (t in [0, 1]):
// per node the translation and scale lerped, the rotation slerped along
// the shortest arc (nlerp for turns under 3.6 degrees, where the two are
// the same to float32 precision), and every weight lerped. t 0 gives a and
// t 1 gives b exactly (a rotation possibly negated: the same rotation). a
// and b must be poses of the same model; dst may be either. Like Sample it
// is the same bits on every build, and allocates only when dst is smaller
// than a.
func Blend(a, b *LocalPose, t float32, dst *LocalPose) {
	n := len(a.Nodes)
	if len(b.Nodes) != n || len(b.Weights) != len(a.Weights) {
		panic(fmt.Sprintf("anim: Blend: poses of %d and %d nodes, %d and %d weights", n, len(b.Nodes), len(a.Weights), len(b.Weights)))
	}
	dst.Nodes = slices.Grow(dst.Nodes[:0], n)[:n]
	dst.Weights = slices.Grow(dst.Weights[:0], len(a.Weights))[:len(a.Weights)]
	blendNodes(a.Nodes, b.Nodes, t, dst.Nodes)
	lerp(a.Weights, b.Weights, t, dst.Weights)
}

// blendNodes is Blend's loop over nodes, on slices of the same length.
func blendNodes(a, b []geom.Transform, t float32, dst []geom.Transform) {
	b, dst = b[:len(a)], dst[:len(a)]
	s := 1 - t
	for i := range a {
		p, q := &a[i].Pos, &b[i].Pos
		pos := mgl32.Vec3{float32(s*p[0]) + float32(t*q[0]), float32(s*p[1]) + float32(t*q[1]), float32(s*p[2]) + float32(t*q[2])}
		p, q = &a[i].Scale, &b[i].Scale
		scale := mgl32.Vec3{float32(s*p[0]) + float32(t*q[0]), float32(s*p[1]) + float32(t*q[1]), float32(s*p[2]) + float32(t*q[2])}
		var rot mgl32.Quat
		switch qa, qb := &a[i].Rot, &b[i].Rot; t {
		case 0:
			rot = *qa
		case 1:
			rot = *qb
		default:
			rot.W, rot.V[0], rot.V[1], rot.V[2] = blendQuat(qa.W, qa.V[0], qa.V[1], qa.V[2], qb.W, qb.V[0], qb.V[1], qb.V[2], s, t)
		}
		dst[i] = geom.Transform{Pos: pos, Rot: rot, Scale: scale}
	}
}

// paletteBlend writes into bones the skinning matrices of the pose t of
// the way from a to b (strictly between 0 and 1): Blend and palette in one
// pass, each node's blended transform made into its local matrix and
// multiplied into its parent's at once. The arithmetic is written out in
// the loop (mulTRS's), which BenchmarkPose measures faster than calls.
func (r *rig) paletteBlend(a, b *LocalPose, t float32, globals, bones []render.Bone) {
	s := 1 - t
	an, bn := a.Nodes, b.Nodes
	parent := r.parent
	for _, n := range r.order {
		na, nb := &an[n], &bn[n]
		p, o := &na.Pos, &nb.Pos
		tx, ty, tz := float32(s*p[0])+float32(t*o[0]), float32(s*p[1])+float32(t*o[1]), float32(s*p[2])+float32(t*o[2])
		p, o = &na.Scale, &nb.Scale
		sx, sy, sz := p[0], p[1], p[2]
		if *p != *o { // scale is rarely animated
			sx, sy, sz = float32(s*sx)+float32(t*o[0]), float32(s*sy)+float32(t*o[1]), float32(s*sz)+float32(t*o[2])
		}
		// blendQuat's and normalize's arithmetic, with only the slerp
		// weights a call.
		qa, qb := &na.Rot, &nb.Rot
		aw, ax, ay, az := qa.W, qa.V[0], qa.V[1], qa.V[2]
		bw, bx, by, bz := qb.W, qb.V[0], qb.V[1], qb.V[2]
		dot := float32(aw*bw) + float32(ax*bx) + float32(ay*by) + float32(az*bz)
		adot := dot
		if dot < 0 {
			adot = -dot
		}
		w0, w1 := s, t
		if adot < nlerpMinDot {
			w0, w1 = slerpWeights(adot, t)
		}
		if dot < 0 {
			w1 = -w1
		}
		w := float32(w0*aw) + float32(w1*bw)
		x := float32(w0*ax) + float32(w1*bx)
		y := float32(w0*ay) + float32(w1*by)
		z := float32(w0*az) + float32(w1*bz)
		n2 := float32(w*w) + float32(x*x) + float32(y*y) + float32(z*z)
		var inv float32
		if d := n2 - 1; d > -1e-3 && d < 1e-3 {
			inv = 1.5 - float32(0.5*n2)
		} else if n2 > 0 {
			inv = 1 / float32(math.Sqrt(float64(n2)))
		} else {
			w, inv = 1, 1 // the identity, as normalize
		}
		w, x, y, z = w*inv, x*inv, y*inv, z*inv

		// The local matrix T*R*S, rows l0..l3, l4..l7, l8..l11.
		x2, y2, z2 := x+x, y+y, z+z
		xx, yy, zz := x*x2, y*y2, z*z2
		xy, xz, yz := x*y2, x*z2, y*z2
		wx, wy, wz := w*x2, w*y2, w*z2
		l0, l1, l2 := (1-(yy+zz))*sx, (xy-wz)*sy, (xz+wy)*sz
		l4, l5, l6 := (xy+wz)*sx, (1-(xx+zz))*sy, (yz-wx)*sz
		l8, l9, l10 := (xz-wy)*sx, (yz+wx)*sy, (1-(xx+yy))*sz
		g := &globals[n]
		par := parent[n]
		if par < 0 {
			g[0], g[1], g[2], g[3] = l0, l1, l2, tx
			g[4], g[5], g[6], g[7] = l4, l5, l6, ty
			g[8], g[9], g[10], g[11] = l8, l9, l10, tz
			continue
		}
		pg := &globals[par]
		a0, a1, a2, a3 := pg[0], pg[1], pg[2], pg[3]
		g[0] = a0*l0 + a1*l4 + a2*l8
		g[1] = a0*l1 + a1*l5 + a2*l9
		g[2] = a0*l2 + a1*l6 + a2*l10
		g[3] = a0*tx + a1*ty + a2*tz + a3
		a0, a1, a2, a3 = pg[4], pg[5], pg[6], pg[7]
		g[4] = a0*l0 + a1*l4 + a2*l8
		g[5] = a0*l1 + a1*l5 + a2*l9
		g[6] = a0*l2 + a1*l6 + a2*l10
		g[7] = a0*tx + a1*ty + a2*tz + a3
		a0, a1, a2, a3 = pg[8], pg[9], pg[10], pg[11]
		g[8] = a0*l0 + a1*l4 + a2*l8
		g[9] = a0*l1 + a1*l5 + a2*l9
		g[10] = a0*l2 + a1*l6 + a2*l10
		g[11] = a0*tx + a1*ty + a2*tz + a3
	}
	r.skin(globals, bones)
}

// lerp writes the weights t of the way from a to b into dst.
func lerp(a, b []float32, t float32, dst []float32) {
	s := 1 - t
	b, dst = b[:len(a)], dst[:len(a)]
	for k := range a {
		dst[k] = float32(s*a[k]) + float32(t*b[k])
	}
}

// slotCache is what Pose keeps for the entity in one slot: render-side
// derived data. It holds the last two local poses it sampled (a frame
// needs the previous tick's and the current one's; after a tick the old
// current is the new previous) and the palette of the last pose it drew on
// its own (at a tick's end, or held).
type slotCache struct {
	rig    *rig
	key    [2]poseKey
	valid  [2]bool
	pose   [2]LocalPose
	palRig *rig // the rig pal was made for, nil: none
	palKey poseKey
	pal    []render.Bone
}

// sampled returns the local pose of r at key, sampling it unless sc holds
// it, into the cache entry that does not hold keep.
func (a *Animations) sampled(sc *slotCache, r *rig, key, keep poseKey) *LocalPose {
	if key.clip == NoClip {
		return &r.rest
	}
	if sc.rig != r {
		sc.rig, sc.valid = r, [2]bool{}
	}
	for j := range sc.key {
		if sc.valid[j] && sc.key[j] == key {
			return &sc.pose[j]
		}
	}
	j := 0
	if sc.valid[0] && sc.key[0] == keep {
		j = 1
	}
	sampleAt(r.m, int(key.clip), key.ns, &sc.pose[j])
	a.samples++
	sc.key[j], sc.valid[j] = key, true
	return &sc.pose[j]
}

// Pose is the Render system: for every entity with an animator whose mesh
// has a model (SetModel) it adds the entity's pose to the frame's
// c.Render.Poses (the palette, len(Model.Palette) bones, and the weights,
// len(Model.RestWeights)) and sets its instance's Pose. The pose is drawn
// between the end of the previous tick (PrevClip, PrevTime) and the end of
// the current one (Clip, Time), c.Render.Alpha of the way (Blend), unless
// the instance is drawn at its current state (RenderBuffer.AtCurrent: a
// teleport, a jump beyond the snap thresholds, NoInterpolation, or
// interpolation off): then the model as a whole is at the current tick's
// pose, never in between. Entities without a model are skipped, as are
// those beyond render.MaxPoses in one frame (drawn at rest).
//
// Sampling is per tick, not per frame: Pose keeps, per entity, the last
// two poses it sampled, keyed by clip and clip time, so a frame between
// two ticks only blends them, and a new tick samples one pose (the old
// current one is the new previous). A key that does not match (after a
// rollback, Restore or LoadState) is sampled again. That cache is derived
// from the animators and never read by fixed code. A steady frame does
// not allocate.
//
// On the GPU path (c.Render.OnGPU, engine.World.InterpolateOnGPU) it poses
// once a tick, when the ticks were made again: two poses per animated slot
// drawn, at the start of the tick and at its end, which the renderer's
// vertex shader blends at the frame's alpha (see
// render.TickInstance.Pose); a slot that snapped gets its end pose twice.
// A frame between ticks costs it nothing.
//
// Add it with AddRender; it reads c.Render as World.Interpolate left it.
func (a *Animations) Pose(c *engine.FrameContext) {
	rb := c.Render
	w := a.w
	if n := w.Slots(); len(a.cache) < n {
		a.cache = append(a.cache, make([]slotCache, n-len(a.cache))...)
	}
	if rb.OnGPU {
		if rb.NewTicks {
			a.poseTicks(rb)
		}
		return
	}
	vals, _ := a.comp.Slices()
	meshes := w.Bodies().Mesh
	ents := rb.Entities
	k := 0
	for _, i := range a.comp.Indices() {
		r := a.rig(meshes[i])
		if r == nil {
			continue
		}
		for k < len(ents) && ents[k].Index() < int(i) {
			k++
		}
		if k == len(ents) {
			break
		}
		if ents[k].Index() != int(i) || rb.Poses.Len() >= render.MaxPoses {
			continue
		}
		an := &vals[i]
		cur := r.key(an.Clip, an.Time, an.Loop)
		prev := r.key(an.PrevClip, an.PrevTime, an.PrevLoop)
		t := rb.Alpha
		if rb.AtCurrent(k) {
			t = 1
		}
		num, bones, weights := rb.Poses.Add(len(r.joints), len(r.m.RestWeights))
		rb.Instances[k].Pose = num
		sc := &a.cache[i]
		switch {
		case t == 1 || prev == cur:
			a.poseOne(sc, r, cur, prev, bones, weights)
		case t == 0:
			a.poseOne(sc, r, prev, cur, bones, weights)
		default:
			pc := a.sampled(sc, r, cur, prev)
			pp := a.sampled(sc, r, prev, cur)
			r.paletteBlend(pp, pc, t, a.globals, bones)
			lerp(pp.Weights, pc.Weights, t, weights)
		}
	}
}

// poseTicks is Pose on the GPU path, when the ticks were made again: per
// animated slot drawn, two poses, at the start of the tick (PrevClip,
// PrevTime) and at its end (Clip, Time), which the vertex shader blends at
// the frame's alpha; a snapped slot gets its end pose twice.
func (a *Animations) poseTicks(rb *engine.RenderBuffer) {
	vals, _ := a.comp.Slices()
	meshes := a.w.Bodies().Mesh
	slots := rb.Ticks.Slots
	for _, i := range a.comp.Indices() {
		if int(i) >= len(slots) || slots[i].Flags&render.TickDrawn == 0 {
			continue
		}
		r := a.rig(meshes[i])
		if r == nil {
			continue
		}
		if rb.Poses.Len()+2 > render.MaxPoses {
			return
		}
		an := &vals[i]
		cur := r.key(an.Clip, an.Time, an.Loop)
		prev := r.key(an.PrevClip, an.PrevTime, an.PrevLoop)
		if slots[i].Flags&render.TickSnap != 0 {
			prev = cur
		}
		sc := &a.cache[i]
		num, bones, weights := rb.Poses.Add(len(r.joints), len(r.m.RestWeights))
		a.poseOne(sc, r, prev, cur, bones, weights)
		_, bones, weights = rb.Poses.Add(len(r.joints), len(r.m.RestWeights))
		a.poseOne(sc, r, cur, prev, bones, weights)
		rb.Ticks.SetPose(int(i), num)
	}
}

// poseOne writes the palette and weights of r's pose at key into bones
// and weights; keep is the other key the entity needs (not to be evicted).
func (a *Animations) poseOne(sc *slotCache, r *rig, key, keep poseKey, bones []render.Bone, weights []float32) {
	if key.clip == NoClip {
		copy(bones, r.restBones)
		copy(weights, r.m.RestWeights)
		return
	}
	p := a.sampled(sc, r, key, keep)
	if sc.palRig != r || sc.palKey != key {
		sc.pal = slices.Grow(sc.pal[:0], len(r.joints))[:len(r.joints)]
		r.palette(p, a.globals, sc.pal)
		sc.palRig, sc.palKey = r, key
	}
	copy(bones, sc.pal)
	copy(weights, p.Weights)
}
