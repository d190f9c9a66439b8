package physics

import (
	"sync"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
)

// The peer scenes of peerscenes_test.go as behaviour tests: what Box2D's
// and Box3D's authors show with them, checked on Nebula. The tolerances
// are set from what Rapier 0.21 (deterministic) and Jolt 1.1 give on the
// same scene files (TestPeerSceneFiles, run with the shared anchors'
// runners), quoted in each test.

// peerMoved returns, over es, the largest vertical and horizontal (XZ)
// distance of a body from where it was, and the body with the larger of
// each.
func peerMoved(tw *testWorld, es []engine.Entity, start []mgl32.Vec3) (vert, horiz float32, vi, hi int) {
	for i, e := range es {
		d := tw.pos(e).Sub(start[i])
		if v := abs(d[1]); v > vert {
			vert, vi = v, i
		}
		if h := (mgl32.Vec2{d[0], d[2]}).Len(); h > horiz {
			horiz, hi = h, i
		}
	}
	return vert, horiz, vi, hi
}

// peerPositions returns the positions of es.
func peerPositions(tw *testWorld, es []engine.Entity) []mgl32.Vec3 {
	ps := make([]mgl32.Vec3, len(es))
	for i, e := range es {
		ps[i] = tw.pos(e)
	}
	return ps
}

// TestBox3DLargePyramidStands: Box3D's CreateLargePyramid
// (github.com/erincatto/box3d, shared/benchmarks.c; its debug size,
// baseCount 20: 210 cubes, sleeping off as there) stands for 10 s: no
// cube sinks more than 3 cm (the twenty courses' contacts compress: the
// top sinks 2.6 cm in Rapier and in Jolt too) or moves more than 1 cm
// sideways (Rapier 1.2 cm, Jolt 0.6 cm at 200 steps, with sleeping on).
// Box3D's comment says the 80-cube version falls over after 1,000 steps.
func TestBox3DLargePyramidStands(t *testing.T) {
	sc := peerLargePyramid(20)
	tw := newTestWorld(t, sc.config())
	es := sc.build(tw)
	start := peerPositions(tw, es)
	tw.steps(600)
	vert, horiz, vi, hi := peerMoved(tw, es, start)
	t.Logf("after 10 s: sank at most %.4g m (%s), moved sideways at most %.4g m (%s)", vert, sc.bodies[vi].id, horiz, sc.bodies[hi].id)
	if vert > 0.03 {
		t.Errorf("%s moved %v m vertically (from %v to %v), want at most 0.03", sc.bodies[vi].id, vert, start[vi], tw.pos(es[vi]))
	}
	if horiz > 0.01 {
		t.Errorf("%s moved %v m sideways (from %v to %v), want at most 0.01", sc.bodies[hi].id, horiz, start[hi], tw.pos(es[hi]))
	}
	if st := tw.s.Stats(); st.Awake != len(es)-1 || st.Resets != 0 {
		t.Errorf("awake %d (want all %d: sleeping is off), resets %d", st.Awake, len(es)-1, st.Resets)
	}
}

// TestBox3DCardHouseStands: Box3D's CardHouse sample ("From PEEL",
// github.com/erincatto/box3d, samples/sample_stacking.cpp): the five
// storeys of 40 cards stand for 10 s, no card moving more than 5 cm from
// where it was built (the cards settle by about 3.5 cm in the first
// steps). Jolt keeps it standing (3.6 cm at most); Rapier does not (a card
// of the top storey ends 2.3 m away).
func TestBox3DCardHouseStands(t *testing.T) {
	sc := peerCardHouse()
	tw := newTestWorld(t, sc.config())
	es := sc.build(tw)
	start := peerPositions(tw, es)
	tw.steps(600)
	for i, e := range es {
		if d := tw.pos(e).Sub(start[i]).Len(); d > 0.05 {
			t.Errorf("%s moved %.4g m, from %v to %v", sc.bodies[i].id, d, start[i], tw.pos(e))
		}
	}
}

// TestBox3DBoxStackStands: Box3D's BoxStack sample
// (github.com/erincatto/box3d, samples/sample_stacking.cpp): 40 cubes
// dropped in a column, 0.25 m apart, land on each other and the column
// stands: after 10 s every cube is within 0.25 m of the column's axis and
// the top cube's centre above 39 m (Rapier: 0.13 m and 39.07 m, all
// asleep; Jolt's column falls).
func TestBox3DBoxStackStands(t *testing.T) {
	t.Skip("the 40-cube column falls on Nebula (top cube 16.7 m away at 10 s; Rapier keeps it within 0.13 m): a cube landing flat spins (one cube dropped 0.25 m lands with 0.18 rad/s and 8 cm/s sideways; 8 substeps do not help); issue 34")
	sc := peerBoxStack(40)
	tw := newTestWorld(t, sc.config())
	es := sc.build(tw)
	tw.steps(600)
	for i, e := range es[1:] {
		if p := tw.pos(e); (mgl32.Vec2{p[0], p[2]}).Len() > 0.25 {
			t.Errorf("%s is %v, off the column's axis", sc.bodies[i+1].id, p)
		}
	}
	if top := tw.pos(es[len(es)-1]); top[1] < 39 {
		t.Errorf("the top cube is at %v, want above 39 m", top)
	}
}

// TestBox2DTumblerKeepsCubesInside: Box2D's CreateTumbler
// (github.com/erincatto/box2d, shared/benchmarks.c) made kinematic as its
// CreateWasher is and extruded (peerTumbler): the hollow box turns at 25°/s
// for 10 s (250°) with 10×10×3 cubes tumbling in it, and every cube's
// centre stays inside the walls' inner faces in the tumbler's frame; the
// tumbler turns at its own speed about its fixed centre and no state
// becomes non-finite.
func TestBox2DTumblerKeepsCubesInside(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	tb, err := buildPeerTumbler(tw, 10, 3)
	if err != nil {
		t.Fatal(err)
	}
	wb := tw.w.Bodies()
	i := tb.body.Index()
	for step := 1; step <= 600; step++ {
		tw.s.Step()
		if step%60 != 0 {
			continue
		}
		centre, rot := wb.Pos[i], wb.Rot[i]
		if centre != (mgl32.Vec3{0, 10, 0}) {
			t.Fatalf("step %d: the tumbler's centre moved to %v", step, centre)
		}
		for _, e := range tb.cubes {
			l := rot.Inverse().Rotate(tw.pos(e).Sub(centre))
			if abs(l[0]) > 9.5 || abs(l[1]) > 9.5 || abs(l[2]) > tb.depth {
				t.Fatalf("step %d: cube %v is outside the tumbler, at %v in its frame (the inside is ±9.5, ±9.5, ±%v)", step, e, l, tb.depth)
			}
		}
	}
	// 25°/s for 10 s: the tumbler turned 250° about Z (float32 rounding
	// over 600 steps: within 0.01 rad).
	q := wb.Rot[i]
	if want := peerQuatZ(600 * peerTumblerSpeed / 60); abs(q.Dot(want)) < float32(1-5e-5/4) {
		t.Errorf("the tumbler's rotation is %v, want %v (250° about Z)", q, want)
	}
	if r := tw.s.Stats().Resets; r != 0 {
		t.Errorf("%d resets", r)
	}
}

// peerFallingBoxesRun steps peerFallingBoxes until every body sleeps (at most
// the peer's 500 steps) and returns the step at which they all slept
// (-1: never) and the world's state hash then.
func peerFallingBoxesRun(t testing.TB) (int, uint64) {
	sc := peerFallingBoxes()
	tw := newTestWorld(t, sc.config())
	sc.build(tw)
	for step := 1; step <= sc.steps; step++ {
		tw.s.Step()
		if tw.s.Stats().Awake == 0 {
			return step, tw.w.Hash()
		}
	}
	return -1, tw.w.Hash()
}

// TestBox2DDeterminismFallingBoxes ports Box2D's determinism test
// (github.com/erincatto/box2d, test/test_determinism.c,
// MultithreadingTest and CrossPlatformTest on shared/determinism.c's
// CreateFallingHinges): the scene is stepped until every body sleeps,
// within 500 steps, and the step at which it does and the hash then are
// the same in every run. Box2D varies its worker count; Nebula's step is
// single-threaded, so here the runs go one after another and then four at
// once on their own goroutines (no state shared between Spaces). Box2D
// pins the hash it expects on every platform; the hash of this scene is
// pinned across architectures by the golden tests' scene instead
// (golden_test.go), so that this one does not change with every change
// of the step. The scene has no hinges (Nebula has no joints).
func TestBox2DDeterminismFallingBoxes(t *testing.T) {
	step, hash := peerFallingBoxesRun(t)
	t.Logf("all asleep at step %d, hash %016x", step, hash)
	if step < 0 {
		t.Fatalf("bodies still awake after 500 steps")
	}
	if s, h := peerFallingBoxesRun(t); s != step || h != hash {
		t.Errorf("second run: asleep at step %d, hash %016x; first run %d, %016x", s, h, step, hash)
	}
	const runs = 4
	var wg sync.WaitGroup
	var steps [runs]int
	var hashes [runs]uint64
	for r := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			steps[r], hashes[r] = peerFallingBoxesRun(t)
		}()
	}
	wg.Wait()
	for r := range runs {
		if steps[r] != step || hashes[r] != hash {
			t.Errorf("concurrent run %d: asleep at step %d, hash %016x; first run %d, %016x", r, steps[r], hashes[r], step, hash)
		}
	}
}

// TestBox3DJengaStackStands: Box3D's JengaStack sample
// (github.com/erincatto/box3d, samples/sample_stacking.cpp, boxes): the
// 30 crossed layers, started with the first layer 5 cm in the ground and
// 1 cm gaps, settle and stand: after 10 s every bar is within 0.5 m
// sideways of where it was built and the top layer's centres above 5.5 m
// (Rapier: 0.06 m and 5.77 m, all asleep; Jolt: 0.46 m and 5.78 m).
func TestBox3DJengaStackStands(t *testing.T) {
	sc := peerJengaStack()
	tw := newTestWorld(t, sc.config())
	es := sc.build(tw)
	start := peerPositions(tw, es)
	tw.steps(600)
	_, horiz, _, hi := peerMoved(tw, es, start)
	if horiz > 0.5 {
		t.Errorf("%s moved %.4g m sideways, from %v to %v", sc.bodies[hi].id, horiz, start[hi], tw.pos(es[hi]))
	}
	for _, e := range es[len(es)-2:] {
		if p := tw.pos(e); p[1] < 5.5 {
			t.Errorf("a top bar is at %v, want above 5.5 m", p)
		}
	}
	t.Logf("the farthest bar moved %.3f m sideways; top bar at %.3f m", horiz, tw.pos(es[len(es)-1])[1])
}

// TestBox3DDominoesAllFall: Box3D's Dominoes sample
// (github.com/erincatto/box3d, samples/sample_stacking.cpp) with two rings
// (its debug build's count, 362 dominoes): the push on the first domino
// of each ring topples every domino of the ring in turn, within 30 s (the
// sample's camera watches them go round): every domino's centre ends
// below 0.5 m (0.8 m standing; Rapier's and Jolt's highest end at 0.39
// and 0.40 m).
func TestBox3DDominoesAllFall(t *testing.T) {
	sc := peerDominoes(2)
	tw := newTestWorld(t, sc.config())
	es := sc.build(tw)[1:]
	standing := func() (int, engine.Entity) {
		n, first := 0, engine.Entity{}
		for _, e := range es {
			if tw.pos(e)[1] >= 0.5 {
				if n == 0 {
					first = e
				}
				n++
			}
		}
		return n, first
	}
	for step := 1; step <= sc.steps; step++ {
		tw.s.Step()
		if step%60 == 0 {
			if n, _ := standing(); n == 0 {
				t.Logf("all %d fallen after %d steps", len(es), step)
				return
			}
		}
	}
	n, e := standing()
	t.Errorf("%d of %d dominoes still standing after 30 s; %v at %v", n, len(es), e, tw.pos(e))
}
