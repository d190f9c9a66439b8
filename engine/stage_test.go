package engine

import (
	"context"
	"fmt"
	"runtime/pprof"
	"slices"
	"strings"
	"testing"
	"time"
)

// newStageEngine returns an engine with no entities.
func newStageEngine(t *testing.T) *Engine {
	t.Helper()
	e, err := New(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// stageNamesOf lists e's stages in order.
func stageNamesOf(e *Engine) []Stage {
	var names []Stage
	for _, st := range e.Schedule() {
		names = append(names, st.Stage)
	}
	return names
}

// A tick runs the stages in their order, whatever order the systems were
// added in, and each stage's systems in the order they were added, with
// FixedContext.Stage saying whose turn it is.
func TestStagesRunInOrder(t *testing.T) {
	e := newStageEngine(t)
	var ran []string
	add := func(s Stage, name string) {
		t.Helper()
		if err := e.AddSystem(s, name, func(c *FixedContext) {
			ran = append(ran, string(c.Stage)+"/"+name)
		}); err != nil {
			t.Fatal(err)
		}
	}
	add(StageTransforms, "camera-follow")
	add(StageAI, "think")
	add(StagePhysics, "gravity")
	add(StageScripts, "rules")
	add(StagePhysics, "integrate")
	add(StageInput, "actions")
	add(StageCollision, "contacts")
	add(StageScripts, "spawn")
	if !e.StepTick(0) {
		t.Fatal(e.Err())
	}
	want := []string{"input/actions", "scripts/rules", "scripts/spawn", "physics/gravity", "physics/integrate",
		"collision/contacts", "ai/think", "transforms/camera-follow"}
	if !slices.Equal(ran, want) {
		t.Errorf("one tick ran\n%q\nwant\n%q", ran, want)
	}
	if e.fixedCtx.Stage != "" {
		t.Errorf("after the tick FixedContext.Stage = %q, want empty", e.fixedCtx.Stage)
	}
}

// The built-in stages are in the order, and the transform stage
// starts with its propagation system.
func TestScheduleBuiltin(t *testing.T) {
	e := newStageEngine(t)
	want := "input\nscripts\nphysics\ncollision\nai\ntransforms\n  propagate\n"
	if got := e.Schedule().String(); got != want {
		t.Errorf("a new engine's schedule is\n%s\nwant\n%s", got, want)
	}
}

// AddStage places a stage just before its anchor (after those placed
// before it earlier), or just after it (after those placed after it
// earlier, and the stages placed beside those).
func TestAddStagePlacement(t *testing.T) {
	e := newStageEngine(t)
	for _, p := range []struct {
		s  Stage
		at Placement
	}{
		{"netcode", Before(StageScripts)},
		{"rules2", After(StageScripts)},
		{"predict", Before(StageScripts)}, // after netcode
		{"rules3", After(StageScripts)},   // after rules2
		{"rules2b", After("rules2")},      // between rules2 and rules3
		{"pre-rules2", Before("rules2")},  // between scripts and rules2
		{"first", Before(StageInput)},
		{"last", After(StageTransforms)},
		{"late-ai", After(StageAI)},
	} {
		if err := e.AddStage(p.s, p.at); err != nil {
			t.Fatalf("AddStage(%q, %v): %v", p.s, p.at, err)
		}
	}
	want := []Stage{"first", StageInput, "netcode", "predict", StageScripts, "pre-rules2", "rules2", "rules2b", "rules3",
		StagePhysics, StageCollision, StageAI, "late-ai", StageTransforms, "last"}
	if got := stageNamesOf(e); !slices.Equal(got, want) {
		t.Errorf("stages\n%q\nwant\n%q", got, want)
	}
	// A stage of the game's own runs its systems like a built-in one.
	var ran []Stage
	for _, s := range want {
		if err := e.AddSystem(s, "note", func(c *FixedContext) { ran = append(ran, c.Stage) }); err != nil {
			t.Fatal(err)
		}
	}
	e.StepTick(0)
	if !slices.Equal(ran, want) {
		t.Errorf("the tick ran the stages\n%q\nwant\n%q", ran, want)
	}
}

// AddStage and AddSystem refuse bad names, duplicates and unknown stages
// with an error that says what is wrong, and change nothing.
func TestStageErrors(t *testing.T) {
	e := newStageEngine(t)
	if err := e.AddStage("netcode", Before(StageScripts)); err != nil {
		t.Fatal(err)
	}
	before := e.Schedule().String()
	nop := func(*FixedContext) {}
	for _, c := range []struct {
		what string
		err  error
		want string
	}{
		{"duplicate built-in", e.AddStage(StagePhysics, After(StageAI)), `engine: AddStage("physics", after ai): the schedule has a stage "physics" already`},
		{"duplicate own", e.AddStage("netcode", After(StageAI)), `engine: AddStage("netcode", after ai): the schedule has a stage "netcode" already`},
		{"unknown anchor", e.AddStage("x", Before("nope")), `engine: AddStage("x", before nope): no stage "nope" in the schedule (input, netcode, scripts, physics, collision, ai, transforms)`},
		{"zero placement", e.AddStage("x", Placement{}), `engine: AddStage("x", before ): no stage "" in the schedule`},
		{"empty name", e.AddStage("", After(StageAI)), `engine: AddStage("", after ai): the name is empty`},
		{"space", e.AddStage("my stage", After(StageAI)), `engine: AddStage("my stage", after ai): the name holds ' ': a stage name is ASCII letters, digits, '-', '_' and '.'`},
		{"newline", e.AddStage("a\nb", After(StageAI)), `the name holds '\n'`},
		{"long", e.AddStage(Stage(strings.Repeat("a", MaxStageName+1)), After(StageAI)), `the name is 65 bytes, at most 64`},
		{"unknown stage", e.AddSystem("nope", "s", nop), `engine: AddSystem("nope", "s"): no stage "nope" in the schedule (input, netcode, scripts, physics, collision, ai, transforms)`},
		{"empty system name", e.AddSystem(StagePhysics, "", nop), `engine: AddSystem("physics"): the system's name is empty`},
		{"nil function", e.AddSystem(StagePhysics, "s", nil), `engine: AddSystem("physics", "s"): the system's function is nil`},
	} {
		if c.err == nil {
			t.Errorf("%s: no error", c.what)
		} else if !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: error %q, want it to hold %q", c.what, c.err, c.want)
		}
	}
	if err := e.AddStage(Stage(strings.Repeat("a", MaxStageName)), After(StageAI)); err != nil {
		t.Errorf("a %d-byte name: %v", MaxStageName, err)
	}
	if err := e.AddStage("A-z_0.9", After(StageAI)); err != nil {
		t.Errorf("a name of every kind of character allowed: %v", err)
	}
	if got, want := e.Schedule().String(), strings.Replace(before, "ai\n", "ai\n"+strings.Repeat("a", MaxStageName)+"\nA-z_0.9\n", 1); got != want {
		t.Errorf("after the refusals the schedule is\n%s\nwant\n%s", got, want)
	}
}

// Schedule lists every stage and system in order, and its String writes
// them one per line; changing the returned schedule changes nothing.
func TestScheduleString(t *testing.T) {
	e := newStageEngine(t)
	nop := func(*FixedContext) {}
	e.AddSystem(StagePhysics, "move", nop)
	e.AddSystem(StageScripts, "turn green", nop)
	e.AddSystem(StagePhysics, "bounce", nop)
	if err := e.AddStage("debug", After(StageAI)); err != nil {
		t.Fatal(err)
	}
	e.AddSystem("debug", "crash-test", nop)
	e.AddSystem(StageTransforms, "follow", nop)
	want := `input
scripts
  turn green
physics
  move
  bounce
collision
ai
debug
  crash-test
transforms
  propagate
  follow
`
	sc := e.Schedule()
	if got := sc.String(); got != want {
		t.Errorf("schedule\n%s\nwant\n%s", got, want)
	}
	sc[1].Systems[0] = "changed"
	sc[0].Stage = "changed"
	if got := e.Schedule().String(); got != want {
		t.Errorf("after changing the returned schedule, it is\n%s\nwant\n%s", got, want)
	}
}

// A tick's systems carry the pprof labels phase=fixed, stage and system,
// and SetContext remakes them from its context.
func TestStageLabels(t *testing.T) {
	e := newStageEngine(t)
	e.AddSystem(StagePhysics, "move", func(*FixedContext) {})
	e.SetContext(pprof.WithLabels(context.Background(), pprof.Labels("run", "7")))
	for _, c := range []struct {
		stage, system string
		labels        context.Context
	}{
		{"physics", "move", e.stages[2].systems[0].labels},
		{"transforms", "propagate", e.stages[5].systems[0].labels},
	} {
		for k, want := range map[string]string{LabelPhase: PhaseFixed, LabelStage: c.stage, LabelSystem: c.system, "run": "7"} {
			if got, _ := pprof.Label(c.labels, k); got != want {
				t.Errorf("%s/%s: label %s = %q, want %q", c.stage, c.system, k, got, want)
			}
		}
	}
}

// A panic in a stage's system names the system in the PanicError.
func TestStagePanic(t *testing.T) {
	e := newStageEngine(t)
	e.AddSystem(StageAI, "think", func(c *FixedContext) {
		if c.Tick == 3 {
			panic("lost")
		}
	})
	for i := range 4 {
		e.StepTick(time.Duration(i) * time.Second / 60)
	}
	p, ok := e.Err().(*PanicError)
	if !ok || p.Tick != 3 || p.System != "think" || p.Phase != PhaseFixed {
		t.Errorf("Err() = %#v, want a panic of system think at tick 3", e.Err())
	}
}

// A system that adds stages and systems during the tick changes the tick
// that runs it in nothing: they run from the next tick on.
func TestStagesAddedDuringTick(t *testing.T) {
	e := newStageEngine(t)
	var ran []string
	note := func(name string) func(*FixedContext) {
		return func(c *FixedContext) { ran = append(ran, fmt.Sprintf("%d %s/%s", c.Tick, c.Stage, name)) }
	}
	e.AddSystem(StageScripts, "grow", func(c *FixedContext) {
		ran = append(ran, fmt.Sprintf("%d scripts/grow", c.Tick))
		if c.Tick != 1 {
			return
		}
		for _, s := range []Stage{"a", "b", "c"} {
			if err := e.AddStage(s, Before(StageScripts)); err != nil {
				t.Error(err)
			}
			e.AddSystem(s, "new", note("new"))
		}
		e.AddSystem(StageScripts, "later", note("later"))
		e.AddSystem(StagePhysics, "later", note("later"))
	})
	e.AddSystem(StagePhysics, "old", note("old"))
	e.StepTick(0)
	e.StepTick(time.Second / 60)
	want := []string{"1 scripts/grow", "1 physics/old",
		"2 a/new", "2 b/new", "2 c/new", "2 scripts/grow", "2 scripts/later", "2 physics/old", "2 physics/later"}
	if !slices.Equal(ran, want) {
		t.Errorf("ran\n%q\nwant\n%q", ran, want)
	}
}

// A system added during a tick to a later stage, with no stage added
// before it, also waits for the next tick.
func TestSystemAddedDuringTickWaits(t *testing.T) {
	e := newStageEngine(t)
	var ran []string
	e.AddSystem(StageScripts, "grow", func(c *FixedContext) {
		if c.Tick == 1 {
			e.AddSystem(StagePhysics, "late", func(c *FixedContext) { ran = append(ran, fmt.Sprintf("late@%d", c.Tick)) })
		}
	})
	e.StepTick(0)
	e.StepTick(time.Second / 60)
	if want := []string{"late@2"}; !slices.Equal(ran, want) {
		t.Errorf("ran %q, want %q: a system added during tick 1 runs from tick 2", ran, want)
	}
}
