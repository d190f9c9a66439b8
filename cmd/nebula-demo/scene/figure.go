package scene

import (
	"fmt"
	"math"
	"time"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/detmath"
	"github.com/nebulaengine/nebula/engine/model"
	"github.com/nebulaengine/nebula/internal/modelgen"
)

// The phases of the figure's walk (FigureState.Phase).
const (
	figureWalk uint8 = iota // walking toward Dir
	figureWave              // standing at an end, waving
	figureTurn              // turning round
)

// FigureState is where the figure is in its walk (component "figure").
type FigureState struct {
	Phase uint8  // figureWalk, figureWave or figureTurn
	Dir   int8   // +1 while walking toward +x, -1 toward -x
	_     uint16 // padding, always 0
	Left  uint32 // ticks left in the wave or the turn
}

// ticksOf is d in ticks of dt seconds, rounded (at least 1).
func ticksOf(d time.Duration, dt float32) uint32 {
	return max(uint32(d.Seconds()/float64(dt)+0.5), 1)
}

// figureZ is the z of the figure's walk, near the back wall.
const figureZ = -10

// FigureModel makes the figure's model (package modelgen's Figure,
// converted by package model) and checks that its clips are where
// ClipWalk and ClipWave say.
func FigureModel() (*model.Model, error) {
	m, err := model.FromDocument(modelgen.Figure(), "figure")
	if err != nil {
		return nil, fmt.Errorf("scene: the figure: %w", err)
	}
	for _, c := range []struct {
		i    int
		name string
	}{{ClipWalk, modelgen.ClipWalk}, {ClipWave, modelgen.ClipWave}} {
		if c.i >= len(m.Clips) || m.Clips[c.i].Name != c.name {
			return nil, fmt.Errorf("scene: the figure has no clip %q at %d", c.name, c.i)
		}
	}
	return m, nil
}

// walkFigure moves the figure along its walk: it walks at FigureSpeed to
// the end it faces, waves there for WaveFor, turns round in TurnFor (half
// a turn about the vertical, a step each tick) and walks back.
func (s *Scene) walkFigure(c *engine.FixedContext) {
	st := s.Walk.Ptr(s.Figure)
	if st == nil || s.figureDown() {
		return
	}
	w := c.World
	t := w.Transform(s.Figure)
	switch st.Phase {
	case figureWalk:
		x := float32(float32(st.Dir)*float32(FigureSpeed*c.DT)) + t.Pos[0]
		if x*float32(st.Dir) >= FigureRange {
			x = FigureRange * float32(st.Dir)
			st.Phase, st.Left = figureWave, ticksOf(WaveFor, c.DT)
			s.Anim.Play(s.Figure, ClipWave, true)
		}
		t.Pos[0] = x
	case figureWave:
		if st.Left--; st.Left == 0 {
			st.Phase, st.Left = figureTurn, ticksOf(TurnFor, c.DT)
			s.Anim.Play(s.Figure, ClipWalk, true)
		}
	case figureTurn:
		step := detmath.AxisAngle(mgl32.Vec3{0, 1, 0}, math.Pi/float64(ticksOf(TurnFor, c.DT)))
		t.Rot = detmath.Normalize(detmath.Mul(step, t.Rot))
		if st.Left--; st.Left == 0 {
			// Exactly facing the other way, whatever rounding did.
			t.Rot = detmath.AxisAngle(mgl32.Vec3{0, 1, 0}, float64(st.Dir)*-math.Pi/2)
			st.Phase, st.Dir = figureWalk, -st.Dir
		}
	}
	w.SetTransform(s.Figure, t)
}
