package geom

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

// Half turns about the axes: quaternions of 0s and 1s, with which every
// product below is exact.
var (
	halfX = mgl32.Quat{W: 0, V: mgl32.Vec3{1, 0, 0}}
	halfY = mgl32.Quat{W: 0, V: mgl32.Vec3{0, 1, 0}}
	halfZ = mgl32.Quat{W: 0, V: mgl32.Vec3{0, 0, 1}}
)

// Composition, application, inverse and the relative transform are exact
// where the arithmetic is: half turns, powers of two.
func TestTransformExact(t *testing.T) {
	parent := Transform{Pos: mgl32.Vec3{1, 2, 3}, Rot: halfZ, Scale: mgl32.Vec3{2, 2, 2}}
	child := Transform{Pos: mgl32.Vec3{1, 0, 0}, Rot: halfX, Scale: mgl32.Vec3{0.5, 0.5, 0.5}}
	got := parent.Mul(child)
	want := Transform{Pos: mgl32.Vec3{-1, 2, 3}, Rot: halfY, Scale: mgl32.Vec3{1, 1, 1}}
	if got != want {
		t.Errorf("Mul = %+v, want %+v", got, want)
	}
	if p := parent.Apply(mgl32.Vec3{0, 1, 0.5}); p != (mgl32.Vec3{1, 0, 4}) {
		t.Errorf("Apply = %v, want [1 0 4]", p)
	}
	inv := parent.Inverse()
	if id := parent.Mul(inv); id != NewTransform(mgl32.Vec3{}) {
		t.Errorf("t.Mul(t.Inverse()) = %+v, want the identity", id)
	}
	if id := inv.Mul(parent); id.Pos != (mgl32.Vec3{}) || id.Scale != (mgl32.Vec3{1, 1, 1}) || math.Abs(float64(id.Rot.W)) != 1 {
		t.Errorf("t.Inverse().Mul(t) = %+v, want the identity", id)
	}
	if l := parent.Relative(got); l != child {
		t.Errorf("Relative(Mul(child)) = %+v, want the child %+v", l, child)
	}
	// The identity changes nothing, bit for bit, whatever the values.
	r := rand.New(rand.NewPCG(1, 2))
	id := NewTransform(mgl32.Vec3{})
	for range 1000 {
		x := randTransform(r)
		if a, b := id.Mul(x), x; a != b {
			t.Fatalf("identity.Mul(%+v) = %+v", x, a)
		}
		if a := id.Apply(x.Pos); a != x.Pos {
			t.Fatalf("identity.Apply(%v) = %v", x.Pos, a)
		}
	}
	// A zero scale has no inverse: 0, not an infinity.
	flat := Transform{Pos: mgl32.Vec3{1, 1, 1}, Rot: mgl32.QuatIdent(), Scale: mgl32.Vec3{2, 0, 1}}
	if s := flat.Inverse().Scale; s != (mgl32.Vec3{0.5, 0, 1}) {
		t.Errorf("Inverse of scale [2 0 1]: scale %v, want [0.5 0 1]", s)
	}
}

// Mul, Relative and Inverse agree with float64 arithmetic to float32
// precision on arbitrary transforms (non-uniform scales included for
// Relative, uniform ones for Inverse on both sides).
func TestTransformAccuracy(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		p, c := randTransform(r), randTransform(r)
		got := p.Mul(c)
		// float64 reference: p.Pos + R(p.Rot) (p.Scale*c.Pos).
		m := p.Rot.Mat4()
		var ref [3]float64
		for i := range 3 {
			ref[i] = float64(p.Pos[i])
			for j := range 3 {
				ref[i] += float64(m.At(i, j)) * float64(p.Scale[j]) * float64(c.Pos[j])
			}
			if d := math.Abs(ref[i] - float64(got.Pos[i])); d > 1e-4 {
				t.Fatalf("Mul position %d: %v, float64 %v", i, got.Pos[i], ref[i])
			}
		}
		if !near(got.Rot, p.Rot.Mul(c.Rot), 1e-6) {
			t.Fatalf("Mul rotation %v, mgl32 %v", got.Rot, p.Rot.Mul(c.Rot))
		}
		back := p.Mul(p.Relative(got))
		if back.Pos.Sub(got.Pos).Len() > 1e-4 || !near(back.Rot, got.Rot, 1e-6) || back.Scale.Sub(got.Scale).Len() > 1e-5 {
			t.Fatalf("p.Mul(p.Relative(w)) = %+v, want w = %+v", back, got)
		}
		u := p
		u.Scale = mgl32.Vec3{p.Scale[0], p.Scale[0], p.Scale[0]}
		for _, id := range []Transform{u.Mul(u.Inverse()), u.Inverse().Mul(u)} {
			if id.Pos.Len() > 2e-6*u.Pos.Len()*(1+1/u.Scale[0]) || math.Abs(float64(id.Rot.W)) < 1-1e-6 || id.Scale.Sub(mgl32.Vec3{1, 1, 1}).Len() > 1e-6 {
				t.Fatalf("uniform %+v: inverse composed %+v, want the identity", u, id)
			}
		}
	}
}

// The results are pinned bit for bit: a build that fused a multiply and an
// add (GOAMD64=v3, arm64) would change them.
func TestTransformBits(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var sum uint64
	for range 1000 {
		p, c := randTransform(r), randTransform(r)
		for _, x := range []Transform{p.Mul(c), p.Inverse(), p.Relative(c)} {
			for _, f := range []float32{x.Pos[0], x.Pos[1], x.Pos[2], x.Rot.W, x.Rot.V[0], x.Rot.V[1], x.Rot.V[2], x.Scale[0], x.Scale[1], x.Scale[2]} {
				sum = sum*31 + uint64(math.Float32bits(f))
			}
		}
	}
	const want = 0xe91b03f25949e638
	if sum != want {
		t.Errorf("checksum of the bits %#x, want %#x", sum, uint64(want))
	}
}

// near reports whether a and b differ by at most eps in every component.
func near(a, b mgl32.Quat, eps float64) bool {
	return math.Abs(float64(a.W-b.W)) <= eps && a.V.Sub(b.V).Len() <= float32(eps)
}

// randTransform returns a transform with a unit rotation, coordinates in
// [-10, 10) and scales in [0.25, 4).
func randTransform(r *rand.Rand) Transform {
	f := func(lo, hi float64) float32 { return float32(lo + float64((hi-lo)*r.Float64())) }
	// Normalised in float64, which no build fuses differently.
	w, x, y, z := 2*r.Float64()-1, 2*r.Float64()-1, 2*r.Float64()-1, 2*r.Float64()-1
	n := math.Sqrt(float64(w*w) + float64(x*x) + float64(y*y) + float64(z*z))
	q := mgl32.Quat{W: float32(w / n), V: mgl32.Vec3{float32(x / n), float32(y / n), float32(z / n)}}
	return Transform{
		Pos:   mgl32.Vec3{f(-10, 10), f(-10, 10), f(-10, 10)},
		Rot:   q,
		Scale: mgl32.Vec3{f(0.25, 4), f(0.25, 4), f(0.25, 4)},
	}
}

func BenchmarkMul(b *testing.B) {
	r := rand.New(rand.NewPCG(7, 8))
	p, c := randTransform(r), randTransform(r)
	for b.Loop() {
		c = p.Mul(c)
		c.Pos = mgl32.Vec3{1, 2, 3}
	}
}
