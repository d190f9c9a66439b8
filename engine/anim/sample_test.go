package anim

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/zeebo/xxh3"

	"github.com/nebulaengine/nebula/engine/model"
)

// ns converts seconds to nanoseconds.
func ns(s float64) uint64 { return uint64(math.Round(s * 1e9)) }

// sameRotation reports whether q and r are the same rotation within tol
// (q or -q).
func sameRotation(q, r mgl32.Quat, tol float32) bool {
	d := q.Dot(r)
	return 1-float32(math.Abs(float64(d))) <= tol
}

func TestSampleVectors(t *testing.T) {
	lin := model.Channel{Path: model.Translation, Node: 0, Times: []float32{1, 2}, Values: []float32{0, 0, 0, 2, 4, 6}}
	step := model.Channel{Path: model.Scale, Interpolation: model.Step, Node: 0, Times: []float32{0, 1, 2},
		Values: []float32{1, 1, 1, 10, 10, 10, 20, 20, 20}}
	// Cubic from 0 to 1 over 2 s, with out-tangent 1 per second at the
	// first key and in-tangent 0 at the second: the first tangent scaled
	// by the 2 s interval.
	cubic := model.Channel{Path: model.Translation, Interpolation: model.CubicSpline, Node: 0, Times: []float32{0, 2},
		Values: []float32{
			9, 9, 9, 0, 0, 0, 1, 0, 0, // key 0: in-tangent (unused), value, out-tangent
			0, 0, 0, 1, 1, 1, 7, 7, 7, // key 1: in-tangent, value, out-tangent (unused)
		}}
	tests := []struct {
		name         string
		ch           model.Channel
		t            float64
		loop         bool
		wantT, wantS mgl32.Vec3
	}{
		{"linear before the first key", lin, 0.5, false, mgl32.Vec3{0, 0, 0}, mgl32.Vec3{1, 1, 1}},
		{"linear at the first key", lin, 1, false, mgl32.Vec3{0, 0, 0}, mgl32.Vec3{1, 1, 1}},
		{"linear halfway", lin, 1.5, false, mgl32.Vec3{1, 2, 3}, mgl32.Vec3{1, 1, 1}},
		{"linear a quarter", lin, 1.25, false, mgl32.Vec3{0.5, 1, 1.5}, mgl32.Vec3{1, 1, 1}},
		{"linear at the last key", lin, 2, false, mgl32.Vec3{2, 4, 6}, mgl32.Vec3{1, 1, 1}},
		{"linear held after the end", lin, 3, false, mgl32.Vec3{2, 4, 6}, mgl32.Vec3{1, 1, 1}},
		{"linear looped: 2.5 s is 0.5 s", lin, 2.5, true, mgl32.Vec3{0, 0, 0}, mgl32.Vec3{1, 1, 1}},
		{"linear looped: 3.5 s is 1.5 s", lin, 3.5, true, mgl32.Vec3{1, 2, 3}, mgl32.Vec3{1, 1, 1}},
		{"linear looped: the end is the start", lin, 2, true, mgl32.Vec3{0, 0, 0}, mgl32.Vec3{1, 1, 1}},
		{"step at 0", step, 0, false, mgl32.Vec3{}, mgl32.Vec3{1, 1, 1}},
		{"step before key 1", step, 0.999, false, mgl32.Vec3{}, mgl32.Vec3{1, 1, 1}},
		{"step at key 1", step, 1, false, mgl32.Vec3{}, mgl32.Vec3{10, 10, 10}},
		{"step before key 2", step, 1.75, false, mgl32.Vec3{}, mgl32.Vec3{10, 10, 10}},
		{"step at the end", step, 2, false, mgl32.Vec3{}, mgl32.Vec3{20, 20, 20}},
		// At u = 1/4: h00 = 27/32, h10 = 9/64 (times 2 s), h01 = 5/32.
		{"cubic at the first key", cubic, 0, false, mgl32.Vec3{0, 0, 0}, mgl32.Vec3{1, 1, 1}},
		{"cubic a quarter", cubic, 0.5, false, mgl32.Vec3{5.0/32 + 9.0/32, 5.0 / 32, 5.0 / 32}, mgl32.Vec3{1, 1, 1}},
		{"cubic halfway", cubic, 1, false, mgl32.Vec3{0.5 + 0.25, 0.5, 0.5}, mgl32.Vec3{1, 1, 1}},
		{"cubic at the last key", cubic, 2, false, mgl32.Vec3{1, 1, 1}, mgl32.Vec3{1, 1, 1}},
		{"cubic held after the end", cubic, 5, false, mgl32.Vec3{1, 1, 1}, mgl32.Vec3{1, 1, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := oneNode(2, 0, tt.ch)
			if err := Check(m); err != nil {
				t.Fatal(err)
			}
			var p LocalPose
			Sample(m, 0, ns(tt.t), tt.loop, &p)
			if p.Nodes[0].Pos != tt.wantT || p.Nodes[0].Scale != tt.wantS {
				t.Errorf("T %v S %v, want T %v S %v", p.Nodes[0].Pos, p.Nodes[0].Scale, tt.wantT, tt.wantS)
			}
			if p.Nodes[0].Rot != mgl32.QuatIdent() {
				t.Errorf("R %v, want the rest rotation", p.Nodes[0].Rot)
			}
		})
	}
}

func TestSampleRotations(t *testing.T) {
	z := mgl32.Vec3{0, 0, 1}
	q90 := axisAngle(z, 90)
	q170 := axisAngle(z, 170)
	lin := func(keys ...mgl32.Quat) model.Channel {
		return model.Channel{Path: model.Rotation, Node: 0, Times: []float32{0, 1}, Values: rotKeys(keys...)}
	}
	tests := []struct {
		name string
		ch   model.Channel
		t    float64
		want mgl32.Quat
		tol  float32
	}{
		{"first key exact", lin(mgl32.QuatIdent(), q90), 0, mgl32.QuatIdent(), 0},
		{"last key exact", lin(mgl32.QuatIdent(), q90), 1, q90, 0},
		{"halfway", lin(mgl32.QuatIdent(), q90), 0.5, axisAngle(z, 45), 1e-7},
		{"a quarter", lin(mgl32.QuatIdent(), q90), 0.25, axisAngle(z, 22.5), 1e-7},
		// -q90 is the same rotation: the shortest arc still turns 45
		// degrees, not the 315 the raw components would.
		{"halfway to -q", lin(mgl32.QuatIdent(), neg(q90)), 0.5, axisAngle(z, 45), 1e-7},
		{"from -q halfway", lin(neg(mgl32.QuatIdent()), q90), 0.5, axisAngle(z, 45), 1e-7},
		{"a wide turn (170 degrees) halfway", lin(mgl32.QuatIdent(), q170), 0.5, axisAngle(z, 85), 1e-7},
		{"a wide turn, a tenth", lin(mgl32.QuatIdent(), q170), 0.1, axisAngle(z, 17), 1e-7},
		{"step holds", model.Channel{Path: model.Rotation, Interpolation: model.Step, Node: 0, Times: []float32{0, 1},
			Values: rotKeys(mgl32.QuatIdent(), q90)}, 0.9, mgl32.QuatIdent(), 0},
		// A cubic rotation with zero tangents: component-wise smoothstep,
		// normalised; halfway between identity and q90 is exactly 45
		// degrees by symmetry.
		{"cubic halfway", model.Channel{Path: model.Rotation, Interpolation: model.CubicSpline, Node: 0, Times: []float32{0, 1},
			Values: append(append(append([]float32{0, 0, 0, 0}, rotKeys(mgl32.QuatIdent())...), 0, 0, 0, 0),
				append(append([]float32{0, 0, 0, 0}, rotKeys(q90)...), 0, 0, 0, 0)...)}, 0.5, axisAngle(z, 45), 1e-7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := oneNode(1, 0, tt.ch)
			if err := Check(m); err != nil {
				t.Fatal(err)
			}
			var p LocalPose
			Sample(m, 0, ns(tt.t), false, &p)
			got := p.Nodes[0].Rot
			if tt.tol == 0 && got != tt.want || tt.tol > 0 && !sameRotation(got, tt.want, tt.tol) {
				t.Errorf("R %v, want %v (within %g)", got, tt.want, tt.tol)
			}
			if l := got.Len(); math.Abs(float64(l)-1) > 1e-7 {
				t.Errorf("|R| = %v, want 1", l)
			}
		})
	}
}

func TestSampleWeights(t *testing.T) {
	// Weights 1 and 2 of 3 driven; weight 0 stays at rest (0.5).
	ch := model.Channel{Path: model.Weights, FirstWeight: 1, Count: 2, Times: []float32{0, 1, 2},
		Values: []float32{0, 0, 1, 0.5, 0, 1}}
	tests := []struct {
		t    float64
		want []float32
	}{
		{0, []float32{0.5, 0, 0}},
		{0.25, []float32{0.5, 0.25, 0.125}},
		{1, []float32{0.5, 1, 0.5}},
		{1.5, []float32{0.5, 0.5, 0.75}},
		{4, []float32{0.5, 0, 1}},
	}
	m := oneNode(2, 3, ch)
	var p LocalPose
	for _, tt := range tests {
		Sample(m, 0, ns(tt.t), false, &p)
		if !slices.Equal(p.Weights, tt.want) {
			t.Errorf("at %v s: weights %v, want %v", tt.t, p.Weights, tt.want)
		}
	}
	Sample(m, NoClip, 0, false, &p)
	if !slices.Equal(p.Weights, []float32{0.5, 0.5, 0.5}) || p.Nodes[0].Pos != (mgl32.Vec3{}) {
		t.Errorf("NoClip: %+v, want the rest pose", p)
	}
}

// TestSlerpWeights checks the series against the trigonometric form over
// the whole range of turns a shortest arc spans.
func TestSlerpWeights(t *testing.T) {
	worst := 0.0
	for ci := 0; ci <= 2000; ci++ {
		c := float32(ci) / 2000
		theta := math.Acos(float64(c))
		for ui := 0; ui <= 64; ui++ {
			u := float32(ui) / 64
			w0, w1 := slerpWeights(c, u)
			e0, e1 := 1-float64(u), float64(u)
			if theta > 0 {
				e0 = math.Sin((1-float64(u))*theta) / math.Sin(theta)
				e1 = math.Sin(float64(u)*theta) / math.Sin(theta)
			}
			worst = max(worst, math.Abs(float64(w0)-e0), math.Abs(float64(w1)-e1))
		}
	}
	if worst > 1.2e-7 {
		t.Errorf("slerp weights up to %g from the exact ones, want within 1.2e-7", worst)
	}
}

// TestSampleBits pins the bits of many samples of the chain's clip, and of
// blends between them: the same on every build (run it as GOARCH=arm64 and with GOAMD64=v3, where
// Go fuses multiply-adds that are not rounded explicitly).
func TestSampleBits(t *testing.T) {
	m := chain(16, 4, 12)
	// A cubic channel too.
	m.Clips[0].Channels = append(m.Clips[0].Channels, model.Channel{Path: model.Scale, Interpolation: model.CubicSpline, Node: 3,
		Times: []float32{0, 0.3, 1}, Values: []float32{
			0, 0, 0, 1, 1, 1, 0.3, -0.2, 0.1,
			0.5, 0.5, 0.5, 1.5, 0.7, 1.1, -0.4, 0.2, 0.3,
			0, 0, 0, 1, 1, 1, 0, 0, 0,
		}})
	var p, q, mix LocalPose
	h := xxh3.New()
	for k := range 997 {
		Sample(m, 0, uint64(k)*3_333_331, true, &p)
		// And Blend, from a pose a tick earlier, k/997 of the way.
		Sample(m, 0, uint64(k)*3_333_331+16_666_668, true, &q)
		Blend(&p, &q, float32(k)/997, &mix)
		p.Nodes, p.Weights = append(p.Nodes, mix.Nodes...), append(p.Weights, mix.Weights...)
		for i := range p.Nodes {
			for _, f := range [...]float32{p.Nodes[i].Pos[0], p.Nodes[i].Pos[1], p.Nodes[i].Pos[2], p.Nodes[i].Rot.W, p.Nodes[i].Rot.V[0], p.Nodes[i].Rot.V[1], p.Nodes[i].Rot.V[2], p.Nodes[i].Scale[0], p.Nodes[i].Scale[1], p.Nodes[i].Scale[2]} {
				b := math.Float32bits(f)
				h.Write([]byte{byte(b), byte(b >> 8), byte(b >> 16), byte(b >> 24)})
			}
		}
		for _, f := range p.Weights {
			b := math.Float32bits(f)
			h.Write([]byte{byte(b), byte(b >> 8), byte(b >> 16), byte(b >> 24)})
		}
	}
	const want uint64 = 0xd1f78e77852670cd
	if got := h.Sum64(); got != want {
		t.Errorf("samples hash to %#016x, want %#016x", got, want)
	}
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name   string
		change func(m *model.Model)
		want   string // "" for valid
	}{
		{"valid", func(m *model.Model) {}, ""},
		{"parent after", func(m *model.Model) { m.Nodes[1].Parent = 2 }, `model "chain": node 1: parent 2`},
		{"joint node", func(m *model.Model) { m.Palette[2].Node = 9 }, "palette joint 2: node 9 of 4"},
		{"palette too big", func(m *model.Model) { m.Palette = make([]model.Joint, model.MaxPalette+1) }, "257 palette matrices, at most 256"},
		{"weights too many", func(m *model.Model) { m.RestWeights = make([]float32, model.MaxWeights+1) }, "65 blend-shape weights, at most 64"},
		{"channel node", func(m *model.Model) { m.Clips[0].Channels[3].Node = 4 }, "clip 0 (wave) channel 3: node 4 of 4"},
		{"weights range", func(m *model.Model) { m.Clips[0].Channels[8].FirstWeight = 1 }, "channel 8: weights 1 to 2 of 2"},
		{"values short", func(m *model.Model) { ch := &m.Clips[0].Channels[0]; ch.Values = ch.Values[:len(ch.Values)-1] }, "channel 0: 11 values for 3 keys of 4"},
		{"cubic values", func(m *model.Model) { m.Clips[0].Channels[1].Interpolation = model.CubicSpline }, "channel 1: 9 values for 3 keys of 9"},
		{"times decrease", func(m *model.Model) { m.Clips[0].Channels[2].Times = []float32{0, 0.5, 0.5} }, "channel 2: key 2 at 0.5 s"},
		{"time NaN", func(m *model.Model) { m.Clips[0].Channels[2].Times = []float32{0, float32(math.NaN()), 1} }, "key 1 at NaN s"},
		{"no keys", func(m *model.Model) { m.Clips[0].Channels[2].Times, m.Clips[0].Channels[2].Values = nil, nil }, "channel 2: no keys"},
		{"duration", func(m *model.Model) { m.Clips[0].Duration = float32(math.Inf(1)) }, "clip 0 (wave): duration +Inf s"},
		{"value NaN", func(m *model.Model) { m.Clips[0].Channels[1].Values[4] = float32(math.NaN()) }, "channel 1: value 4 (key 1) is NaN"},
		{"path", func(m *model.Model) { m.Clips[0].Channels[0].Path = 7 }, "channel 0: path 7 unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := chain(4, 2, 2)
			tt.change(m)
			err := Check(m)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Check: %v, want nil", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("Check: %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

// TestNlerpNearSlerp bounds what nlerp, used for keys and ticks less than
// nlerpMinDot apart, differs from the slerp.
func TestNlerpNearSlerp(t *testing.T) {
	half := math.Acos(nlerpMinDot) // the widest half angle nlerp is used for
	a := mgl32.QuatIdent()
	b := mgl32.Quat{W: float32(math.Cos(half)), V: mgl32.Vec3{0, float32(math.Sin(half)), 0}}
	worst := 0.0
	for k := 1; k < 100; k++ {
		u := float32(k) / 100
		var q mgl32.Quat
		q.W, q.V[0], q.V[1], q.V[2] = blendQuat(a.W, a.V[0], a.V[1], a.V[2], b.W, b.V[0], b.V[1], b.V[2], 1-u, u)
		got := 2 * math.Atan2(float64(q.V[1]), float64(q.W))
		worst = max(worst, math.Abs(got-2*half*float64(u)))
	}
	if worst > 5e-6 {
		t.Errorf("nlerp up to %g radians from the slerp, want within 5e-6", worst)
	}
	if worst < 1e-6 {
		t.Errorf("nlerp within %g radians of the slerp: the test does not reach the nlerp", worst)
	}
}
