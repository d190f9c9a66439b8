package model

import (
	"fmt"
	"math"

	"github.com/qmuntal/gltf"
)

// clips converts every animation, in the file's order (clip i is
// animation i). A channel that targets a node outside the converted scene,
// or no node (an extension's), is dropped.
func (c *converter) clips() error {
	doc := c.doc
	for ai, an := range doc.Animations {
		if an == nil {
			return fmt.Errorf("animation %d is null", ai)
		}
		where := fmt.Sprintf("animation %d", ai)
		if an.Name != "" {
			where = fmt.Sprintf("animation %d (%s)", ai, an.Name)
		}
		clip := Clip{Name: an.Name}
		for ci, ch := range an.Channels {
			if ch == nil {
				return fmt.Errorf("%s: channel %d is null", where, ci)
			}
			if ch.Target.Node == nil {
				continue
			}
			f := *ch.Target.Node
			if f < 0 || f >= len(doc.Nodes) {
				return fmt.Errorf("%s channel %d: node %d does not exist (the file has %d)", where, ci, f, len(doc.Nodes))
			}
			if c.newIndex[f] < 0 {
				continue
			}
			if ch.Sampler < 0 || ch.Sampler >= len(an.Samplers) || an.Samplers[ch.Sampler] == nil {
				return fmt.Errorf("%s channel %d: sampler %d does not exist (the animation has %d)", where, ci, ch.Sampler, len(an.Samplers))
			}
			channel, err := c.channel(an.Samplers[ch.Sampler], ch.Sampler, ch.Target.Path, f)
			if err != nil {
				return fmt.Errorf("%s channel %d: %w", where, ci, err)
			}
			clip.Duration = max(clip.Duration, channel.Times[len(channel.Times)-1])
			clip.Channels = append(clip.Channels, channel)
		}
		c.m.Clips = append(c.m.Clips, clip)
	}
	return nil
}

// channel converts one animation channel that targets node f.
func (c *converter) channel(s *gltf.AnimationSampler, si int, path gltf.TRSProperty, f int) (Channel, error) {
	ch := Channel{Node: c.newIndex[f]}
	var per int
	var use accessorUse
	switch path {
	case gltf.TRSTranslation:
		ch.Path, per, use = Translation, 3, floatVec3
	case gltf.TRSRotation:
		ch.Path, per, use = Rotation, 4, rotationUse
	case gltf.TRSScale:
		ch.Path, per, use = Scale, 3, floatVec3
	case gltf.TRSWeights:
		block, ok := c.blocks[f]
		if !ok {
			return ch, fmt.Errorf("drives the weights of %s, which has no morph targets", c.nodeName(f))
		}
		ch.Path, per, use = Weights, block.count, morphWeightsUse
		ch.FirstWeight, ch.Count = block.first, block.count
	default:
		return ch, fmt.Errorf("path %s is not supported", path)
	}
	perKey := per
	switch s.Interpolation {
	case gltf.InterpolationLinear:
		ch.Interpolation = Linear
	case gltf.InterpolationStep:
		ch.Interpolation = Step
	case gltf.InterpolationCubicSpline:
		ch.Interpolation, perKey = CubicSpline, 3*per
	default:
		return ch, fmt.Errorf("sampler %d: interpolation %s is not supported", si, s.Interpolation)
	}
	times, _, err := c.floats(s.Input, floatScalar)
	if err != nil {
		return ch, fmt.Errorf("sampler %d: input: %w", si, err)
	}
	for k, t := range times {
		if !finite(t) || t < 0 {
			return ch, fmt.Errorf("sampler %d: input: key %d at time %g", si, k, t)
		}
		if k > 0 && t < times[k-1] {
			return ch, fmt.Errorf("sampler %d: input: key %d at %g s comes before key %d at %g s", si, k, t, k-1, times[k-1])
		}
	}
	values, _, err := c.floats(s.Output, use)
	if err != nil {
		return ch, fmt.Errorf("sampler %d: output: %w", si, err)
	}
	if len(values) != len(times)*perKey {
		return ch, fmt.Errorf("sampler %d: output: %d values, %d keys of %d need %d", si, len(values), len(times), perKey, len(times)*perKey)
	}
	if !finite(values...) {
		return ch, fmt.Errorf("sampler %d: output: a value is not finite", si)
	}
	if ch.Path == Rotation {
		for k := range times {
			at := 4 * k
			if ch.Interpolation == CubicSpline {
				at = 12*k + 4
			}
			q := values[at : at+4]
			l := math.Sqrt(float64(q[0])*float64(q[0]) + float64(q[1])*float64(q[1]) + float64(q[2])*float64(q[2]) + float64(q[3])*float64(q[3]))
			if !(l > 1e-6) {
				return ch, fmt.Errorf("sampler %d: output: key %d's rotation %v is not a unit quaternion", si, k, q)
			}
			for i := range q {
				q[i] = float32(float64(q[i]) / l)
			}
		}
	}
	ch.Times, ch.Values = times, values
	return ch, nil
}
