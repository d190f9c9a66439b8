package physics

import "testing"

// pileCornerSpeed builds the benchmark pile of nx×ny×nz turned unit cubes
// in an open box of inner half width inner (pile), with sleeping as
// cfg says, steps it n times and returns the fastest corner speed
// (|v| + |ω|·extent) of any cube over the last 60 steps, and how many
// cubes are asleep at the end.
func pileCornerSpeed(t *testing.T, nx, ny, nz int, inner float32, noSleep bool, n int) (maxSpeed float32, asleep, cubes int) {
	cfg := DefaultConfig()
	cfg.NoSleep = noSleep
	tw := newTestWorld(t, cfg)
	pile(tw, nx, ny, nz, inner, false)
	ext := maxExtent(&shape{kind: Box, half: vec3{0.5, 0.5, 0.5}})
	for i := range n {
		tw.s.Step()
		if i < n-60 {
			continue
		}
		for e, b := range tw.s.Bodies().All() {
			if b.Kind != Dynamic {
				continue
			}
			v := toVec3(tw.vel(e)).length() + toVec3(tw.w.Bodies().AngVel[e.Index()]).length()*ext
			maxSpeed = max(maxSpeed, v)
		}
	}
	for _, b := range tw.s.Bodies().All() {
		if b.Kind == Dynamic {
			cubes++
			if b.Asleep {
				asleep++
			}
		}
	}
	return maxSpeed, asleep, cubes
}

// TestPileCubesComeToRest: the 1,000 randomly turned cubes of pile-1000
// (the shared benchmark scene) come to rest: with sleeping off, no
// cube's corner moves faster than 0.05 m/s (Config.SleepLinearSpeed)
// over the last second of 10 s; with sleeping on, every cube is asleep
// at 10 s, as on Rapier and Jolt (1000/1000 at step 600) and on Nebula
// before issue 34 (commit a2ccb3d).
func TestPileCubesComeToRest(t *testing.T) {
	t.Skip("issue 34: pile-1000 jitters at rest (fastest corner 0.675 m/s over the last second of 10 s with sleeping off; 0/1000 asleep with it on); see the comment below")
	// Figures at the time of writing (main baa9e47), sleeping off, 600 steps:
	// 9 to 56 cubes a step move their farthest point faster than 0.05 m/s
	// (Rapier's measure) over steps 400 to 600; with sleeping on, 0/1000
	// asleep (one island; some cube is always out of the bound).
	// Bisection (sleeping off, the count of cubes over 0.05 m/s at steps
	// 520/540/560/580): a2ccb3d and d116200 (sleep branch) 6/9/21/5;
	// f778489 (dynamics + CCD merged, before the sleep merge) 31/21/11/16;
	// 1dfc7d3 the same; main 13/16/9/15. f778489 slept 1000/1000 only
	// because its sleep bound was 0.2 m/s on the end velocity.
	// Ruled out (each alone, none restores sleep): restitution 0 on every
	// body; NoAutoCCD; a wider face/edge tie (axisAbsTol 5 mm); and, by
	// the brief, the old tie rule, no common row, both passes forwards,
	// edges in slot order.
	// Seen: the jittering cubes rest on another cube's edge or corner, 8
	// to 9 mm deep, and the box-box manifold of such a pair flips between
	// 4 points (a face axis) and 1 point (an edge pair, normal 5° away)
	// from step to step (cube slot 447 on 547, steps 560 to 565), each
	// flip kicking the cube at 0.02 to 0.09 m/s.
	// After the box-box manifold reuse (main e425037): fastest corner
	// 0.675 m/s, 0/1000 asleep. With 8 substeps instead of 4: 0.258 m/s,
	// 1000/1000 asleep; with ContactHertz 60 instead of 30: 0.273 m/s,
	// 1000/1000 asleep, but small stacks no longer settle
	// (TestRestingStacksSettle, TestPileSleeps fail). So the pile's
	// contacts are too soft for the load at the bottom (8 to 9 mm deep
	// under ten layers), which is where the face/edge flips start.
	speed, _, _ := pileCornerSpeed(t, 10, 10, 10, 8, true, 600)
	if speed > 0.05 {
		t.Errorf("sleeping off: fastest corner over the last second %.3f m/s, want <= 0.05", speed)
	}
	_, asleep, cubes := pileCornerSpeed(t, 10, 10, 10, 8, false, 600)
	if asleep != cubes {
		t.Errorf("sleeping on: %d of %d cubes asleep at 10 s, want all", asleep, cubes)
	}
	t.Logf("fastest corner %.3f m/s; %d/%d asleep", speed, asleep, cubes)
}
