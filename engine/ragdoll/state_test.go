package ragdoll

import (
	"testing"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/internal/detcheck"
)

// runFall runs the figure walking, falling at tick 30 (hit), standing up
// at tick 150 over 30 ticks and walking on, for n ticks, saving the state
// at tick save into st when st is not nil.
func runFall(t *testing.T, r *rig, n, save int, st *engine.State) {
	r.onCollision = func(tick uint64) {
		switch tick {
		case 30:
			if err := r.rag.Start(r.fig); err != nil {
				t.Fatal(err)
			}
		case 150:
			if err := r.rag.StandUp(r.fig, 30); err != nil {
				t.Fatal(err)
			}
		}
	}
	for tick := 1; tick <= n; tick++ {
		r.ticks(1)
		if tick == save && st != nil {
			r.e.SaveState(st)
		}
	}
}

// Rollback re-simulates a fall exactly: LoadState in the middle of the
// fall (and of the blend back) and running on gives the hash running on
// gave, with and without hitboxes.
func TestLoadStateMidFallSameHash(t *testing.T) {
	for _, hit := range []bool{false, true} {
		for _, save := range []int{60, 165} {
			o := DefaultOptions()
			o.Hitboxes = hit
			r := newRig(t, o)
			var st engine.State
			runFall(t, r, 240, save, &st)
			want := r.w.Hash()
			if ph, _ := r.rag.Phase(r.fig); ph != Animated {
				t.Fatalf("hitboxes %v: at tick 240 the figure is %v, want animated", hit, ph)
			}
			r.e.LoadState(&st)
			for range 240 - save {
				r.ticks(1)
			}
			if got := r.w.Hash(); got != want {
				t.Errorf("hitboxes %v: after LoadState at tick %d the hash at 240 is %x, want %x", hit, save, got, want)
			}
			// A second world run from the start agrees too.
			r2 := newRig(t, o)
			runFall(t, r2, 240, 0, nil)
			if got := r2.w.Hash(); got != want {
				t.Errorf("hitboxes %v: a second run's hash %x, want %x", hit, got, want)
			}
		}
	}
}

// Standing up: the blend ends after its ticks, the figure is animated
// again with no bodies or joints left (without hitboxes), and its
// hitboxes follow the animation again (with).
func TestStandUpBlendsBack(t *testing.T) {
	for _, hit := range []bool{false, true} {
		o := DefaultOptions()
		o.Hitboxes = hit
		r := newRig(t, o)
		n := r.w.Len()
		runFall(t, r, 150, 0, nil)
		rd := r.state()
		if rd.Phase != Blending || rd.BlendTicks != 30 || rd.Joints[1] != (engine.Entity{}) {
			t.Fatalf("hitboxes %v: after StandUp %+v", hit, rd.Phase)
		}
		for tick := 151; tick <= 181; tick++ {
			r.ticks(1)
			if ph, _ := r.rag.Phase(r.fig); tick <= 180 && ph != Blending || tick == 181 && ph != Animated {
				t.Fatalf("hitboxes %v: at tick %d the figure is %v", hit, tick, ph)
			}
		}
		if r.w.Len() != n {
			t.Errorf("hitboxes %v: %d entities after the blend, %d before the fall", hit, r.w.Len(), n)
		}
		if !hit {
			continue
		}
		r.ticks(1)
		// The hitboxes move before the figure walks in a tick: they are
		// within a tick's walk (2 cm) of its pose.
		want := r.expectedPose(false)
		rd = r.state()
		for i := range rd.Count {
			got := r.w.Transform(rd.Bodies[i]).Pos
			if d := norm64(sub64(v64(got), v64(want[i].Pos))); d > 0.03 {
				t.Errorf("hitbox %s at %v, want about %v", r.def.Parts[i].Name, got, want[i].Pos)
			}
		}
	}
}

// The package's arithmetic is the same bits on every build.
func TestNoFusedArithmetic(t *testing.T) {
	findings, err := detcheck.Dir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range findings {
		t.Error(f)
	}
}
