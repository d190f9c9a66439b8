package physics

import (
	"math"
	"testing"
)

// TestSinCosHalf checks the series behind quat.integrate against the
// standard library's sine and cosine, in float64, over turns of up to 20
// rad (the halving and doubling included): within 1e-6 up to 1 rad, where
// no halving is needed (200 rad/s at 240 substeps a second turns by 0.42
// rad), and 1e-5 past it, where each doubling doubles the rounding.
func TestSinCosHalf(t *testing.T) {
	for i := 0; i <= 20000; i++ {
		x := float64(i) * 0.001
		x2 := float32(x * x)
		xf := math.Sqrt(float64(x2)) // the angle x2 stands for
		sinc, c := sinCosHalf(x2)
		want := 1.0
		if xf > 0 {
			want = math.Sin(xf) / xf
		}
		tol := 1e-6
		if xf > 1 {
			tol = 1e-5
		}
		if d := math.Abs(float64(sinc)*xf - want*xf); d > tol {
			t.Fatalf("x = %v: sin %v, want %v", xf, float64(sinc)*xf, want*xf)
		}
		if d := math.Abs(float64(c) - math.Cos(xf)); d > tol {
			t.Fatalf("x = %v: cos %v, want %v", xf, c, math.Cos(xf))
		}
	}
}

// TestIntegrateExactTurn: a body turning at 200 rad/s about a tilted axis
// for a second in 240 substeps ends where the exact rotation puts it
// (a first-order step drifts by 1e-2 here).
func TestIntegrateExactTurn(t *testing.T) {
	axis := vec3{1, 2, 2}.scale(1.0 / 3)
	w := axis.scale(200)
	q := identity
	for range 240 {
		q = q.integrate(w, 1.0/240)
	}
	s, c := math.Sincos(200.0 / 2)
	want := quat{float32(float64(axis.x) * s), float32(float64(axis.y) * s), float32(float64(axis.z) * s), float32(c)}
	d := quat{q.x - want.x, q.y - want.y, q.z - want.z, q.w - want.w}
	if d.lengthSq() > 1e-8 {
		t.Errorf("after 1 s at 200 rad/s: %v, want %v", q, want)
	}
}

// TestConfigPenetrationSlop: a negative or non-finite slop is refused.
func TestConfigPenetrationSlop(t *testing.T) {
	for _, v := range []float32{-0.01, float32(math.Inf(1)), float32(math.NaN())} {
		c := DefaultConfig()
		c.PenetrationSlop = v
		if err := c.validate(); err == nil {
			t.Errorf("slop %v accepted", v)
		}
	}
}
