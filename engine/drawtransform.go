package engine

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine/geom"
)

// DrawTransform returns the world transform e is drawn at in the frame rb
// holds: where the last World.Interpolate into rb placed it, with the same
// alpha, tick duration and configuration, whether or not e itself is
// drawn. It is for what rides an entity without being an instance of its
// own: a light, a camera mount, a sound (a hidden entity or a pivot is
// placed all the same). The scale is the transform's, without the mesh
// scale. It reports false when e is not alive or rb was never
// interpolated into.
//
// For an entity Interpolate drew, the result is the instance's transform
// (TestDrawTransformMatchesInterpolate).
func (w *World) DrawTransform(e Entity, rb *RenderBuffer) (geom.Transform, bool) {
	if !w.Alive(e) || !rb.interpolated {
		return geom.Transform{}, false
	}
	w.propagateIfStale()
	i := int(e.index)
	cur, prev := w.cur.Pos, w.prev.Pos
	curRot, prevRot := w.cur.Rot, w.prev.Rot
	curScale, prevScale := w.cur.Scale, w.prev.Scale
	hasParent := false
	if h := &w.hier; h.linked > 0 {
		cur, prev = h.cur.Pos, h.prv.Pos
		curRot, prevRot = h.cur.Rot, h.prv.Rot
		curScale, prevScale = h.cur.Scale, h.prv.Scale
		hasParent = h.parent[i] != 0
	}
	cp, cr, cs := cur[i], curRot[i], curScale[i]
	now := geom.Transform{Pos: cp, Rot: cr, Scale: cs}
	cfg := rb.cfg
	if !cfg.Enabled || w.cur.Mode[i] == NoInterpolation {
		return now, true
	}
	pp, pr, ps := prev[i], prevRot[i], prevScale[i]
	maxDist2, minDot := cfg.snapLimits()
	dx, dy, dz := cp[0]-pp[0], cp[1]-pp[1], cp[2]-pp[2]
	dot := pr.W*cr.W + pr.V[0]*cr.V[0] + pr.V[1]*cr.V[1] + pr.V[2]*cr.V[2]
	const signBit = 1 << 31
	adot := math.Float32frombits(math.Float32bits(dot) &^ signBit)
	if w.snap[i] || dx*dx+dy*dy+dz*dz > maxDist2 || adot < minDot {
		return now, true
	}
	t := rb.Alpha
	s := 1 - t
	var out geom.Transform
	out.Pos = mgl32.Vec3{s*pp[0] + t*cp[0], s*pp[1] + t*cp[1], s*pp[2] + t*cp[2]}
	out.Scale = mgl32.Vec3{s*ps[0] + t*cs[0], s*ps[1] + t*cs[1], s*ps[2] + t*cs[2]}
	switch {
	case t == 0:
		out.Rot = pr
	case t == 1:
		out.Rot = cr
	default:
		w0, w1 := s, t
		if adot < nlerpMinDot {
			w0, w1 = slerpWeights(adot, t)
		}
		w1 = math.Float32frombits(math.Float32bits(w1) ^ math.Float32bits(dot)&signBit)
		qw := w0*pr.W + w1*cr.W
		qx := w0*pr.V[0] + w1*cr.V[0]
		qy := w0*pr.V[1] + w1*cr.V[1]
		qz := w0*pr.V[2] + w1*cr.V[2]
		inv := invSqrtNearOne(qw*qw + qx*qx + qy*qy + qz*qz)
		out.Rot = mgl32.Quat{W: qw * inv, V: mgl32.Vec3{qx * inv, qy * inv, qz * inv}}
	}
	if w.cur.Mode[i] == Hermite && !hasParent {
		t2 := t * t
		t3 := t2 * t
		tickDT := rb.tickDT
		h00 := 2*t3 - 3*t2 + 1
		h01 := 3*t2 - 2*t3
		h10 := (t3 - 2*t2 + t) * tickDT
		h11 := (t3 - t2) * tickDT
		pv, cv := w.prev.Vel[i], w.cur.Vel[i]
		for k := range 3 {
			out.Pos[k] = h00*pp[k] + h10*pv[k] + h01*cp[k] + h11*cv[k]
		}
	}
	return out, true
}
