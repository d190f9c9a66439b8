package ragdoll

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine/geom"
	"github.com/nebulaengine/nebula/engine/physics"
)

// The switch: the bodies start where the animation left the bones at the
// tick Start is called, each with the velocity it had over the last tick
// (the figure walking at 1.2 m/s, its legs and arms swinging).
func TestStartTakesOverThePose(t *testing.T) {
	for _, hit := range []bool{false, true} {
		o := DefaultOptions()
		o.Hitboxes = hit
		r := newRig(t, o)
		const at = 23 // a tick inside the walk cycle, limbs moving
		var want, before []geom.Transform
		r.onCollision = func(tick uint64) {
			if tick != at {
				return
			}
			want, before = r.expectedPose(false), r.expectedPose(true)
			if err := r.rag.Start(r.fig); err != nil {
				t.Fatal(err)
			}
		}
		r.ticks(at)
		rd := r.state()
		if rd.Phase != Falling || rd.Ticks != 0 {
			t.Fatalf("hitboxes %v: after Start the phase is %v at tick %d, want falling at 0", hit, rd.Phase, rd.Ticks)
		}
		dt := float64(r.e.Loop.DT())
		for i := range r.def.Parts {
			b := rd.Bodies[i]
			body, ok := r.space.Body(b)
			if !ok || body.Kind != physics.Dynamic {
				t.Fatalf("part %d: %v is not a dynamic body", i, b)
			}
			got := r.w.Transform(b)
			if d := norm64(sub64(v64(got.Pos), v64(want[i].Pos))); d > 1e-5 {
				t.Errorf("hitboxes %v: part %s at %v, want %v (%.2g m off)", hit, r.def.Parts[i].Name, got.Pos, want[i].Pos, d)
			}
			if a := quatAngle(got.Rot, want[i].Rot); a > 1e-4 {
				t.Errorf("hitboxes %v: part %s turned %v, want %v (%.2g rad off)", hit, r.def.Parts[i].Name, got.Rot, want[i].Rot, a)
			}
			vel, ang := r.w.DrawVelocity(b)
			wantV := [3]float64{}
			for k := range 3 {
				wantV[k] = (float64(want[i].Pos[k]) - float64(before[i].Pos[k])) / dt
			}
			if d := norm64(sub64(v64(vel), wantV)); d > 1e-3*(1+norm64(wantV)) {
				t.Errorf("hitboxes %v: part %s velocity %v, want %v", hit, r.def.Parts[i].Name, vel, wantV)
			}
			wantW := angVel64(before[i].Rot, want[i].Rot, dt)
			if d := norm64(sub64(v64(ang), wantW)); d > 1e-3*(1+norm64(wantW)) {
				t.Errorf("hitboxes %v: part %s angular velocity %v, want %v", hit, r.def.Parts[i].Name, ang, wantW)
			}
		}
		// Walking at 1.2 m/s, the spine moves forward at about that.
		if v, _ := r.w.DrawVelocity(rd.Bodies[0]); v[0] < 1 || v[0] > 1.5 {
			t.Errorf("hitboxes %v: the spine's velocity %v, want about 1.2 m/s along x", hit, v)
		}
	}
}

// quatAngle returns the angle of the turn from a to b, rad.
func quatAngle(a, b mgl32.Quat) float64 { return norm64(angVel64(a, b, 1)) }

// angVel64 returns the angular velocity turning from a to b in dt, in
// float64.
func angVel64(a, b mgl32.Quat, dt float64) [3]float64 {
	aw, ax, ay, az := float64(a.W), -float64(a.V[0]), -float64(a.V[1]), -float64(a.V[2]) // conjugate
	bw, bx, by, bz := float64(b.W), float64(b.V[0]), float64(b.V[1]), float64(b.V[2])
	w := bw*aw - bx*ax - by*ay - bz*az
	x := bw*ax + bx*aw + by*az - bz*ay
	y := bw*ay - bx*az + by*aw + bz*ax
	z := bw*az + bx*ay - by*ax + bz*aw
	if w < 0 {
		w, x, y, z = -w, -x, -y, -z
	}
	s := math.Sqrt(x*x + y*y + z*z)
	if s == 0 {
		return [3]float64{}
	}
	k := 2 * math.Atan2(s, w) / s / dt
	return [3]float64{x * k, y * k, z * k}
}
