package engine

import (
	"context"
	"fmt"
	"runtime/pprof"
	"slices"
	"strings"
)

// A Stage names one part of a tick. Every tick runs the schedule's stages
// in order, and each stage's systems in the order they were added: the
// built-in stages
//
//	StageInput, StageScripts, StagePhysics, StageCollision, StageAI, StageTransforms
//
// and the game's own, each placed before or after another by AddStage.
// Every stage runs in every tick, whichever runs it: a frame, StepTick
// (replays), a rollback's resimulation and the sync test alike.
type Stage string

// The built-in stages, in the order a tick runs them.
const (
	// StageInput turns the tick's raw input into what the game acts on
	// (actions, intents), before any game logic reads it.
	StageInput Stage = "input"
	// StageScripts is the game logic: rules, player control, animation
	// clocks, spawning and despawning.
	StageScripts Stage = "scripts"
	// StagePhysics moves bodies: integration, kinematic motion.
	StagePhysics Stage = "physics"
	// StageCollision is collision response: what contacts do (bounces,
	// damage, scores), once every body has moved.
	StageCollision Stage = "collision"
	// StageAI plans and decides for non-player agents from the tick's
	// settled state.
	StageAI Stage = "ai"
	// StageTransforms is transform propagation: its built-in first system
	// computes every entity's world transform from its parent's, so that
	// systems added to it, and the frame's interpolation, read world
	// transforms. A system that runs after it (added to it, or in a stage
	// placed after it) and moves an entity (SetTransform, Bodies, a change
	// of parent) has its moves propagated again at the end of the tick, so
	// that what is drawn for the tick is the world at its end.
	StageTransforms Stage = "transforms"
)

// builtinStages are the built-in stages in order.
var builtinStages = [...]Stage{StageInput, StageScripts, StagePhysics, StageCollision, StageAI, StageTransforms}

// propagateSystem is the name of StageTransforms' built-in system.
const propagateSystem = "propagate"

// MaxStageName is the longest stage name, in bytes.
const MaxStageName = 64

// LabelStage is the pprof label that names a fixed system's stage: a tick's
// systems run with the labels phase=fixed, stage=<stage> and
// system=<name>, so that a profile can be cut by stage:
//
//	go tool pprof -tagfocus=stage=physics cpu.prof
const LabelStage = "stage"

// A Placement says where AddStage puts a new stage: Before or After an
// existing one.
type Placement struct {
	anchor Stage
	after  bool
}

// Before places a new stage just before s (and after any stage placed
// before s earlier).
func Before(s Stage) Placement { return Placement{anchor: s} }

// After places a new stage after s and after any stage placed after s
// earlier (with the stages placed beside those), so that stages placed
// after the same stage run in the order they were added.
func After(s Stage) Placement { return Placement{anchor: s, after: true} }

// String describes p, as "before physics" or "after ai".
func (p Placement) String() string {
	if p.after {
		return "after " + string(p.anchor)
	}
	return "before " + string(p.anchor)
}

// stage is one stage of the tick and its systems, in order.
type stage struct {
	name    Stage
	systems []fixedSystem
	anchor  Stage // the stage AddStage placed it beside; "" for a built-in one
}

// newStages returns the built-in stages: empty but for StageTransforms'
// propagation system, not labelled yet (see relabelStages).
func newStages() []stage {
	st := make([]stage, len(builtinStages))
	for i, s := range builtinStages {
		st[i].name = s
	}
	last := &st[len(st)-1]
	last.systems = append(last.systems, fixedSystem{name: propagateSystem, run: runPropagate})
	return st
}

// runPropagate is StageTransforms' built-in system.
func runPropagate(c *FixedContext) { c.World.PropagateTransforms() }

// stageLabels returns ctx with the pprof labels of a fixed system of stage
// s named name.
func stageLabels(ctx context.Context, s Stage, name string) context.Context {
	return pprof.WithLabels(ctx, pprof.Labels(LabelPhase, PhaseFixed, LabelStage, string(s), LabelSystem, name))
}

// stageIndex returns the index of s in e.stages, or -1.
func (e *Engine) stageIndex(s Stage) int {
	for i := range e.stages {
		if e.stages[i].name == s {
			return i
		}
	}
	return -1
}

// placedFrom reports whether e.stages[i] was placed beside anchor, or
// beside a stage placed beside anchor, and so on.
func (e *Engine) placedFrom(i int, anchor Stage) bool {
	for a := e.stages[i].anchor; a != ""; {
		if a == anchor {
			return true
		}
		j := e.stageIndex(a)
		a = e.stages[j].anchor
	}
	return false
}

// stageNames lists the stages in order, for error messages.
func (e *Engine) stageNames() string {
	names := make([]string, len(e.stages))
	for i := range e.stages {
		names[i] = string(e.stages[i].name)
	}
	return strings.Join(names, ", ")
}

// AddSystem appends a system to stage s of the tick: it runs once per tick,
// after the systems added to s before it, with the tick's FixedContext.
// It fails, adding nothing, only when the schedule has no stage s (see
// AddStage), name is empty or run is nil: adding to a built-in stage
// with a name and a function cannot fail, and such a call may leave the
// error unchecked. Names need not be unique; they label the system in
// profiles, in a PanicError and in Schedule.
//
// A tick's system reads only the FixedContext (see its rules), so
// that a tick is a pure function of the state and the inputs.
func (e *Engine) AddSystem(s Stage, name string, run func(*FixedContext)) error {
	i := e.stageIndex(s)
	switch {
	case i < 0:
		return fmt.Errorf("engine: AddSystem(%q, %q): no stage %q in the schedule (%s)", s, name, s, e.stageNames())
	case name == "":
		return fmt.Errorf("engine: AddSystem(%q): the system's name is empty", s)
	case run == nil:
		return fmt.Errorf("engine: AddSystem(%q, %q): the system's function is nil", s, name)
	}
	// A new outer slice, as AddStage makes: a tick that is running (a
	// system that adds a system) goes on with the stages it started with,
	// whose lengths this append does not change.
	stages := slices.Clone(e.stages)
	stages[i].systems = append(stages[i].systems, fixedSystem{name, run, stageLabels(e.ctx, s, name)})
	e.stages = stages
	return nil
}

// AddStage adds the game's own stage s to the tick, before or after an
// existing stage (the built-in ones or one added earlier):
//
//	const StageNetcode engine.Stage = "netcode"
//	err := e.AddStage(StageNetcode, engine.Before(engine.StageScripts))
//
// Several stages placed before the same stage run in the order they were
// added, and so do several placed after it. A stage added during a tick
// (by a system) runs from the next tick on, and so does a system. AddStage refuses, changing
// nothing, a name that is taken, empty, longer than MaxStageName or holds
// anything but ASCII letters, digits, '-', '_' and '.', and a placement
// beside a stage the schedule does not have.
func (e *Engine) AddStage(s Stage, at Placement) error {
	if err := checkStageName(s); err != nil {
		return fmt.Errorf("engine: AddStage(%q, %v): %w", s, at, err)
	}
	if e.stageIndex(s) >= 0 {
		return fmt.Errorf("engine: AddStage(%q, %v): the schedule has a stage %q already", s, at, s)
	}
	i := e.stageIndex(at.anchor)
	if i < 0 {
		return fmt.Errorf("engine: AddStage(%q, %v): no stage %q in the schedule (%s)", s, at, at.anchor, e.stageNames())
	}
	if at.after {
		// After the anchor and every stage placed beside the ones placed
		// after it, which follow it together.
		i++
		for i < len(e.stages) && e.placedFrom(i, at.anchor) {
			i++
		}
	}
	// A new array, so that a tick running the old one (a system that
	// adds a stage) goes on with it undisturbed.
	stages := make([]stage, 0, len(e.stages)+1)
	stages = append(stages, e.stages[:i]...)
	stages = append(stages, stage{name: s, anchor: at.anchor})
	e.stages = append(stages, e.stages[i:]...)
	return nil
}

// checkStageName says what is wrong with s as a stage name, if anything.
//
//srccheck:wrapped by AddStage, as "engine: AddStage(...): ..."
func checkStageName(s Stage) error {
	if s == "" {
		return fmt.Errorf("the name is empty")
	}
	if len(s) > MaxStageName {
		return fmt.Errorf("the name is %d bytes, at most %d", len(s), MaxStageName)
	}
	for _, r := range s {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.'
		if !ok {
			return fmt.Errorf("the name holds %q: a stage name is ASCII letters, digits, '-', '_' and '.'", r)
		}
	}
	return nil
}

// Schedule is the tick's stages in the order a tick runs them, each with
// its systems (Engine.Schedule).
type Schedule []ScheduledStage

// ScheduledStage is one stage of a Schedule: its name and its systems'
// names, in the order they run.
type ScheduledStage struct {
	// Stage is the stage's name.
	Stage Stage
	// Systems are the names of its systems, in the order they run.
	Systems []string
}

// Schedule returns the tick's stages and their systems, in the order a
// tick runs them; StageTransforms starts with its built-in system,
// "propagate". The Update and Render systems are not stages and are not
// in it.
func (e *Engine) Schedule() Schedule {
	sc := make(Schedule, len(e.stages))
	for i := range e.stages {
		st := &e.stages[i]
		sc[i].Stage = st.name
		sc[i].Systems = make([]string, len(st.systems))
		for j := range st.systems {
			sc[i].Systems[j] = st.systems[j].name
		}
	}
	return sc
}

// String writes the schedule one line per stage, each followed by its
// systems indented by two spaces, one per line:
//
//	input
//	scripts
//	  move
//	physics
//	...
func (s Schedule) String() string {
	var b strings.Builder
	for _, st := range s {
		b.WriteString(string(st.Stage))
		b.WriteByte('\n')
		for _, name := range st.Systems {
			b.WriteString("  ")
			b.WriteString(name)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// runStages runs the tick's stages, each with its systems in order, with
// e.fixedCtx. A stage or a system added during the tick runs from the next
// tick on.
func (e *Engine) runStages() {
	stages := e.stages
	for i := range stages {
		st := &stages[i]
		e.fixedCtx.Stage = st.name
		for j := range st.systems {
			sys := &st.systems[j]
			pprof.SetGoroutineLabels(sys.labels)
			e.curSystem = sys.name
			sys.run(&e.fixedCtx)
		}
	}
	e.fixedCtx.Stage = ""
}

// relabelStages remakes the systems' pprof labels from e.ctx.
func (e *Engine) relabelStages() {
	for i := range e.stages {
		st := &e.stages[i]
		for j := range st.systems {
			st.systems[j].labels = stageLabels(e.ctx, st.name, st.systems[j].name)
		}
	}
}
