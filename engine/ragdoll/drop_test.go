package ragdoll

import (
	"fmt"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine/detmath"
	"github.com/nebulaengine/nebula/engine/physics"
)

// The tolerances of the drop test: no joint opens by more than gapTol, a
// knee never bends the wrong way (past straight) by more than kneeTol, and
// no other limit is passed by more than limitTol. The other limits'
// figure is the solver's at an impact, such as a light forearm's whose
// elbow rests on its limit (straight) under a heavy upper body: up to 0.12
// rad for one or two ticks, the same with 8 substeps as with 4.
const (
	gapTol   = 0.03 // m
	kneeTol  = 0.05 // rad
	limitTol = 0.15 // rad
)

// A ragdoll dropped on a floor comes to rest, its joints held and its
// limits respected all the way: the figure (1.8 m) falls from standing,
// walking, and from 1 m up, tipped over.
func TestDropComesToRest(t *testing.T) {
	for _, tc := range []struct {
		name string
		lift float32
		tilt float64 // about x, rad
	}{
		{"standing", 0, 0},
		{"tipped", 1, 1.2},
		{"head first", 2, math.Pi * 0.9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, DefaultOptions())
			tr := r.w.Transform(r.fig)
			tr.Pos[1] += tc.lift
			tr.Rot = detmath.AxisAngle(mgl32.Vec3{1, 0, 0}, tc.tilt)
			r.w.Teleport(r.fig, tr)
			r.onCollision = func(tick uint64) {
				if tick == 2 {
					if err := r.rag.Start(r.fig); err != nil {
						t.Fatal(err)
					}
				}
			}
			r.ticks(2)
			rd := r.state()
			var worst [5]float64 // gap, revolute beyond, swing beyond, twist beyond, knee beyond
			var where [5]string
			note := func(k int, v float64, what string) {
				if v > worst[k] {
					worst[k], where[k] = v, what
				}
			}
			for tick := range 600 {
				r.ticks(1)
				for i := 1; i < int(rd.Count); i++ {
					jd := r.def.Parts[i].Joint
					jr := r.readJoint(rd.Joints[i])
					what := fmt.Sprintf("%s at tick %d", r.def.Parts[i].Name, tick+3)
					note(0, jr.gap, what)
					switch jd.Kind {
					case physics.JointRevolute:
						if r.def.Parts[i].Part == PartShin {
							note(4, float64(jd.Lower)-jr.angle, what) // straighter than straight
							note(1, jr.angle-float64(jd.Upper), what)
						} else {
							note(1, max(float64(jd.Lower)-jr.angle, jr.angle-float64(jd.Upper)), what)
						}
					case physics.JointSpherical:
						note(2, jr.swing-float64(jd.SwingLimit), what)
						note(3, max(float64(jd.Lower)-jr.twist, jr.twist-float64(jd.Upper)), what)
					}
				}
			}
			t.Logf("largest gap %.4f m (%s); beyond a limit: knee past straight %.4f rad (%s), revolute %.4f rad (%s), swing %.4f rad (%s), twist %.4f rad (%s)",
				worst[0], where[0], worst[4], where[4], worst[1], where[1], worst[2], where[2], worst[3], where[3])
			if worst[0] > gapTol {
				t.Errorf("a joint opened by %.4f m (%s), more than %v", worst[0], where[0], gapTol)
			}
			for k, name := range []string{"", "a revolute joint", "a swing", "a twist", "a knee (past straight)"} {
				tol := float64(limitTol)
				if k == 4 {
					tol = kneeTol
				}
				if k > 0 && worst[k] > tol {
					t.Errorf("%s passed its limit by %.4f rad (%s), more than %v", name, worst[k], where[k], tol)
				}
			}
			for i := range rd.Count {
				b := rd.Bodies[i]
				v, w := r.w.DrawVelocity(b)
				if !r.space.Asleep(b) && (length(v) > 0.05 || length(w) > 0.2) {
					t.Errorf("after 10 s %s moves at %v m/s and %v rad/s", r.def.Parts[i].Name, v, w)
				}
				// Lying on its back the figure's parts are all below 0.5 m;
				// lying on its side the upper arm rests on the torso, at
				// up to about 0.6 m. Nothing of a fallen figure is higher.
				top := float32(0.5)
				if r.def.Parts[i].Part == PartUpperArm || r.def.Parts[i].Part == PartForearm {
					top = 0.65
				}
				if y := r.w.Transform(b).Pos[1]; y < 0 || y > top {
					t.Errorf("after 10 s %s is at height %v, want on the floor (at most %v m up)", r.def.Parts[i].Name, y, top)
				}
			}
		})
	}
}
