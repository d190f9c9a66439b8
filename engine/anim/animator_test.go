package anim

import (
	"github.com/nebulaengine/nebula/engine/geom"

	"github.com/nebulaengine/nebula/engine/render"

	"strings"
	"testing"
	"unsafe"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/timing"
)

const meshChain = render.MeshFirstGame

// newEngine returns an engine at rate Hz whose first fixed system is
// Advance, with n entities drawn with the chain model (16 bones, 2
// weights, 8 keys a second).
func newEngine(t testing.TB, rate, n int) (*engine.Engine, *Animations, []engine.Entity) {
	t.Helper()
	cfg := engine.DefaultConfig()
	cfg.Loop = timing.DefaultConfig()
	cfg.Loop.TickRate = rate
	e, err := engine.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	a := New(e.World)
	a.SetModel(meshChain, chain(16, 2, 8))
	e.AddSystem(engine.StageScripts, "anim", a.Advance)
	var ents []engine.Entity
	for i := range n {
		ent := e.World.Spawn(geom.NewTransform(mgl32.Vec3{float32(i), 0, 0}), engine.Interpolate)
		e.World.SetMesh(ent, meshChain)
		ents = append(ents, ent)
	}
	return e, a, ents
}

func TestAnimatorLayout(t *testing.T) {
	if s := unsafe.Sizeof(Animator{}); s != 24 {
		t.Errorf("Animator is %d bytes, want 24 (no padding)", s)
	}
	w := engine.NewWorld(1)
	New(w)
	s := w.Schema()
	if len(s) != 1 || s[0].Name != "animator" || s[0].Size != 24 {
		t.Errorf("schema %v, want component \"animator\" of 24 bytes", s)
	}
}

func TestAdvance(t *testing.T) {
	tests := []struct {
		rate int
		ns   uint64 // one tick
	}{
		{60, 16_666_668}, // float32(1/60) = 0.016666668
		{30, 33_333_335},
		{50, 20_000_000},
		{144, 6_944_444},
		{1000, 1_000_000},
		{1, 1_000_000_000},
	}
	for _, tt := range tests {
		e, a, ents := newEngine(t, tt.rate, 2)
		ent, idle := ents[0], ents[1]
		a.Play(ent, 0, true)
		replay := uint64(0) // the tick at which a system plays clip 0 again
		e.AddSystem(engine.StageScripts, "game", func(c *engine.FixedContext) {
			if c.Tick == replay {
				a.Play(ent, 0, false)
			}
		})
		want := Animator{Clip: 0, Loop: true, PrevClip: 0, PrevLoop: true}
		check := func(when string) {
			t.Helper()
			if got, _ := a.Component().Get(ent); got != want {
				t.Errorf("%d Hz, %s: %+v, want %+v", tt.rate, when, got, want)
			}
		}
		check("after Play at set-up")
		for k := 1; k <= 3; k++ {
			e.StepTick(0)
			want.PrevTime, want.Time = want.Time, want.Time+tt.ns
			check("after a tick")
		}
		// Play in a later system restarts the clip at this tick; the
		// previous state is the previous tick's.
		replay = 4
		e.StepTick(0)
		want = Animator{Clip: 0, Loop: false, PrevClip: 0, PrevLoop: true, PrevTime: 3 * tt.ns, Time: 0}
		check("after Play on tick 4")
		e.StepTick(0)
		want = Animator{Clip: 0, Loop: false, PrevClip: 0, PrevLoop: false, PrevTime: 0, Time: tt.ns}
		check("after tick 5")
		a.Stop(ent)
		want = Animator{Clip: NoClip, Loop: false, PrevClip: 0, PrevLoop: false, PrevTime: 0, Time: 0}
		check("after Stop")
		if a.Component().Has(idle) {
			t.Errorf("%d Hz: an entity never played has an animator", tt.rate)
		}
	}
}

func TestAdvanceSaturates(t *testing.T) {
	e, a, ents := newEngine(t, 60, 1)
	a.Play(ents[0], 0, true)
	a.Component().Ptr(ents[0]).Time = 1<<64 - 5
	e.StepTick(0)
	if got, _ := a.Component().Get(ents[0]); got.Time != 1<<64-1 || got.PrevTime != 1<<64-5 {
		t.Errorf("%+v, want Time at the largest uint64", got)
	}
}

func TestPlayPanics(t *testing.T) {
	_, a, ents := newEngine(t, 60, 1)
	for _, tt := range []struct {
		clip int
		want string
	}{
		{-1, "anim: Play(0:1, -1): clip out of range"},
		{NoClip, "anim: Play(0:1, 65535): clip out of range"},
		{1, `anim: Play(0:1, 1): model "chain" has 1 clips`},
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.HasPrefix(r.(string), tt.want) {
					t.Errorf("Play(%d) panicked with %v, want %q", tt.clip, r, tt.want)
				}
			}()
			a.Play(ents[0], tt.clip, false)
		}()
	}
	// A dead entity is left alone.
	w := engine.NewWorld(1)
	b := New(w)
	dead := w.Spawn(geom.NewTransform(mgl32.Vec3{}), engine.Interpolate)
	w.Despawn(dead)
	b.Play(dead, 3, false)
	if b.Component().Len() != 0 {
		t.Error("Play gave a dead entity an animator")
	}
}

func TestSetModelPanics(t *testing.T) {
	a := New(engine.NewWorld(1))
	m := chain(4, 0, 2)
	m.Nodes[2].Parent = 3
	defer func() {
		if r := recover(); r == nil || !strings.HasPrefix(r.(string), `anim: model "chain": node 2: parent 3`) {
			t.Errorf("SetModel panicked with %v", r)
		}
	}()
	a.SetModel(meshChain, m)
}

// TestAnimatorInHashAndSnapshots: the animator is simulated state.
func TestAnimatorInHashAndSnapshots(t *testing.T) {
	e, a, ents := newEngine(t, 60, 3)
	for i, ent := range ents {
		a.Play(ent, 0, i != 1)
	}
	for range 10 {
		e.StepTick(0)
	}
	h := e.World.Hash()
	a.Component().Ptr(ents[2]).Time++
	if e.World.Hash() == h {
		t.Fatal("the hash does not cover the animators")
	}
	a.Component().Ptr(ents[2]).Time--

	snap := e.Snapshot()
	var st engine.State
	e.SaveState(&st)
	before := make([]Animator, len(ents))
	for i, ent := range ents {
		before[i], _ = a.Component().Get(ent)
	}
	for range 7 {
		e.StepTick(0)
	}
	for name, back := range map[string]func() error{
		"Restore":   func() error { return e.Restore(snap) },
		"LoadState": func() error { e.LoadState(&st); return nil },
	} {
		if err := back(); err != nil {
			t.Fatal(err)
		}
		for i, ent := range ents {
			if got, _ := a.Component().Get(ent); got != before[i] {
				t.Errorf("after %s: entity %d's animator %+v, want %+v", name, i, got, before[i])
			}
		}
		if e.World.Hash() != h {
			t.Errorf("after %s: hash differs", name)
		}
		for range 3 {
			e.StepTick(0)
		}
	}
}
