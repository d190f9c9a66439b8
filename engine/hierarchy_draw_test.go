package engine

import (
	"fmt"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine/geom"
)

// lateMover is an engine whose root moves +1 along x every tick, moved by
// a system that runs after StageTransforms' propagation: in a stage placed
// after StageTransforms, or added to StageTransforms itself, through
// SetTransform or through Bodies. With linked, the world has a parent
// elsewhere (two entities that do not move); child, when asked for, is a
// child of the root one unit above it.
func lateMover(t *testing.T, where, how string, linked, withChild bool) (e *Engine, root, child Entity) {
	t.Helper()
	e, err := New(DefaultConfig())
	must(t, err)
	w := e.World
	root = w.Spawn(geom.NewTransform(mgl32.Vec3{}), Interpolate)
	if linked {
		a := w.Spawn(geom.NewTransform(mgl32.Vec3{0, 0, 9}), Interpolate)
		b := w.Spawn(geom.NewTransform(mgl32.Vec3{0, 1, 0}), Interpolate)
		must(t, w.SetParent(b, a, KeepLocal))
	}
	if withChild {
		child = w.Spawn(geom.NewTransform(mgl32.Vec3{0, 1, 0}), Interpolate)
		must(t, w.SetParent(child, root, KeepLocal))
	}
	stage := StageTransforms
	if where == "stage-after" {
		stage = "late"
		must(t, e.AddStage(stage, After(StageTransforms)))
	}
	move := func(c *FixedContext) {
		switch how {
		case "SetTransform":
			tr := c.World.Transform(root)
			tr.Pos[0]++
			c.World.SetTransform(root, tr)
		case "Bodies":
			c.World.Bodies().Pos[root.Index()][0]++
		}
	}
	must(t, e.AddSystem(stage, "move", move))
	return e, root, child
}

// A root moved after the propagation is drawn at its new place at alpha 1
// and at its old one at alpha 0, in the tick that moved it: with and
// without a parent elsewhere in the world, with and without a Hash after
// every tick (which must change nothing drawn), wherever and however the
// late system moves it. The hashes agree whether or not anything hashed
// between the ticks.
func TestLateMoveDrawnInItsTick(t *testing.T) {
	for _, where := range []string{"stage-after", "in-transforms"} {
		for _, how := range []string{"SetTransform", "Bodies"} {
			for _, linked := range []bool{false, true} {
				var hashes [2]uint64
				for k, hashed := range []bool{false, true} {
					t.Run(fmt.Sprintf("%s/%s/linked=%v/hashed=%v", where, how, linked, hashed), func(t *testing.T) {
						e, root, _ := lateMover(t, where, how, linked, false)
						for range 3 {
							if !e.StepTick(0) {
								t.Fatal(e.Err())
							}
							if hashed {
								e.World.Hash()
							}
						}
						var rb RenderBuffer
						for _, c := range []struct {
							alpha float32
							x     float32
						}{{1, 3}, {0, 2}, {0.5, 2.5}} {
							e.World.Interpolate(c.alpha, testTickDT, DefaultInterpolationConfig(), &rb)
							k, _ := rb.Find(root)
							if got := rb.Instances[k].Pos; got != (mgl32.Vec3{c.x, 0, 0}) {
								t.Errorf("after 3 ticks, alpha %v: root drawn at %v, want [%v 0 0]", c.alpha, got, c.x)
							}
						}
						if got := e.World.WorldTransform(root).Pos; got != (mgl32.Vec3{3, 0, 0}) {
							t.Errorf("WorldTransform %v, want [3 0 0]", got)
						}
						hashes[k] = e.World.Hash()
					})
				}
				if hashes[0] != hashes[1] {
					t.Errorf("%s/%s/linked=%v: hash %#x without Hash between the ticks, %#x with", where, how, linked, hashes[0], hashes[1])
				}
			}
		}
	}
}

// A child follows its parent moved after the propagation, in the same
// tick: drawn one unit above the parent at every alpha.
func TestChildFollowsLateMovedParent(t *testing.T) {
	for _, where := range []string{"stage-after", "in-transforms"} {
		for _, how := range []string{"SetTransform", "Bodies"} {
			t.Run(where+"/"+how, func(t *testing.T) {
				e, root, child := lateMover(t, where, how, false, true)
				for range 4 {
					if !e.StepTick(0) {
						t.Fatal(e.Err())
					}
				}
				var rb RenderBuffer
				for _, alpha := range []float32{0, 0.5, 1} {
					e.World.Interpolate(alpha, testTickDT, DefaultInterpolationConfig(), &rb)
					x := 3 + alpha
					at := func(x Entity) mgl32.Vec3 { k, _ := rb.Find(x); return rb.Instances[k].Pos }
					if got := at(root); got != (mgl32.Vec3{x, 0, 0}) {
						t.Errorf("alpha %v: parent drawn at %v, want [%v 0 0]", alpha, got, x)
					}
					if got := at(child); got != (mgl32.Vec3{x, 1, 0}) {
						t.Errorf("alpha %v: child drawn at %v, want [%v 1 0]", alpha, got, x)
					}
				}
				if got := e.World.WorldTransform(child).Pos; got != (mgl32.Vec3{4, 1, 0}) {
					t.Errorf("child's WorldTransform %v, want [4 1 0]", got)
				}
			})
		}
	}
}

// A move made between ticks (at set-up) is drawn at once, whether or not
// anything hashed the world before the frame.
func TestSetUpMoveDrawnWithoutHash(t *testing.T) {
	for _, hashed := range []bool{false, true} {
		w := NewWorld(1)
		a := w.Spawn(geom.NewTransform(mgl32.Vec3{}), Interpolate)
		b := w.Spawn(geom.NewTransform(mgl32.Vec3{0, 1, 0}), Interpolate)
		must(t, w.SetParent(b, a, KeepLocal))
		w.PropagateTransforms()
		w.SetTransform(a, geom.NewTransform(mgl32.Vec3{7, 0, 0}))
		if hashed {
			w.Hash()
		}
		var rb RenderBuffer
		w.Interpolate(1, testTickDT, InterpolationConfig{}, &rb)
		if k, _ := rb.Find(b); rb.Instances[k].Pos != (mgl32.Vec3{7, 1, 0}) {
			t.Errorf("hashed=%v: child drawn at %v, want [7 1 0]", hashed, rb.Instances[k].Pos)
		}
	}
}
