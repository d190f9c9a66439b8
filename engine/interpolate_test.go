package engine

import (
	"github.com/nebulaengine/nebula/engine/geom"

	"github.com/nebulaengine/nebula/engine/render"

	"fmt"
	"math"
	"strings"
	"testing"
	"unsafe"

	"github.com/go-gl/mathgl/mgl32"
)

const testTickDT = float32(1.0 / 60)

// rotZ returns the rotation by deg degrees about +Z.
func rotZ(deg float64) mgl32.Quat {
	return mgl32.QuatRotate(float32(deg*math.Pi/180), mgl32.Vec3{0, 0, 1})
}

// quatAngle returns the shortest-arc angle, in radians, between the
// rotations a and b. It works in float64 from the relative rotation
// conj(a)*b, so it stays precise for tiny angles (acos of a float32 dot
// product near 1 does not).
func quatAngle(a, b mgl32.Quat) float64 {
	aw, ax, ay, az := float64(a.W), float64(a.V[0]), float64(a.V[1]), float64(a.V[2])
	bw, bx, by, bz := float64(b.W), float64(b.V[0]), float64(b.V[1]), float64(b.V[2])
	w := aw*bw + ax*bx + ay*by + az*bz
	x := aw*bx - ax*bw - ay*bz + az*by
	y := aw*by - ay*bw - az*bx + ax*bz
	z := aw*bz - az*bw - ax*by + ay*bx
	return 2 * math.Atan2(math.Sqrt(x*x+y*y+z*z), math.Abs(w))
}

// vecNear reports whether a and b differ by at most eps in every component.
// (mgl32's ApproxEqualThreshold is relative, which fails next to 0.)
func vecNear(a, b mgl32.Vec3, eps float32) bool {
	for i := range a {
		if !(math.Abs(float64(a[i]-b[i])) <= float64(eps)) {
			return false
		}
	}
	return true
}

// sameRotation reports whether a and b are the same rotation within eps
// radians (q and -q are the same rotation).
func sameRotation(a, b mgl32.Quat, eps float64) bool {
	return quatAngle(a, b) <= eps
}

// oneBody returns a world holding one entity that was at from before tick 1
// and is at to after it.
func oneBody(mode DrawMode, from, to geom.Transform) (*World, Entity) {
	w := NewWorld(1)
	e := w.Spawn(from, mode)
	w.BeginTick(1)
	w.SetTransform(e, to)
	return w, e
}

// draw interpolates w with the default config and returns the single
// instance drawn, failing unless exactly one was.
func draw(t *testing.T, w *World, alpha float32, cfg InterpolationConfig, buf *RenderBuffer) render.Instance {
	t.Helper()
	w.Interpolate(alpha, testTickDT, cfg, buf)
	if len(buf.Instances) != 1 || len(buf.Entities) != 1 {
		t.Fatalf("drew %d instances and %d entities, want 1", len(buf.Instances), len(buf.Entities))
	}
	return buf.Instances[0]
}

func TestDefaultInterpolationConfig(t *testing.T) {
	c := DefaultInterpolationConfig()
	want := InterpolationConfig{Enabled: true, SnapDistance: 10, SnapAngle: math.Pi / 2}
	if c != want {
		t.Errorf("DefaultInterpolationConfig() = %+v, want %+v", c, want)
	}
	if err := c.Validate(); err != nil {
		t.Errorf("default config is invalid: %v", err)
	}
}

func TestInstanceLayout(t *testing.T) {
	// The renderer uploads []render.Instance as is; its attribute offsets and
	// stride depend on exactly this layout.
	var in render.Instance
	got := []uintptr{unsafe.Sizeof(in), unsafe.Alignof(in),
		unsafe.Offsetof(in.Pos), unsafe.Offsetof(in.Rot), unsafe.Offsetof(in.Rot) + unsafe.Offsetof(in.Rot.W),
		unsafe.Offsetof(in.Rot) + unsafe.Offsetof(in.Rot.V),
		unsafe.Offsetof(in.Scale), unsafe.Offsetof(in.Color), unsafe.Offsetof(in.Mesh), unsafe.Offsetof(in.Pose),
		unsafe.Offsetof(in.Emissive)}
	want := []uintptr{64, 4, 0, 12, 12, 16, 28, 40, 44, 46, 48}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("size, align, offsets of Pos, Rot, Rot.W, Rot.V, Scale, Color, Mesh, Pose, Emissive = %v, want %v", got, want)
	}
}

// rotAxis returns the rotation by deg degrees about (1, 2, 3).
func rotAxis(deg float64) mgl32.Quat {
	return mgl32.QuatRotate(float32(deg*math.Pi/180), mgl32.Vec3{1, 2, 3}.Normalize())
}

func TestInterpolateBetweenTicks(t *testing.T) {
	// Both rotations are a little off unit length, as integration leaves
	// them, so "exactly" below really means no renormalisation at the ends.
	from := geom.Transform{Pos: mgl32.Vec3{1, 2, 3}, Rot: rotAxis(20).Scale(1 + 2e-6), Scale: mgl32.Vec3{1, 1, 1}}
	to := geom.Transform{Pos: mgl32.Vec3{3, -2, 4}, Rot: rotAxis(50).Scale(1 - 2e-6), Scale: mgl32.Vec3{2, 3, 0.5}}
	tests := []struct {
		name  string
		alpha float32
		want  geom.Transform
		eps   float32 // 0: exact
	}{
		{"alpha 0 is the previous state exactly", 0, from, 0},
		{"alpha 1 is the current state exactly", 1, to, 0},
		{"alpha near 1 is the current state", 0.999999, to, 1e-5},
		{"alpha 0.5 is the midpoint", 0.5,
			geom.Transform{Pos: mgl32.Vec3{2, 0, 3.5}, Rot: rotAxis(35), Scale: mgl32.Vec3{1.5, 2, 0.75}}, 1e-6},
		{"alpha 0.25", 0.25,
			geom.Transform{Pos: mgl32.Vec3{1.5, 1, 3.25}, Rot: rotAxis(27.5), Scale: mgl32.Vec3{1.25, 1.5, 0.875}}, 1e-6},
	}
	// Hermite with a constant velocity, the one that covers the move in one
	// tick, follows the same straight line at the same speed as lerp.
	vel := to.Pos.Sub(from.Pos).Mul(1 / testTickDT)
	for _, mode := range []DrawMode{Interpolate, Hermite} {
		for _, tt := range tests {
			t.Run(mode.String()+"/"+tt.name, func(t *testing.T) {
				w := NewWorld(1)
				e := w.Spawn(from, mode)
				w.SetDrawVelocity(e, vel, mgl32.Vec3{})
				w.BeginTick(1)
				w.SetTransform(e, to)
				var buf RenderBuffer
				got := draw(t, w, tt.alpha, DefaultInterpolationConfig(), &buf)
				if tt.eps == 0 {
					if got.Pos != tt.want.Pos || got.Rot != tt.want.Rot || got.Scale != tt.want.Scale {
						t.Errorf("got %v %v %v, want exactly %v %v %v",
							got.Pos, got.Rot, got.Scale, tt.want.Pos, tt.want.Rot, tt.want.Scale)
					}
				} else if !vecNear(got.Pos, tt.want.Pos, tt.eps) || !sameRotation(got.Rot, tt.want.Rot, float64(tt.eps)) ||
					!vecNear(got.Scale, tt.want.Scale, tt.eps) {
					t.Errorf("got %v %v %v, want %v %v %v within %g",
						got.Pos, got.Rot, got.Scale, tt.want.Pos, tt.want.Rot, tt.want.Scale, tt.eps)
				}
				if l := got.Rot.Len(); tt.alpha > 0 && tt.alpha < 1 && math.Abs(float64(l)-1) > 2e-7 {
					t.Errorf("rotation is not unit length: %v", l)
				}
				if buf.Snaps != 0 {
					t.Errorf("Snaps = %d, want 0", buf.Snaps)
				}
			})
		}
	}
}

func TestSlerpTakesTheShortestArc(t *testing.T) {
	tests := []struct {
		name     string
		prev     mgl32.Quat
		cur      mgl32.Quat // the same rotation as curRot, possibly negated
		fromDeg  float64
		toDeg    float64
		longPath bool // the angle is large enough for the full slerp
	}{
		{"small turn, nlerp, no sign flip", rotZ(10), rotZ(12), 10, 12, false},
		{"small turn, nlerp, sign flip", rotZ(10), rotZ(12).Scale(-1), 10, 12, false},
		{"large turn, slerp, no sign flip", rotZ(-30), rotZ(50), -30, 50, true},
		{"large turn, slerp, sign flip", rotZ(-30), rotZ(50).Scale(-1), -30, 50, true},
		{"across 180 degrees, sign flip", rotZ(170), rotZ(-170), 170, 190, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, _ := oneBody(Interpolate, geom.Transform{Rot: tt.prev}, geom.Transform{Rot: tt.cur})
			span := quatAngle(tt.prev, tt.cur)
			if got := math.Abs(float64(tt.prev.Dot(tt.cur))) < nlerpMinDot; got != tt.longPath {
				t.Fatalf("test setup: full slerp path = %v, want %v", got, tt.longPath)
			}
			var buf RenderBuffer
			for k := 0; k <= 20; k++ {
				alpha := float32(k) / 20
				got := draw(t, w, alpha, DefaultInterpolationConfig(), &buf).Rot
				if a := quatAngle(tt.prev, got); a > span+1e-5 {
					t.Errorf("alpha %v: %.4f rad from prev, more than the %.4f rad between prev and cur: went the long way",
						alpha, a, span)
				}
				want := rotZ(tt.fromDeg + float64(alpha)*(tt.toDeg-tt.fromDeg))
				if !sameRotation(got, want, 2e-5) {
					t.Errorf("alpha %v: rotation %v is %.2g rad from the expected %v",
						alpha, got, quatAngle(got, want), want)
				}
			}
		})
	}
}

func TestInterpolateMatchesMathglSlerp(t *testing.T) {
	// Random pairs of rotations within the snap angle, over both the nlerp
	// and the slerp paths: the result is mgl32.QuatSlerp's rotation.
	rng := NewRNG(7)
	randQuat := func() mgl32.Quat {
		axis := mgl32.Vec3{rng.Range(-1, 1), rng.Range(-1, 1), rng.Range(-1, 1)}.Normalize()
		return mgl32.QuatRotate(rng.Range(0, 2*math.Pi), axis)
	}
	var buf RenderBuffer
	for k := 0; k < 2000; k++ {
		prev := randQuat()
		axis := mgl32.Vec3{rng.Range(-1, 1), rng.Range(-1, 1), rng.Range(-1, 1)}.Normalize()
		turn := rng.Range(0, 1.5) // radians, below the default snap angle
		if k%2 == 0 {
			turn = rng.Range(0, 0.07) // mostly the nlerp path
		}
		cur := mgl32.QuatRotate(turn, axis).Mul(prev)
		if k%3 == 0 {
			cur = cur.Scale(-1)
		}
		alpha := rng.Float32()
		w, _ := oneBody(Interpolate, geom.Transform{Rot: prev}, geom.Transform{Rot: cur})
		got := draw(t, w, alpha, DefaultInterpolationConfig(), &buf).Rot
		want := mgl32.QuatSlerp(prev, cur, alpha)
		if !sameRotation(got, want, 1e-4) || buf.Snaps != 0 {
			t.Fatalf("prev %v cur %v alpha %v: got %v, mathgl %v (%.2g rad apart), snaps %d",
				prev, cur, alpha, got, want, quatAngle(got, want), buf.Snaps)
		}
	}
}

func TestSlerpWeights(t *testing.T) {
	// Both ways of computing the weights, the series and acos/sincos,
	// against the exact sin((1-t)θ)/sin θ and sin(tθ)/sin θ in float64.
	for _, tt := range []struct {
		lo, hi, maxErr float64
	}{
		{slerpSeriesMinDot, nlerpMinDot, 1e-7}, // the series
		{0, slerpSeriesMinDot, 1e-7},           // acos and sincos
	} {
		worst := 0.0
		for j := 0; j <= 400; j++ {
			c := float32(tt.lo + (tt.hi-tt.lo)*float64(j)/400)
			if float64(c) >= tt.hi {
				continue
			}
			theta := math.Acos(float64(c))
			for k := 0; k <= 100; k++ {
				u := float32(k) / 100
				w0, w1 := slerpWeights(c, u)
				want0 := math.Sin((1-float64(u))*theta) / math.Sin(theta)
				want1 := math.Sin(float64(u)*theta) / math.Sin(theta)
				worst = max(worst, math.Abs(float64(w0)-want0), math.Abs(float64(w1)-want1))
			}
		}
		if worst > tt.maxErr {
			t.Errorf("|dot| in [%v, %v): weights off by up to %.3g, want <= %g", tt.lo, tt.hi, worst, tt.maxErr)
		}
	}
}

func TestInvSqrtNearOne(t *testing.T) {
	for _, x := range []float32{1, 0.99975, 1 - 1.0/2048, 1 + 1.0/2048, 0.5, 2, 1e-6, 0, -1} {
		want := 1.0
		if x > 0 {
			want = 1 / math.Sqrt(float64(x))
		}
		if got := float64(invSqrtNearOne(x)); math.Abs(got-want)/want > 1e-7 {
			t.Errorf("invSqrtNearOne(%v) = %v, want %v", x, got, want)
		}
	}
}

func TestTeleportIsNeverDrawnInBetween(t *testing.T) {
	w := NewWorld(1)
	e := w.Spawn(geom.NewTransform(mgl32.Vec3{0, 0, 0}), Interpolate)
	other := w.Spawn(geom.NewTransform(mgl32.Vec3{5, 0, 0}), Interpolate)
	w.BeginTick(1)
	// A short jump, well under every automatic threshold.
	dest := geom.Transform{Pos: mgl32.Vec3{1, 0, 0}, Rot: rotZ(20), Scale: mgl32.Vec3{2, 2, 2}}
	w.Teleport(e, dest)
	w.SetTransform(other, geom.NewTransform(mgl32.Vec3{6, 0, 0}))

	var buf RenderBuffer
	frames := 0
	for k := 0; k <= 20; k++ {
		alpha := float32(k) / 20
		w.Interpolate(alpha, testTickDT, DefaultInterpolationConfig(), &buf)
		frames++
		got := buf.Instances[0]
		if buf.Entities[0] != e || got.Pos != dest.Pos || got.Rot != dest.Rot || got.Scale != dest.Scale {
			t.Errorf("alpha %v: teleported entity %v drawn at %v %v %v, want exactly %v %v %v",
				alpha, buf.Entities[0], got.Pos, got.Rot, got.Scale, dest.Pos, dest.Rot, dest.Scale)
		}
		if want := (mgl32.Vec3{5 + alpha, 0, 0}); !vecNear(buf.Instances[1].Pos, want, 1e-6) {
			t.Errorf("alpha %v: the other entity is drawn at %v, want %v", alpha, buf.Instances[1].Pos, want)
		}
		// Drawn snapped on every frame, counted in the total once.
		if buf.Snaps != 1 || buf.TotalSnaps != 1 {
			t.Errorf("alpha %v: Snaps %d TotalSnaps %d, want 1 and 1", alpha, buf.Snaps, buf.TotalSnaps)
		}
	}

	// The next tick starts from the teleport's destination: nothing snaps.
	w.BeginTick(2)
	w.SetTransform(e, geom.Transform{Pos: mgl32.Vec3{2, 0, 0}, Rot: rotZ(20), Scale: mgl32.Vec3{2, 2, 2}})
	w.Interpolate(0.5, testTickDT, DefaultInterpolationConfig(), &buf)
	if got, want := buf.Instances[0].Pos, (mgl32.Vec3{1.5, 0, 0}); got != want || buf.Snaps != 0 {
		t.Errorf("tick after the teleport: drawn at %v with %d snaps, want %v and 0", got, buf.Snaps, want)
	}
	if buf.TotalSnaps != 1 {
		t.Errorf("TotalSnaps = %d after %d frames of one teleport, want 1", buf.TotalSnaps, frames)
	}
}

func TestAutomaticSnapThresholds(t *testing.T) {
	def := DefaultInterpolationConfig()
	noAuto := InterpolationConfig{Enabled: true} // both thresholds 0: off
	tests := []struct {
		name string
		cfg  InterpolationConfig
		to   geom.Transform
		snap bool
	}{
		{"just beyond the distance", def, geom.NewTransform(mgl32.Vec3{10.001, 0, 0}), true},
		{"just under the distance", def, geom.NewTransform(mgl32.Vec3{9.999, 0, 0}), false},
		{"diagonal beyond the distance", def, geom.NewTransform(mgl32.Vec3{6, 6, 6}), true},       // 10.39
		{"diagonal under the distance", def, geom.NewTransform(mgl32.Vec3{5.7, 5.7, 5.7}), false}, // 9.87
		{"custom distance", InterpolationConfig{Enabled: true, SnapDistance: 2}, geom.NewTransform(mgl32.Vec3{0, 0, -2.1}), true},
		{"distance check off", noAuto, geom.NewTransform(mgl32.Vec3{1000, 0, 0}), false},
		{"beyond the angle", def, geom.Transform{Rot: rotZ(91), Scale: mgl32.Vec3{1, 1, 1}}, true},
		{"under the angle", def, geom.Transform{Rot: rotZ(89), Scale: mgl32.Vec3{1, 1, 1}}, false},
		{"under the angle, negated quaternion", def, geom.Transform{Rot: rotZ(89).Scale(-1), Scale: mgl32.Vec3{1, 1, 1}}, false},
		{"beyond the angle, negated quaternion", def, geom.Transform{Rot: rotZ(91).Scale(-1), Scale: mgl32.Vec3{1, 1, 1}}, true},
		{"custom angle", InterpolationConfig{Enabled: true, SnapAngle: 0.1}, geom.Transform{Rot: rotZ(6), Scale: mgl32.Vec3{1, 1, 1}}, true},
		{"angle check off", noAuto, geom.Transform{Rot: rotZ(179), Scale: mgl32.Vec3{1, 1, 1}}, false},
		{"angle of pi is off", InterpolationConfig{Enabled: true, SnapAngle: math.Pi}, geom.Transform{Rot: rotZ(179), Scale: mgl32.Vec3{1, 1, 1}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			from := geom.NewTransform(mgl32.Vec3{})
			w, _ := oneBody(Interpolate, from, tt.to)
			var buf RenderBuffer
			got := draw(t, w, 0.5, tt.cfg, &buf)
			want := tt.to
			if !tt.snap {
				want.Pos = tt.to.Pos.Mul(0.5)
				want.Rot = mgl32.QuatSlerp(from.Rot, tt.to.Rot, 0.5)
			}
			if !vecNear(got.Pos, want.Pos, 1e-5) || !sameRotation(got.Rot, want.Rot, 1e-5) {
				t.Errorf("drawn at %v %v, want %v %v", got.Pos, got.Rot, want.Pos, want.Rot)
			}
			if wantSnaps := map[bool]int{false: 0, true: 1}[tt.snap]; buf.Snaps != wantSnaps {
				t.Errorf("Snaps = %d, want %d", buf.Snaps, wantSnaps)
			}
		})
	}
}

func TestFrameWithSeveralTicksInterpolatesBetweenTheLastTwo(t *testing.T) {
	w := NewWorld(1)
	e := w.Spawn(geom.NewTransform(mgl32.Vec3{0, 0, 0}), Interpolate)
	for tick := uint64(1); tick <= 3; tick++ { // one frame that ran three ticks
		w.BeginTick(tick)
		w.SetTransform(e, geom.NewTransform(mgl32.Vec3{float32(tick), 0, 0}))
	}
	var buf RenderBuffer
	for _, tt := range []struct{ alpha, x float32 }{{0, 2}, {0.5, 2.5}, {1, 3}} {
		if got := draw(t, w, tt.alpha, DefaultInterpolationConfig(), &buf).Pos; got != (mgl32.Vec3{tt.x, 0, 0}) {
			t.Errorf("alpha %v: drawn at %v, want x = %v (between ticks 2 and 3)", tt.alpha, got, tt.x)
		}
	}
}

func TestNoInterpolationDrawsTheCurrentStateAndIsNotASnap(t *testing.T) {
	w := NewWorld(1)
	moved := w.Spawn(geom.NewTransform(mgl32.Vec3{0, 0, 0}), NoInterpolation)
	far := w.Spawn(geom.NewTransform(mgl32.Vec3{0, 0, 0}), NoInterpolation)
	jumped := w.Spawn(geom.NewTransform(mgl32.Vec3{0, 0, 0}), NoInterpolation)
	w.BeginTick(1)
	want := []geom.Transform{
		{Pos: mgl32.Vec3{1, 0, 0}, Rot: rotZ(30), Scale: mgl32.Vec3{2, 2, 2}},
		{Pos: mgl32.Vec3{100, 0, 0}, Rot: rotZ(150), Scale: mgl32.Vec3{1, 1, 1}}, // beyond both thresholds
		{Pos: mgl32.Vec3{0, 1, 0}, Rot: rotZ(0), Scale: mgl32.Vec3{1, 1, 1}},
	}
	w.SetTransform(moved, want[0])
	w.SetTransform(far, want[1])
	w.Teleport(jumped, want[2])
	var buf RenderBuffer
	for _, alpha := range []float32{0, 0.3, 0.7, 1} {
		w.Interpolate(alpha, testTickDT, DefaultInterpolationConfig(), &buf)
		for k, in := range buf.Instances {
			if in.Pos != want[k].Pos || in.Rot != want[k].Rot || in.Scale != want[k].Scale {
				t.Errorf("alpha %v: entity %d drawn at %v %v %v, want %v", alpha, k, in.Pos, in.Rot, in.Scale, want[k])
			}
		}
		if buf.Snaps != 0 || buf.TotalSnaps != 0 {
			t.Errorf("alpha %v: Snaps %d TotalSnaps %d, want 0 and 0", alpha, buf.Snaps, buf.TotalSnaps)
		}
	}
}

func TestHermite(t *testing.T) {
	// A body moving counter-clockwise on a circle of radius r about the
	// origin, turning theta radians per tick, velocity tangent to the circle.
	const r, theta = 5.0, 0.5
	omega := theta / float64(testTickDT)
	at := func(a float64) (pos, vel mgl32.Vec3) {
		s, c := math.Sincos(a)
		return mgl32.Vec3{float32(r * c), float32(r * s), 0}, mgl32.Vec3{float32(-r * omega * s), float32(r * omega * c), 0}
	}
	p0, v0 := at(0)
	p1, v1 := at(theta)

	w := NewWorld(1)
	h := w.Spawn(geom.NewTransform(p0), Hermite)
	l := w.Spawn(geom.NewTransform(p0), Interpolate)
	w.SetDrawVelocity(h, v0, mgl32.Vec3{})
	w.SetDrawVelocity(l, v0, mgl32.Vec3{})
	w.BeginTick(1)
	for _, e := range []Entity{h, l} {
		w.SetTransform(e, geom.NewTransform(p1))
		w.SetDrawVelocity(e, v1, mgl32.Vec3{})
	}

	var buf RenderBuffer
	for _, tt := range []struct {
		alpha float32
		want  mgl32.Vec3
	}{{0, p0}, {1, p1}} {
		w.Interpolate(tt.alpha, testTickDT, DefaultInterpolationConfig(), &buf)
		if got := buf.Instances[0].Pos; got != tt.want {
			t.Errorf("alpha %v: Hermite position %v, want exactly %v", tt.alpha, got, tt.want)
		}
	}

	w.Interpolate(0.5, testTickDT, DefaultInterpolationConfig(), &buf)
	offCircle := func(p mgl32.Vec3) float64 { return math.Abs(float64(p.Len()) - r) }
	hermiteErr, lerpErr := offCircle(buf.Instances[0].Pos), offCircle(buf.Instances[1].Pos)
	if want := r * (1 - math.Cos(theta/2)); math.Abs(lerpErr-want) > 1e-5 {
		t.Fatalf("lerp midpoint is %.6f off the circle, want %.6f", lerpErr, want)
	}
	if hermiteErr >= lerpErr/10 {
		t.Errorf("Hermite midpoint %v is %.6f off the circle, lerp midpoint %v %.6f: want Hermite at least 10x closer",
			buf.Instances[0].Pos, hermiteErr, buf.Instances[1].Pos, lerpErr)
	}
	// Along the curve, the Hermite midpoint also sits at half the angle.
	if got := math.Atan2(float64(buf.Instances[0].Pos[1]), float64(buf.Instances[0].Pos[0])); math.Abs(got-theta/2) > 1e-5 {
		t.Errorf("Hermite midpoint at angle %.6f, want %.6f", got, theta/2)
	}
}

func TestInterpolateSkipsDespawnedSlots(t *testing.T) {
	w := NewWorld(1)
	var es []Entity
	for k := range 5 {
		es = append(es, w.Spawn(geom.NewTransform(mgl32.Vec3{float32(k), 0, 0}), Interpolate))
	}
	w.Despawn(es[1])
	w.Despawn(es[3])
	var buf RenderBuffer
	check := func(want []Entity, wantX []float32) {
		t.Helper()
		w.Interpolate(0.5, testTickDT, DefaultInterpolationConfig(), &buf)
		if fmt.Sprint(buf.Entities) != fmt.Sprint(want) || len(buf.Instances) != len(want) {
			t.Fatalf("drew entities %v (%d instances), want %v", buf.Entities, len(buf.Instances), want)
		}
		for k, in := range buf.Instances {
			if in.Pos[0] != wantX[k] {
				t.Errorf("instance %d (%v) at x = %v, want %v", k, buf.Entities[k], in.Pos[0], wantX[k])
			}
		}
	}
	check([]Entity{es[0], es[2], es[4]}, []float32{0, 2, 4})

	// Reused slot 3 comes back in slot order, with its new generation.
	e5 := w.Spawn(geom.NewTransform(mgl32.Vec3{30, 0, 0}), Interpolate)
	if e5.Index() != 3 {
		t.Fatalf("spawn reused slot %d, want 3", e5.Index())
	}
	check([]Entity{es[0], es[2], e5, es[4]}, []float32{0, 2, 30, 4})
}

func TestDisabledInterpolationDrawsTheCurrentState(t *testing.T) {
	w := NewWorld(1)
	a := w.Spawn(geom.NewTransform(mgl32.Vec3{0, 0, 0}), Interpolate)
	b := w.Spawn(geom.NewTransform(mgl32.Vec3{0, 0, 0}), Hermite)
	c := w.Spawn(geom.NewTransform(mgl32.Vec3{0, 0, 0}), Interpolate)
	w.SetColor(b, [4]uint8{1, 2, 3, 4})
	w.BeginTick(1)
	want := []geom.Transform{
		{Pos: mgl32.Vec3{1, 2, 3}, Rot: rotZ(40), Scale: mgl32.Vec3{3, 3, 3}},
		{Pos: mgl32.Vec3{-1, 0, 0}, Rot: rotZ(-20), Scale: mgl32.Vec3{1, 1, 1}},
		{Pos: mgl32.Vec3{50, 0, 0}, Rot: rotZ(0), Scale: mgl32.Vec3{1, 1, 1}},
	}
	w.SetTransform(a, want[0])
	w.SetTransform(b, want[1])
	w.SetDrawVelocity(b, mgl32.Vec3{9, 9, 9}, mgl32.Vec3{})
	w.Teleport(c, want[2])

	cfg := DefaultInterpolationConfig()
	cfg.Enabled = false
	var buf RenderBuffer
	w.Interpolate(0.5, testTickDT, cfg, &buf)
	if fmt.Sprint(buf.Entities) != fmt.Sprint([]Entity{a, b, c}) {
		t.Fatalf("drew %v, want %v", buf.Entities, []Entity{a, b, c})
	}
	for k, in := range buf.Instances {
		if in.Pos != want[k].Pos || in.Rot != want[k].Rot || in.Scale != want[k].Scale {
			t.Errorf("entity %d drawn at %v %v %v, want %v", k, in.Pos, in.Rot, in.Scale, want[k])
		}
	}
	if got := buf.Instances[1].Color; got != [4]uint8{1, 2, 3, 4} {
		t.Errorf("colour %v, want [1 2 3 4]", got)
	}
	if buf.Snaps != 0 || buf.TotalSnaps != 0 {
		t.Errorf("Snaps %d TotalSnaps %d, want 0 and 0", buf.Snaps, buf.TotalSnaps)
	}
}

// steadyWorld returns a world of n entities, mixed modes, moving and
// turning, some by large angles, one teleported and one despawned: every
// path of Interpolate.
func steadyWorld(n int) *World {
	w := NewWorld(3)
	rng := w.RNG()
	var es []Entity
	for k := range n {
		es = append(es, w.Spawn(geom.NewTransform(mgl32.Vec3{rng.Range(-50, 50), rng.Range(-50, 50), 0}), DrawMode(k%3)))
	}
	w.BeginTick(1)
	for k, e := range es {
		tr := w.Transform(e)
		tr.Pos = tr.Pos.Add(mgl32.Vec3{0.1, 0, 0})
		turn := float64(k%7) * 0.5 // up to 3 degrees: nlerp
		if k%10 == 0 {
			turn = 60 // slerp
		}
		tr.Rot = rotZ(turn)
		w.SetTransform(e, tr)
		w.SetDrawVelocity(e, mgl32.Vec3{6, 0, 0}, mgl32.Vec3{})
	}
	w.Teleport(es[1], geom.NewTransform(mgl32.Vec3{1, 1, 1}))
	w.Despawn(es[2])
	return w
}

func TestInterpolateDoesNotAllocate(t *testing.T) {
	w := steadyWorld(1000)
	var buf RenderBuffer
	cfg := DefaultInterpolationConfig()
	w.Interpolate(0.5, testTickDT, cfg, &buf) // the first frame sizes the buffer
	inst := &buf.Instances[0]
	alpha := float32(0)
	allocs := testing.AllocsPerRun(100, func() {
		alpha += 0.009
		w.Interpolate(alpha, testTickDT, cfg, &buf)
	})
	if allocs != 0 {
		t.Errorf("a steady-state frame allocates %v times, want 0", allocs)
	}
	if &buf.Instances[0] != inst || len(buf.Instances) != w.Len() || len(buf.Entities) != w.Len() {
		t.Errorf("buffer not reused, or wrong length %d/%d for %d entities",
			len(buf.Instances), len(buf.Entities), w.Len())
	}
	cfg.Enabled = false
	if allocs := testing.AllocsPerRun(10, func() { w.Interpolate(0.5, testTickDT, cfg, &buf) }); allocs != 0 {
		t.Errorf("a frame with interpolation off allocates %v times, want 0", allocs)
	}
}

func TestInterpolatePanicsOnMisuse(t *testing.T) {
	nan := float32(math.NaN())
	inf := float32(math.Inf(1))
	def := DefaultInterpolationConfig()
	tests := []struct {
		name          string
		alpha, tickDT float32
		cfg           InterpolationConfig
		want          string
	}{
		{"negative alpha", -0.01, testTickDT, def, "alpha must be in [0, 1], got -0.01"},
		{"alpha above 1", 1.01, testTickDT, def, "alpha must be in [0, 1], got 1.01"},
		{"NaN alpha", nan, testTickDT, def, "alpha must be in [0, 1], got NaN"},
		{"zero tick", 0.5, 0, def, "tick duration must be a positive number of seconds, got 0"},
		{"infinite tick", 0.5, inf, def, "tick duration must be a positive number of seconds, got +Inf"},
		{"negative distance", 0.5, testTickDT, InterpolationConfig{Enabled: true, SnapDistance: -1},
			"SnapDistance must be >= 0 (0 = no distance snap), got -1"},
		{"NaN angle", 0.5, testTickDT, InterpolationConfig{Enabled: true, SnapAngle: nan},
			"SnapAngle must be >= 0 radians (0 = no angle snap), got NaN"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, _ := oneBody(Interpolate, geom.NewTransform(mgl32.Vec3{}), geom.NewTransform(mgl32.Vec3{1, 0, 0}))
			defer func() {
				msg := fmt.Sprint(recover())
				if !strings.HasPrefix(msg, "engine: ") || !strings.Contains(msg, tt.want) {
					t.Errorf("panic %q, want one starting with \"engine: \" that says %q", msg, tt.want)
				}
			}()
			w.Interpolate(tt.alpha, tt.tickDT, tt.cfg, &RenderBuffer{})
		})
	}
}
