package anim

import (
	"github.com/nebulaengine/nebula/engine/geom"

	"math"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine/detmath"
	"github.com/nebulaengine/nebula/engine/model"
)

// Test models, made in code.

// axisAngle returns the rotation by deg degrees about the unit axis, the
// same bits on every build (the models made with it are the same).
func axisAngle(axis mgl32.Vec3, deg float64) mgl32.Quat {
	return detmath.AxisAngle(axis, float64(deg*math.Pi)/180)
}

// sin is the sine of x radians, the same bits on every build.
func sin(x float64) float64 {
	s, _ := detmath.Sincos(x)
	return s
}

// rotKeys lays out rotations as glTF keys: x y z w each.
func rotKeys(qs ...mgl32.Quat) []float32 {
	var v []float32
	for _, q := range qs {
		v = append(v, q.V[0], q.V[1], q.V[2], q.W)
	}
	return v
}

// neg returns -q, the same rotation.
func neg(q mgl32.Quat) mgl32.Quat { return mgl32.Quat{W: -q.W, V: q.V.Mul(-1)} }

// oneNode is a model of one node (at the origin, at rest) with one
// palette joint, weights blend-shape weights at rest (all 0.5) and one
// clip of the given channels lasting dur seconds.
func oneNode(dur float32, weights int, chans ...model.Channel) *model.Model {
	rest := make([]float32, weights)
	for i := range rest {
		rest[i] = 0.5
	}
	return &model.Model{
		Name:        "one",
		Nodes:       []model.Node{{Name: "n", Parent: -1, Rest: geom.NewTransform(mgl32.Vec3{})}},
		Palette:     []model.Joint{{Node: 0, InverseBind: mgl32.Ident4()}},
		RestWeights: rest,
		Clips:       []model.Clip{{Name: "c", Duration: dur, Channels: chans}},
	}
}

// chain is a model of n bones, each a child of the one before, one unit up
// the Y axis from it at rest, with one palette joint per bone (inverse bind
// matrices that make the rest palette the identity) and weights blend
// weights at rest 0. Its clip 0, "wave", lasting 1 s and looping, has per
// bone linear rotation keys (a sway about Z of up to 20 degrees, phase
// shifted along the chain), translation keys (a small stretch along Y),
// and one weights channel over all the weights; keys every 1/keys s.
func chain(n, weights, keys int) *model.Model {
	m := &model.Model{Name: "chain", RestWeights: make([]float32, weights)}
	for i := range n {
		p := i - 1
		pos := mgl32.Vec3{0, 1, 0}
		if i == 0 {
			pos = mgl32.Vec3{}
		}
		m.Nodes = append(m.Nodes, model.Node{Parent: p, Rest: geom.NewTransform(pos)})
		m.Palette = append(m.Palette, model.Joint{Node: i, InverseBind: mgl32.Translate3D(0, -float32(i), 0)})
	}
	times := make([]float32, keys+1)
	for k := range times {
		times[k] = float32(k) / float32(keys)
	}
	clip := model.Clip{Name: "wave", Duration: 1}
	for i := range n {
		var rot, tr []float32
		for k := range times {
			ph := 2 * math.Pi * (float64(k)/float64(keys) + float64(i)/float64(n))
			rot = append(rot, rotKeys(axisAngle(mgl32.Vec3{0, 0, 1}, 20*sin(ph)))...)
			y := float32(1)
			if i == 0 {
				y = 0
			}
			tr = append(tr, 0, y+float32(0.1*float32(sin(ph+math.Pi/2))), 0)
		}
		clip.Channels = append(clip.Channels,
			model.Channel{Path: model.Rotation, Node: i, Times: times, Values: rot},
			model.Channel{Path: model.Translation, Node: i, Times: times, Values: tr})
	}
	if weights > 0 {
		var wv []float32
		for k := range times {
			for j := range weights {
				wv = append(wv, float32(0.5+float64(0.5*sin(2*math.Pi*(float64(k)/float64(keys)+float64(j)/float64(weights))))))
			}
		}
		clip.Channels = append(clip.Channels, model.Channel{Path: model.Weights, FirstWeight: 0, Count: weights, Times: times, Values: wv})
	}
	m.Clips = append(m.Clips, clip)
	return m
}
