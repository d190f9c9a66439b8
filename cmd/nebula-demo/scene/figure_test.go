package scene

import (
	"math"
	"testing"

	"github.com/nebulaengine/nebula/engine"
)

// figureAt is what the test reads of the figure after a tick.
type figureAt struct {
	x     float32
	st    FigureState
	clip  uint16
	time  uint64 // ns into the clip
	angle float64
}

func readFigure(sc *Scene, w *engine.World) figureAt {
	t := w.Transform(sc.Figure)
	a, _ := sc.Anim.Component().Get(sc.Figure)
	// The yaw about +y, from the rotation (the figure only ever turns
	// about the vertical).
	yaw := 2 * math.Atan2(float64(t.Rot.V[1]), float64(t.Rot.W))
	return figureAt{x: t.Pos[0], st: *sc.Walk.Ptr(sc.Figure), clip: a.Clip, time: a.Time, angle: yaw}
}

// The figure walks from -FigureRange to +FigureRange at FigureSpeed
// playing the walk, waves there for WaveFor (the wave clip from time 0,
// started on the tick it arrived), turns round in TurnFor (walking in
// place) and walks back, exactly facing -x.
func TestFigureWalksWavesAndTurns(t *testing.T) {
	e, err := engine.New(engine.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	sc := Setup(e, 0)
	w := e.World
	dt := float32(e.Loop.DT())
	step := float32(FigureSpeed * dt)
	tickNS := uint64(math.Round(float64(dt) * 1e9))
	waveTicks, turnTicks := ticksOf(WaveFor, dt), ticksOf(TurnFor, dt)
	if waveTicks != 144 || turnTicks != 36 {
		t.Fatalf("wave %d and turn %d ticks at 60 Hz, want 144 and 36", waveTicks, turnTicks)
	}

	start := readFigure(sc, w)
	if start.x != -FigureRange || start.clip != ClipWalk || math.Abs(start.angle-math.Pi/2) > 1e-6 {
		t.Fatalf("at set-up the figure is at x %v playing clip %d facing %v rad, want -%d, the walk, pi/2", start.x, start.clip, start.angle, FigureRange)
	}
	x := start.x
	var arrived uint64
	for tick := uint64(1); arrived == 0; tick++ {
		if !e.StepTick(0) {
			t.Fatal(e.Err())
		}
		f := readFigure(sc, w)
		if want := float32(step) + x; want < FigureRange {
			if f.x != want || f.st.Phase != figureWalk || f.clip != ClipWalk || f.time != tick*tickNS {
				t.Fatalf("tick %d: x %v phase %d clip %d time %d, want x %v walking the walk at %d ns", tick, f.x, f.st.Phase, f.clip, f.time, want, tick*tickNS)
			}
			x = f.x
			continue
		}
		if f.x != FigureRange || f.st.Phase != figureWave || f.clip != ClipWave || f.time != 0 || f.st.Left != waveTicks {
			t.Fatalf("tick %d (arrival): x %v phase %d clip %d time %d left %d, want %d, waving from time 0 for %d ticks", tick, f.x, f.st.Phase, f.clip, f.time, f.st.Left, FigureRange, waveTicks)
		}
		arrived = tick
	}
	if arrived < 470 || arrived > 490 {
		t.Errorf("the figure arrived at tick %d, want about 20 units / 2.5 units/s = 480", arrived)
	}
	for i := uint64(1); i <= uint64(waveTicks)+uint64(turnTicks); i++ {
		e.StepTick(0)
		f := readFigure(sc, w)
		switch {
		case i < uint64(waveTicks):
			if f.st.Phase != figureWave || f.clip != ClipWave || f.time != i*tickNS || f.x != FigureRange {
				t.Fatalf("wave tick %d: phase %d clip %d time %d x %v", i, f.st.Phase, f.clip, f.time, f.x)
			}
		case i < uint64(waveTicks)+uint64(turnTicks):
			// Turning: a step of pi/turnTicks a tick, walking in place.
			turned := float64(i-uint64(waveTicks)) * math.Pi / float64(turnTicks)
			if f.st.Phase != figureTurn || f.clip != ClipWalk || math.Abs(math.Remainder(f.angle-(math.Pi/2+turned), 2*math.Pi)) > 1e-4 {
				t.Fatalf("turn tick %d: phase %d clip %d yaw %v, want %v", i, f.st.Phase, f.clip, f.angle, math.Pi/2+turned)
			}
		default:
			if f.st.Phase != figureWalk || f.st.Dir != -1 || math.Abs(math.Remainder(f.angle+math.Pi/2, 2*math.Pi)) > 1e-6 {
				t.Fatalf("after the turn: phase %d dir %d yaw %v, want walking toward -x facing -pi/2", f.st.Phase, f.st.Dir, f.angle)
			}
		}
	}
	e.StepTick(0)
	if f := readFigure(sc, w); f.x != float32(-step)+FigureRange {
		t.Errorf("the first step back puts the figure at %v, want %v", f.x, float32(-step)+FigureRange)
	}
}

// The figure's model has the clips the scene plays, and drawing its
// poses (the anim Pose render system, as a windowed run adds it) fills
// the figure's pose without touching the simulation: the same hash as a
// run that draws nothing.
func TestFigurePosesDoNotTouchTheSimulation(t *testing.T) {
	m, err := FigureModel()
	if err != nil {
		t.Fatal(err)
	}
	run := func(pose bool) (uint64, int) {
		e, err := engine.New(engine.DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		sc := Setup(e, 50)
		e.SetInputScript(Script)
		posed := 0
		if pose {
			sc.Anim.SetModel(MeshFigure, m)
			e.AddRender("pose", sc.Anim.Pose)
			e.AddRender("check", func(c *engine.FrameContext) {
				if k, ok := c.Render.Find(sc.Figure); ok && c.Render.Instances[k].Pose != 0 {
					posed++
				}
			})
		}
		if _, err := engine.RunHeadless(e, engine.HeadlessConfig{DisplayHz: 144, Ticks: 900, Draw: true}); err != nil {
			t.Fatal(err)
		}
		return e.World.Hash(), posed
	}
	plain, _ := run(false)
	posedHash, posed := run(true)
	if posedHash != plain {
		t.Errorf("with the poses drawn the hash is %016x, without %016x", posedHash, plain)
	}
	if posed < 2000 {
		t.Errorf("the figure had a pose in %d frames of about 2,160, want nearly all", posed)
	}
}
