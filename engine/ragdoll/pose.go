package ragdoll

import (
	"slices"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/anim"
	"github.com/nebulaengine/nebula/engine/geom"
	"github.com/nebulaengine/nebula/engine/render"
)

// poser is the scratch of posing: local poses and global transforms,
// reused from call to call; never state.
type poser struct {
	anim, animPrev, animMix, rag, blend, rest anim.LocalPose
	glob, animGlob                            []geom.Transform
	frames                                    [MaxParts]geom.Transform
}

// globals writes into p.glob (grown to the model's nodes) every node's
// transform in the model's space in the local pose l.
func (p *poser) globals(d *Def, l *anim.LocalPose, out *[]geom.Transform) []geom.Transform {
	nodes := d.Model.Nodes
	g := slices.Grow((*out)[:0], len(nodes))[:len(nodes)]
	for n := range nodes {
		if par := nodes[n].Parent; par >= 0 {
			g[n] = g[par].Mul(l.Nodes[n])
		} else {
			g[n] = l.Nodes[n]
		}
	}
	*out = g
	return g
}

// ragdollLocal writes into out the local pose of d's model whose parts'
// bodies are at frames (each body's frame in the model's space): each
// mapped bone where its body puts it; a bone below a mapped one as
// animated (animLocal) relative to its parent; a bone above the mapped
// ones (a root) fixed to its first mapped descendant as the animation
// places them; any other as animated. The weights are the animation's.
func (p *poser) ragdollLocal(d *Def, frames []geom.Transform, animLocal *anim.LocalPose, out *anim.LocalPose) {
	nodes := d.Model.Nodes
	ag := p.globals(d, animLocal, &p.animGlob)
	g := slices.Grow(p.glob[:0], len(nodes))[:len(nodes)]
	p.glob = g
	for i := range d.Parts {
		g[d.Parts[i].Bone] = frames[i].Mul(d.offInv[i])
	}
	for n := range nodes {
		f := d.follow[n]
		switch {
		case d.nodePart[n] >= 0:
		case f == followParent:
			g[n] = g[nodes[n].Parent].Mul(animLocal.Nodes[n])
		case f == followAnim:
			g[n] = ag[n]
		default:
			b := d.Parts[f].Bone
			g[n] = g[b].Mul(ag[b].Relative(ag[n]))
		}
	}
	out.Nodes = slices.Grow(out.Nodes[:0], len(nodes))[:len(nodes)]
	for n := range nodes {
		if par := nodes[n].Parent; par >= 0 {
			out.Nodes[n] = g[par].Relative(g[n])
		} else {
			out.Nodes[n] = g[n]
		}
		out.Nodes[n].Rot = quatUnit(out.Nodes[n].Rot)
	}
	out.Weights = append(out.Weights[:0], animLocal.Weights...)
}

// pose writes into out each of d's bodies' world transform (with e's
// scale) in e's pose at the end of the current tick, or, with prev, of the
// previous one: the animation's pose (the animator's clip and time) at
// e's transform, blended from the ragdoll's (Ragdoll.From) while
// Blending.
func (r *Ragdolls) pose(d *Def, rd *Ragdoll, e engine.Entity, out []geom.Transform, prev bool) {
	p := &r.sc
	et := r.w.Transform(e)
	if prev {
		et = r.w.PrevTransform(e)
	}
	clip, ns, loop := uint16(anim.NoClip), uint64(0), false
	if an, ok := r.anims.Component().Get(e); ok {
		clip, ns, loop = an.Clip, an.Time, an.Loop
		if prev {
			clip, ns, loop = an.PrevClip, an.PrevTime, an.PrevLoop
		}
	}
	anim.Sample(d.Model, int(clip), ns, loop, &p.anim)
	local := &p.anim
	if rd.Phase == Blending {
		ticks := rd.Ticks
		if prev && ticks > 0 {
			ticks--
		}
		p.fromFrames(rd)
		p.ragdollLocal(d, p.frames[:len(d.Parts)], &p.anim, &p.rag)
		anim.Blend(&p.rag, &p.anim, blendAt(float32(ticks), rd.BlendTicks), &p.blend)
		local = &p.blend
	}
	g := p.globals(d, local, &p.glob)
	for i := range d.Parts {
		t := et.Mul(g[d.Parts[i].Bone].Mul(d.Parts[i].Offset))
		t.Rot, t.Scale = quatUnit(t.Rot), et.Scale
		out[i] = t
	}
}

// fromFrames puts into p.frames the bodies' frames kept in rd.From.
func (p *poser) fromFrames(rd *Ragdoll) {
	for i := range rd.Count {
		p.frames[i] = geom.Transform{Pos: rd.From[i].Pos, Rot: rd.From[i].Rot, Scale: one}
	}
}

// blendAt returns how far a blend of n ticks is at tick t, in [0, 1].
func blendAt(t float32, n uint32) float32 {
	if n == 0 {
		return 1
	}
	return min(max(t/float32(n), 0), 1)
}

// Pose is the Render system that draws every Falling or Blending
// character's skin from its ragdoll: its bones where its bodies are
// (interpolated between the last two ticks like every entity), the bones
// between and above them as ragdollLocal says, blended towards the
// animation (itself between the last two ticks) while Blending. It
// overwrites the pose anim's Pose gave the entity (or adds one), so add it
// after that: e.AddRender("ragdoll", ragdolls.Pose).
func (r *Ragdolls) Pose(c *engine.FrameContext) {
	rb := c.Render
	if rb.OnGPU {
		if rb.NewTicks {
			r.poseTicks(rb)
		}
		return
	}
	vals, _ := r.comp.Slices()
	for _, i := range r.comp.Indices() {
		rd := &vals[i]
		if rd.Phase == Animated {
			continue
		}
		e, _ := r.w.EntityAt(int(i))
		k, ok := rb.Find(e)
		d, _ := r.Def(r.w.Mesh(e))
		if !ok || d == nil || int(rd.Count) != len(d.Parts) {
			continue
		}
		inst := &rb.Instances[k]
		et := geom.Transform{Pos: inst.Pos, Rot: inst.Rot, Scale: inst.Scale}
		alpha := rb.Alpha
		if rb.AtCurrent(k) {
			alpha = 1
		}
		local := r.localAt(rd, d, e, et, alpha, rb)
		if local == nil {
			continue
		}
		pose := inst.Pose
		if pose == 0 {
			if rb.Poses.Len() >= render.MaxPoses {
				continue
			}
			pose, _, _ = rb.Poses.Add(len(d.Model.Palette), len(local.Weights))
			inst.Pose = pose
		}
		r.writePose(d, local, &rb.Poses, pose)
	}
}

// poseTicks is Pose on the GPU path, when the ticks were made again: per
// Falling or Blending character drawn, its skin at the start of the tick
// and at its end, into the slot's pair of poses (anim's, or one added).
func (r *Ragdolls) poseTicks(rb *engine.RenderBuffer) {
	vals, _ := r.comp.Slices()
	slots := rb.Ticks.Slots
	alpha := rb.Alpha
	defer func() { rb.Alpha = alpha }()
	for _, i := range r.comp.Indices() {
		rd := &vals[i]
		if rd.Phase == Animated || int(i) >= len(slots) || slots[i].Flags&render.TickDrawn == 0 {
			continue
		}
		e, _ := r.w.EntityAt(int(i))
		d, _ := r.Def(r.w.Mesh(e))
		if d == nil || int(rd.Count) != len(d.Parts) {
			continue
		}
		sl := &slots[i]
		pose := sl.Pose
		if pose == 0 {
			if rb.Poses.Len()+2 > render.MaxPoses {
				continue
			}
			pose, _, _ = rb.Poses.Add(len(d.Model.Palette), len(d.Model.RestWeights))
			rb.Poses.Add(len(d.Model.Palette), len(d.Model.RestWeights))
			rb.Ticks.SetPose(int(i), pose)
		}
		snap := sl.Flags&render.TickSnap != 0
		for end := range uint16(2) {
			// The skin where the frame at alpha 0 (the start of the tick)
			// and 1 (its end) places the character and its bodies.
			et := geom.Transform{Pos: sl.PrevPos, Rot: sl.PrevRot, Scale: sl.PrevScale}
			rb.Alpha = 0
			if end == 1 || snap {
				et = geom.Transform{Pos: sl.Pos, Rot: sl.Rot, Scale: sl.Scale}
				rb.Alpha = 1
			}
			local := r.localAt(rd, d, e, et, rb.Alpha, rb)
			if local == nil {
				break
			}
			r.writePose(d, local, &rb.Poses, pose+end)
		}
	}
}

// localAt returns the local pose of rd's skin (of def d, entity e drawn at
// et) in the frame rb at alpha: its bones where its bodies are, the bones
// between and above them as ragdollLocal says, blended towards the
// animation while Blending. It returns nil when a body is not alive. The
// pose is r's scratch, valid until the next call.
func (r *Ragdolls) localAt(rd *Ragdoll, d *Def, e engine.Entity, et geom.Transform, alpha float32, rb *engine.RenderBuffer) *anim.LocalPose {
	p := &r.sc
	// The animation between the last two ticks.
	animLocal := &p.rest
	if an, ok := r.anims.Component().Get(e); ok {
		anim.Sample(d.Model, int(an.Clip), an.Time, an.Loop, &p.anim)
		anim.Sample(d.Model, int(an.PrevClip), an.PrevTime, an.PrevLoop, &p.animPrev)
		anim.Blend(&p.animPrev, &p.anim, alpha, &p.animMix)
		animLocal = &p.animMix
	} else {
		p.rest.Rest(d.Model)
	}
	frames := p.frames[:len(d.Parts)]
	if rd.Phase == Falling {
		for b := range d.Parts {
			// Where the frame places the body (a pivot, not drawn).
			bt, ok := r.w.DrawTransform(rd.Bodies[b], rb)
			if !ok {
				return nil
			}
			frames[b] = et.Relative(geom.Transform{Pos: bt.Pos, Rot: bt.Rot, Scale: et.Scale})
		}
	} else {
		p.fromFrames(rd)
	}
	p.ragdollLocal(d, frames, animLocal, &p.rag)
	local := &p.rag
	if rd.Phase == Blending {
		anim.Blend(&p.rag, animLocal, blendAt(float32(rd.Ticks)-1+alpha, rd.BlendTicks), &p.blend)
		local = &p.blend
	}
	return local
}

// writePose writes local's palette and weights into poses' pose number
// pose (from 1), which holds d's palette.
func (r *Ragdolls) writePose(d *Def, local *anim.LocalPose, poses *render.Poses, pose uint16) {
	p := &r.sc
	g := p.globals(d, local, &p.glob)
	pal := d.Model.Palette
	ref := poses.Refs[pose-1]
	bones := poses.Bones[ref.FirstBone : int(ref.FirstBone)+len(pal)]
	weights := poses.Weights[ref.FirstWeight : int(ref.FirstWeight)+len(local.Weights)]
	for j := range pal {
		transformToBone(g[pal[j].Node], &pal[j].InverseBind, (*[12]float32)(&bones[j]))
	}
	copy(weights, local.Weights)
}
