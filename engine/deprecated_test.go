package engine

import (
	"slices"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine/geom"
	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/engine/render"
)

// A game written for v0.12 still builds: the deprecated names are the new
// ones (assignable both ways, the same values).
func TestDeprecatedAliasesAreTheNewNames(t *testing.T) {
	var tr Transform = geom.NewTransform(mgl32.Vec3{1, 2, 3})
	var g geom.Transform = NewTransform(mgl32.Vec3{1, 2, 3})
	if tr != g {
		t.Errorf("NewTransform = %+v, geom.NewTransform = %+v", g, tr)
	}
	var s input.Sample = InputSnapshot{}
	var ev InputEvent = input.Event{Kind: KeyDown, Key: KeyA}
	var q *input.Queue = (*Input)(nil)
	var inst render.Instance = Instance{Mesh: MeshSphere}
	var p *render.Poses = (*Poses)(nil)
	_, _, _, _ = s, q, inst, p
	if ev.Kind != input.KeyDown || ev.Key != input.KeyA || MouseButtonLeft != input.MouseButtonLeft ||
		KeyCount != input.KeyCount || Scroll != input.Scroll || MeshFirstGame != render.MeshFirstGame ||
		InputWords != input.KeyMouseWords || MaxInputQueue != input.MaxQueue || MaxPoses != render.MaxPoses {
		t.Error("a deprecated constant differs from its new name's")
	}
}

// AddFixed adds to the Scripts stage, in the order of the calls, and the
// systems run every tick.
func TestAddFixedAddsToScripts(t *testing.T) {
	e := newStageEngine(t)
	var ran []string
	e.AddFixed("first", func(c *FixedContext) { ran = append(ran, string(c.Stage)+"/first") })
	e.AddFixed("second", func(c *FixedContext) { ran = append(ran, string(c.Stage)+"/second") })
	for _, st := range e.Schedule() {
		if st.Stage == StageScripts && !slices.Equal(st.Systems, []string{"first", "second"}) {
			t.Errorf("the Scripts stage holds %q, want [first second]", st.Systems)
		}
	}
	for range 2 {
		if !e.StepTick(0) {
			t.Fatal(e.Err())
		}
	}
	want := []string{"scripts/first", "scripts/second", "scripts/first", "scripts/second"}
	if !slices.Equal(ran, want) {
		t.Errorf("two ticks ran %q, want %q", ran, want)
	}

	defer func() {
		msg, _ := recover().(error)
		if msg == nil || !strings.HasPrefix(msg.Error(), "engine: ") {
			t.Errorf("AddFixed with a nil function: recovered %v, want an engine: error", msg)
		}
	}()
	e.AddFixed("nil", nil)
}
