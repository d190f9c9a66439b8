package anim

import (
	"github.com/nebulaengine/nebula/engine/geom"

	"errors"
	"fmt"
	"math"
	"slices"
	"unsafe"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine/model"
)

// LocalPose is a model's pose in its nodes' own spaces: per node the
// translation, rotation and scale relative to its parent (what clips
// animate, as in model.Node.Rest), and the model's blend-shape weights.
// Sample fills one; its slices are reused from call to call.
type LocalPose struct {
	// Nodes holds each node's transform, indexed like Model.Nodes; Rot is
	// a unit quaternion.
	Nodes []geom.Transform
	// Weights holds the model's blend-shape weights, like
	// Model.RestWeights.
	Weights []float32
}

// Rest makes p the rest pose of m: every node at its Rest transform and the
// weights at RestWeights. It allocates only when p is smaller than m.
func (p *LocalPose) Rest(m *model.Model) {
	p.Nodes = slices.Grow(p.Nodes[:0], len(m.Nodes))[:len(m.Nodes)]
	for i := range m.Nodes {
		p.Nodes[i] = m.Nodes[i].Rest
	}
	p.Weights = append(p.Weights[:0], m.RestWeights...)
}

// Sample writes into dst the pose of m playing clip at ns nanoseconds into
// it: the rest pose, then every channel of the clip applied. With loop the
// time wraps modulo the clip's duration (Duration rounded to whole
// nanoseconds), so that the end of one round is the start of the next;
// without, it is held at the duration, on the last keys. Before a
// channel's first key the channel holds its first value, after its last
// key its last one. Between keys, Linear interpolates linearly, rotations
// along the shortest arc (a slerp, or an nlerp for keys less than 3.6
// degrees apart, within 5e-6 radians of it); Step holds a key until the
// next; CubicSpline is glTF's Hermite spline, its tangents scaled by the
// key interval (rotations then normalised). clip NoClip (or any clip the
// model does not have) gives the rest pose.
//
// The result is the same bits on every build (every product rounded
// explicitly; of the math package only the exactly rounded Sqrt and
// Round), so fixed systems may call it:
// with an Animator's Clip, Time and Loop it gives the pose the entity has
// at the end of the current tick. m must be a valid model (Check); Sample
// allocates only when dst is smaller than m.
func Sample(m *model.Model, clip int, ns uint64, loop bool, dst *LocalPose) {
	if clip < 0 || clip >= len(m.Clips) {
		dst.Rest(m)
		return
	}
	sampleAt(m, clip, clipTime(ns, clipNanos(m.Clips[clip].Duration), loop), dst)
}

// clipNanos returns a clip's duration in whole nanoseconds.
func clipNanos(d float32) uint64 {
	if !(d > 0) { // also NaN
		return 0
	}
	return uint64(math.Round(float64(d) * 1e9))
}

// clipTime returns where in a clip of dur nanoseconds the time ns falls:
// wrapped modulo dur with loop, held at dur without.
func clipTime(ns, dur uint64, loop bool) uint64 {
	switch {
	case dur == 0:
		return 0
	case loop:
		return ns % dur
	default:
		return min(ns, dur)
	}
}

// seconds converts nanoseconds to seconds, correctly rounded to float32
// through float64 (exact up to 2^53 ns, 104 days).
func seconds(ns uint64) float32 { return float32(float64(ns) / 1e9) }

// sampleAt is Sample at a clip time already wrapped or held (clipTime).
func sampleAt(m *model.Model, clip int, ns uint64, dst *LocalPose) {
	dst.Rest(m)
	t := seconds(ns)
	var seg segment
	var times *float32 // the key times seg was found in
	for i := range m.Clips[clip].Channels {
		ch := &m.Clips[clip].Channels[i]
		// Channels often share their key times (a glTF sampler's input
		// accessor, a baked clip's keys): search them once.
		if p := unsafe.SliceData(ch.Times); p != times || len(ch.Times) != seg.n {
			seg, times = findSegment(ch.Times, t), p
		}
		switch ch.Path {
		case model.Translation, model.Scale:
			v := &dst.Nodes[ch.Node].Pos
			if ch.Path == model.Scale {
				v = &dst.Nodes[ch.Node].Scale
			}
			if ch.Interpolation != model.Linear || seg.only {
				sampleChannel(ch, 3, &seg, v[:])
				break
			}
			// The common case, written out: linear between two keys.
			k := seg.i * 3
			ab := ch.Values[k : k+6 : k+6]
			s, u := 1-seg.u, seg.u
			v[0] = float32(s*ab[0]) + float32(u*ab[3])
			v[1] = float32(s*ab[1]) + float32(u*ab[4])
			v[2] = float32(s*ab[2]) + float32(u*ab[5])
		case model.Rotation:
			sampleRotation(ch, &seg, &dst.Nodes[ch.Node].Rot)
		case model.Weights:
			sampleChannel(ch, ch.Count, &seg, dst.Weights[ch.FirstWeight:ch.FirstWeight+ch.Count])
		}
	}
}

// segment is where a time falls among a channel's keys.
type segment struct {
	i    int     // the key at or before the time (0 before the first key)
	u    float32 // the fraction of the way from key i to key i+1
	only bool    // the time is before the first key or at or after the last: key i alone
	n    int     // the number of keys
}

// findSegment finds where t falls among times (increasing, at least one):
// the key i with times[i] <= t < times[i+1] and the fraction u of the way
// from key i to key i+1, or only a key when t is before the first key or
// at or after the last.
func findSegment(times []float32, t float32) segment {
	n := len(times)
	if !(t > times[0]) { // before the first key (or at it, or NaN)
		return segment{0, 0, true, n}
	}
	if t >= times[n-1] {
		return segment{n - 1, 0, true, n}
	}
	// Binary search for the last key at or before t: times[lo] <= t <
	// times[hi] throughout.
	lo, hi := 0, n-1
	for hi-lo > 1 {
		mid := int(uint(lo+hi) >> 1)
		if times[mid] <= t {
			lo = mid
		} else {
			hi = mid
		}
	}
	t0, t1 := times[lo], times[hi]
	u := (t - t0) / (t1 - t0)
	return segment{lo, min(max(u, 0), 1), u == 0, n}
}

// sampleChannel writes the width values of ch at seg into out (Translation,
// Scale, Weights: everything but rotations).
func sampleChannel(ch *model.Channel, width int, seg *segment, out []float32) {
	i, u, only := seg.i, seg.u, seg.only
	v := ch.Values
	if ch.Interpolation == model.CubicSpline {
		stride := 3 * width
		if only || u == 0 {
			copy(out, v[i*stride+width:i*stride+2*width])
			return
		}
		td := ch.Times[i+1] - ch.Times[i]
		h00, h10, h01, h11 := hermite(u, td)
		p0 := v[i*stride+width : i*stride+2*width]
		b0 := v[i*stride+2*width : i*stride+3*width]
		a1 := v[(i+1)*stride : (i+1)*stride+width]
		p1 := v[(i+1)*stride+width : (i+1)*stride+2*width]
		for k := range out {
			out[k] = float32(h00*p0[k]) + float32(h10*b0[k]) + float32(h01*p1[k]) + float32(h11*a1[k])
		}
		return
	}
	a := v[i*width : (i+1)*width]
	if only || u == 0 || ch.Interpolation == model.Step {
		copy(out, a)
		return
	}
	b := v[(i+1)*width : (i+2)*width]
	s := 1 - u
	for k := range out {
		out[k] = float32(s*a[k]) + float32(u*b[k])
	}
}

// hermite returns the weights of glTF's cubic spline at u in [0, 1] for a
// key interval of td seconds: of the first value, of its out-tangent, of
// the second value and of its in-tangent (the tangents' weights include td,
// which scales them).
func hermite(u, td float32) (h00, h10, h01, h11 float32) {
	u2 := float32(u * u)
	u3 := float32(u2 * u)
	h00 = float32(2*u3) - float32(3*u2) + 1
	h01 = float32(3*u2) - float32(2*u3)
	h10 = float32((u3 - float32(2*u2) + u) * td)
	h11 = float32((u3 - u2) * td)
	return h00, h10, h01, h11
}

// sampleRotation writes ch's rotation at seg into dst: keys are x y z w
// as in glTF; linear keys are interpolated along the shortest arc
// (blendQuat), cubic ones component by component and normalised.
func sampleRotation(ch *model.Channel, seg *segment, dst *mgl32.Quat) {
	i, u, only := seg.i, seg.u, seg.only
	v := ch.Values
	var w, x, y, z float32
	switch {
	case ch.Interpolation == model.CubicSpline:
		const stride = 12
		k := i*stride + 4 // key i's value
		if only || u == 0 {
			w, x, y, z = v[k+3], v[k], v[k+1], v[k+2]
			break
		}
		td := ch.Times[i+1] - ch.Times[i]
		h00, h10, h01, h11 := hermite(u, td)
		p0, b0 := v[k:k+4], v[k+4:k+8]
		a1, p1 := v[k+8:k+12], v[k+12:k+16]
		var q [4]float32
		for c := range q {
			q[c] = float32(h00*p0[c]) + float32(h10*b0[c]) + float32(h01*p1[c]) + float32(h11*a1[c])
		}
		w, x, y, z = normalize(q[3], q[0], q[1], q[2])
	case only || u == 0 || ch.Interpolation == model.Step:
		k := i * 4
		w, x, y, z = v[k+3], v[k], v[k+1], v[k+2]
	default:
		k := i * 4
		ab := v[k : k+8 : k+8]
		w, x, y, z = blendQuat(ab[3], ab[0], ab[1], ab[2], ab[7], ab[4], ab[5], ab[6], 1-u, u)
	}
	dst.W, dst.V[0], dst.V[1], dst.V[2] = w, x, y, z
}

// nlerpMinDot is the cosine of the half angle between two rotations above
// which blendQuat interpolates them linearly and normalises (nlerp)
// instead of slerping: turns under 3.6 degrees, where the nlerp is within
// 5e-6 radians of the slerp (TestNlerpNearSlerp) and cheaper. The engine's
// interpolation uses the same bound.
const nlerpMinDot = 0.9995

// blendQuat returns the rotation t of the way (strictly between 0 and 1)
// from the unit quaternion a to b along the shortest arc (towards b or -b,
// whichever is nearer a), normalised; s is 1-t. It slerps, or nlerps
// rotations less than 3.6 degrees apart (nlerpMinDot). It is the same bits
// on every build. (paletteBlend has its arithmetic written out.)
func blendQuat(aw, ax, ay, az, bw, bx, by, bz, s, t float32) (w, x, y, z float32) {
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
	return normalize(
		float32(w0*aw)+float32(w1*bw),
		float32(w0*ax)+float32(w1*bx),
		float32(w0*ay)+float32(w1*by),
		float32(w0*az)+float32(w1*bz))
}

// normalize returns the quaternion scaled to unit length, as
// detmath.Normalize does (the same bits on every build): one Newton step
// for 1/sqrt(n2) when n2 is near 1, as it is after nlerp of near rotations
// and slerp. A zero quaternion gives the identity.
func normalize(w, x, y, z float32) (float32, float32, float32, float32) {
	n2 := float32(w*w) + float32(x*x) + float32(y*y) + float32(z*z)
	var inv float32
	switch d := n2 - 1; {
	case d > -1e-3 && d < 1e-3:
		inv = 1.5 - float32(0.5*n2)
	case n2 > 0:
		inv = 1 / float32(math.Sqrt(float64(n2)))
	default:
		return 1, 0, 0, 0
	}
	return w * inv, x * inv, y * inv, z * inv
}

// slerpTerms holds the coefficients of the series in slerpWeights: for
// i = 1..len, a = 1/(i*(2i+1)) and b = i/(2i+1).
var slerpTerms = func() (c [22]struct{ a, b float64 }) {
	for k := range c {
		i := float64(k + 1)
		c[k].a, c[k].b = 1/(i*(2*i+1)), i/(2*i+1)
	}
	return c
}()

// slerpWeights returns the weights of the two ends in the slerp at u
// between unit quaternions whose dot product is c in [0, 1]: f(1-u) and
// f(u), where f(x) = sin(xθ)/sin θ and θ = acos(c).
//
// It sums the series of f in y = 1-c (D. Eberly, "A Fast and Accurate
// Algorithm for Computing SLERP", Journal of Graphics, GPU, and Game Tools
// 15(3), 2011), the same as engine's interpolation does, as polynomials
// with every product rounded, so the weights are the same bits on every
// build:
//
//	f(x) = x * (1 + b1*(1 + b2*(1 + ... ))),  bi = (i*i - x*x)/(i*(2i+1)) * y
//
// 8 terms for y <= 0.4 (turns up to 106 degrees) and 22 beyond, up to a
// half turn, keep the weights within 6e-8 of the exact ones (checked by
// TestSlerpWeights).
func slerpWeights(c, u float32) (w0, w1 float32) {
	x1 := float64(u)
	x0 := 1 - x1
	y := 1 - float64(c)
	n := len(slerpTerms)
	if y <= 0.4 {
		n = 8
	}
	sq0, sq1 := float64(x0*x0), float64(x1*x1)
	f0, f1 := 1.0, 1.0
	for i := n - 1; i >= 0; i-- {
		k := &slerpTerms[i]
		f0 = float64(float64(float64(k.b-float64(k.a*sq0))*y)*f0) + 1
		f1 = float64(float64(float64(k.b-float64(k.a*sq1))*y)*f1) + 1
	}
	return float32(x0 * f0), float32(x1 * f1)
}

// Check reports whether m is a model anim can play, and if not, what is
// wrong with it, naming the model and the part: its palette and weights
// within model.MaxPalette and model.MaxWeights, nodes parent-first, palette
// joints naming nodes, and every clip's channels driving nodes or weights
// the model has, with increasing finite key times and as many finite
// values as their keys need. (Rotation keys should be unit quaternions, as
// glTF requires; Check does not hold them to it. A zero one is drawn as no
// rotation.) Models from package model's loader pass; SetModel
// panics with Check's error on one that does not.
func Check(m *model.Model) error {
	if m == nil {
		return errors.New("anim: nil model")
	}
	fail := func(format string, a ...any) error {
		return fmt.Errorf("anim: model %q: "+format, append([]any{m.Name}, a...)...)
	}
	if len(m.Palette) > model.MaxPalette {
		return fail("%d palette matrices, at most %d", len(m.Palette), model.MaxPalette)
	}
	if len(m.RestWeights) > model.MaxWeights {
		return fail("%d blend-shape weights, at most %d", len(m.RestWeights), model.MaxWeights)
	}
	for i, n := range m.Nodes {
		if n.Parent < -1 || n.Parent >= i {
			return fail("node %d: parent %d (-1, or a node before it)", i, n.Parent)
		}
	}
	for j, jt := range m.Palette {
		if jt.Node < 0 || jt.Node >= len(m.Nodes) {
			return fail("palette joint %d: node %d of %d", j, jt.Node, len(m.Nodes))
		}
	}
	if len(m.Clips) >= NoClip {
		return fail("%d clips, at most %d", len(m.Clips), NoClip-1)
	}
	for c, cl := range m.Clips {
		if !(cl.Duration >= 0 && cl.Duration <= maxDuration) {
			return fail("clip %d (%s): duration %v s (0 to %v wanted)", c, cl.Name, cl.Duration, maxDuration)
		}
		for k := range cl.Channels {
			if err := checkChannel(m, &cl.Channels[k]); err != nil {
				return fail("clip %d (%s) channel %d: %v", c, cl.Name, k, err)
			}
		}
	}
	return nil
}

// maxDuration is the longest clip Check accepts, in seconds (a day): its
// nanoseconds fit float64's exact integers many times over.
const maxDuration = 86400

// checkChannel checks one channel of m.
//
//srccheck:wrapped by Check, as "anim: model <name>: clip i (name) channel k: ..."
func checkChannel(m *model.Model, ch *model.Channel) error {
	width := 0
	switch ch.Path {
	case model.Translation, model.Scale:
		width = 3
	case model.Rotation:
		width = 4
	case model.Weights:
		if ch.Count < 1 || ch.FirstWeight < 0 || ch.FirstWeight > len(m.RestWeights)-ch.Count {
			return fmt.Errorf("weights %d to %d of %d", ch.FirstWeight, ch.FirstWeight+ch.Count-1, len(m.RestWeights))
		}
		width = ch.Count
	default:
		return fmt.Errorf("path %d unknown", ch.Path)
	}
	if ch.Path != model.Weights && (ch.Node < 0 || ch.Node >= len(m.Nodes)) {
		return fmt.Errorf("node %d of %d", ch.Node, len(m.Nodes))
	}
	per := width
	switch ch.Interpolation {
	case model.Linear, model.Step:
	case model.CubicSpline:
		per = 3 * width
	default:
		return fmt.Errorf("interpolation %d unknown", ch.Interpolation)
	}
	if len(ch.Times) == 0 {
		return errors.New("no keys")
	}
	for i, t := range ch.Times {
		if !(t >= 0 && t <= maxDuration) || i > 0 && !(t > ch.Times[i-1]) {
			return fmt.Errorf("key %d at %v s (increasing times from 0 to %v wanted)", i, t, maxDuration)
		}
	}
	if len(ch.Values) != len(ch.Times)*per {
		return fmt.Errorf("%d values for %d keys of %d", len(ch.Values), len(ch.Times), per)
	}
	for i, v := range ch.Values {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return fmt.Errorf("value %d (key %d) is %v", i, i/per, v)
		}
	}
	return nil
}
