package detmath

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

func TestSincosMatchesMath(t *testing.T) {
	for x := -1000.0; x <= 1000; x += 0.0137 {
		s, c := Sincos(x)
		if math.Abs(s-math.Sin(x)) > 1e-13 || math.Abs(c-math.Cos(x)) > 1e-13 {
			t.Fatalf("Sincos(%v) = %v, %v; math says %v, %v", x, s, c, math.Sin(x), math.Cos(x))
		}
	}
}

// TestGoldenBits pins exact results, so a build that fuses or reorders the
// arithmetic fails here (the CI runs the tests with GOAMD64=v1 and v3).
func TestGoldenBits(t *testing.T) {
	s, c := Sincos(2.5)
	q := Integrate(mgl32.QuatIdent(), mgl32.Vec3{1.1, -2.3, 0.7}, 1.0/60)
	for i := 0; i < 1000; i++ {
		q = Integrate(q, mgl32.Vec3{1.1, -2.3, 0.7}, 1.0/60)
	}
	got := [...]uint64{
		math.Float64bits(s), math.Float64bits(c),
		uint64(math.Float32bits(q.W)), uint64(math.Float32bits(q.V[0])),
		uint64(math.Float32bits(q.V[1])), uint64(math.Float32bits(q.V[2])),
		uint64(math.Float32bits(MulAdd(1.1, 3.3, 7.7))),
	}
	want := [...]uint64{0x3fe326af0dcfcab0, 0xbfe9a2f7ef858b7d, 0xbf7f8c0e, 0xbccaa5f0, 0x3d53daf1, 0xbc80f3e6, 0x413547ae}
	if got != want {
		t.Errorf("bits = %#x\nwant   %#x", got, want)
	}
}

// Mul composes rotations as mgl32's product does (which may fuse), and
// turning by a twelfth of a turn twelve times is a whole turn.
func TestMul(t *testing.T) {
	a := AxisAngle(mgl32.Vec3{0.6, 0.8, 0}, 1.3)
	b := AxisAngle(mgl32.Vec3{0, 0, 1}, -0.4)
	got, want := Mul(a, b), a.Mul(b)
	if d := got.Sub(want).Len(); d > 1e-6 {
		t.Errorf("Mul(a, b) = %v, mgl32 says %v", got, want)
	}
	step := AxisAngle(mgl32.Vec3{0.6, 0.8, 0}, math.Pi/6)
	q := mgl32.QuatIdent()
	for range 12 {
		q = Normalize(Mul(step, q))
	}
	if d := q.Dot(mgl32.QuatIdent()); math.Abs(float64(d)) < 1-1e-6 {
		t.Errorf("twelve twelfths of a turn = %v, want the identity up to sign", q)
	}
}

func TestIntegrateMatchesAxisAngle(t *testing.T) {
	w := mgl32.Vec3{0, 2, 0} // 2 rad/s about y
	q := mgl32.QuatIdent()
	for i := 0; i < 600; i++ { // 10 s at 60 Hz: 20 rad
		q = Integrate(q, w, 1.0/60)
	}
	want := AxisAngle(mgl32.Vec3{0, 1, 0}, 20)
	// First-order integration of a constant spin about a fixed axis keeps
	// the axis and only stretches the angle slightly: tan(h)/h per step.
	if d := q.Dot(want); math.Abs(float64(d)) < 0.99 {
		t.Errorf("after 10 s at 2 rad/s, q = %v, want near %v (dot %v)", q, want, d)
	}
	if n := q.Len(); math.Abs(float64(n)-1) > 1e-6 {
		t.Errorf("|q| = %v", n)
	}
}

func TestNormalizeHoldsUnitLength(t *testing.T) {
	for _, w := range []mgl32.Vec3{{0.1, 0, 0}, {3, -2, 1}, {0, 40, 0}} {
		q := mgl32.QuatIdent()
		for i := 0; i < 1_000_000; i++ {
			q = Integrate(q, w, 1.0/60)
		}
		if n := float64(q.Len()); math.Abs(n-1) > 1e-6 {
			t.Errorf("spin %v: |q| = %v after a million steps", w, n)
		}
	}
	if q := Normalize(mgl32.Quat{W: 2}); q != mgl32.QuatIdent() {
		t.Errorf("Normalize(2) = %v", q)
	}
	if q := Normalize(mgl32.Quat{}); q != mgl32.QuatIdent() {
		t.Errorf("Normalize(0) = %v", q)
	}
}
