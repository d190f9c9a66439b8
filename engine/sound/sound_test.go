package sound

import (
	"math"
	"testing"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/geom"
	"github.com/nebulaengine/nebula/engine/sound/decode"
	"github.com/nebulaengine/nebula/engine/sound/mix"
)

// fakeOutput records what is played and stopped; a real mixer, never
// mixed, hands out the voices.
type fakeOutput struct {
	m       *mix.Mixer
	plays   []play
	stopped map[mix.Voice]float64
	sets    []set
}

type play struct {
	sound *decode.Sound
	p     mix.Params
	voice mix.Voice
}

func (f *fakeOutput) Play(s *decode.Sound, p mix.Params) (mix.Voice, error) {
	v, err := f.m.Play(s, p)
	f.plays = append(f.plays, play{s, p, v})
	return v, err
}

func (f *fakeOutput) PlayStream(st *decode.Stream, p mix.Params) (mix.Voice, error) {
	name := st.Name()
	v, err := f.m.PlayStream(st, p)
	f.plays = append(f.plays, play{&decode.Sound{Name: name}, p, v})
	return v, err
}

func (f *fakeOutput) Stop(v mix.Voice, fade float64) {
	if f.stopped == nil {
		f.stopped = map[mix.Voice]float64{}
	}
	f.stopped[v] = fade
}

func (f *fakeOutput) Playing(v mix.Voice) bool { return f.m.Playing(v) }

func (f *fakeOutput) Set(v mix.Voice, volume, pan float32) error {
	f.sets = append(f.sets, set{v, volume, pan})
	return f.m.Set(v, volume, pan)
}

type set struct {
	voice       mix.Voice
	volume, pan float32
}

// A game of two emitters: at tick 12 entity a bounces, unless the world's
// "mode" says the prediction was corrected, when b bounces at tick 13
// instead; a hum starts at tick 5 whatever happens.
type game struct {
	e      *engine.Engine
	s      *Sounds
	out    *fakeOutput
	a, b   engine.Entity
	bounce ID
	hum    ID
	mode   *engine.Resource[uint32]
	dt     float64
	buf    [2 * 800]float32
}

func newGame(t *testing.T) *game {
	t.Helper()
	e, err := engine.New(engine.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	m, err := mix.New(48000)
	if err != nil {
		t.Fatal(err)
	}
	g := &game{e: e, out: &fakeOutput{m: m}}
	t.Cleanup(m.Close) // the streams' feeders: the fake's mixer is never mixed
	if g.s, err = New(e, g.out, DefaultConfig()); err != nil {
		t.Fatal(err)
	}
	g.bounce = g.s.Register(&decode.Sound{Name: "bounce", Rate: 48000, Channels: 1, Samples: make([]float32, 24000)}) // 0.5 s
	g.hum = g.s.Register(&decode.Sound{Name: "hum", Rate: 48000, Channels: 1, Samples: make([]float32, 480000)})      // 10 s
	g.a = e.World.Spawn(geom.NewTransform([3]float32{}), engine.Interpolate)
	g.b = e.World.Spawn(geom.NewTransform([3]float32{1, 0, 0}), engine.Interpolate)
	g.mode = engine.NewResource(e.World, "mode", uint32(0))
	g.dt = 1 / float64(e.TickRate())
	if err := e.AddSystem(engine.StageScripts, "noises", func(c *engine.FixedContext) {
		switch {
		case c.Tick == 5:
			g.s.Emit(c, Event{Sound: g.hum, Bus: mix.Music})
		case c.Tick == 12 && g.mode.Get() == 0:
			g.s.Emit(c, Event{Sound: g.bounce, Entity: g.a, Volume: 0.5})
		case c.Tick == 13 && g.mode.Get() == 1:
			g.s.Emit(c, Event{Sound: g.bounce, Entity: g.b})
		}
	}); err != nil {
		t.Fatal(err)
	}
	return g
}

// step runs ticks up to n, reconciling after each, as frames do.
func (g *game) step(t *testing.T, n uint64) {
	t.Helper()
	for g.e.World.Tick() < n {
		next := g.e.World.Tick() + 1
		if !g.e.StepTick(engine.TickTime(next, g.e.TickRate())) {
			t.Fatalf("tick %d did not run: %v", next, g.e.Err())
		}
		g.s.Reconcile(&engine.FrameContext{World: g.e.World})
		g.out.m.Mix(g.buf[:]) // a tick's worth of sound: voices end
	}
}

// rollback runs ticks up to from, saves the state, runs on to to, then
// goes back to from and re-simulates up to to in one frame with the world's
// "mode" set to mode (1: the corrected input). It returns the state saved.
func (g *game) rollback(t *testing.T, from, to uint64, mode uint32) *engine.State {
	t.Helper()
	g.step(t, from)
	st := new(engine.State)
	g.e.SaveState(st)
	g.step(t, to)
	g.e.LoadState(st)
	g.mode.Set(mode)
	g.resim(t, to)
	return st
}

// resim runs ticks up to n in one frame, as a rollback's re-simulation
// does, and reconciles once.
func (g *game) resim(t *testing.T, n uint64) {
	t.Helper()
	for g.e.World.Tick() < n {
		next := g.e.World.Tick() + 1
		if !g.e.StepTick(engine.TickTime(next, g.e.TickRate())) {
			t.Fatalf("tick %d did not run: %v", next, g.e.Err())
		}
	}
	g.s.Reconcile(&engine.FrameContext{World: g.e.World})
}

// A tick's events start once, as it first runs; a frame that runs no tick
// starts nothing.
func TestEventsStartOnce(t *testing.T) {
	g := newGame(t)
	g.step(t, 20)
	g.s.Reconcile(&engine.FrameContext{World: g.e.World})
	if len(g.out.plays) != 2 || g.out.plays[0].sound.Name != "hum" || g.out.plays[1].sound.Name != "bounce" ||
		g.out.plays[1].p.Volume != 0.5 || g.out.plays[0].p.Bus != mix.Music || g.out.plays[1].p.Start != 0 {
		t.Fatalf("plays %+v; want the hum on the music bus, then the bounce at volume 0.5, from their starts", g.out.plays)
	}
	if st := g.s.Stats(); st.Started != 2 || st.Reconciled() != 0 {
		t.Errorf("Stats %+v, want 2 started and nothing reconciled", st)
	}
}

// A rollback whose re-simulation emits the same events leaves them
// playing: no restart, no double, nothing stopped.
func TestRerunKeepsWhatHappenedAgain(t *testing.T) {
	g := newGame(t)
	g.rollback(t, 3, 20, 0)
	if len(g.out.plays) != 2 || len(g.out.stopped) != 0 {
		t.Errorf("after the re-run: %d plays, %d stops; want the first 2 plays, no stop", len(g.out.plays), len(g.out.stopped))
	}
	if s := g.s.Stats(); s.Kept != 2 || s.Faded+s.Late+s.Missed != 0 {
		t.Errorf("Stats %+v, want 2 kept and nothing else reconciled", s)
	}
}

// A re-simulation with a corrected input: the bounce of a at tick 12 no
// longer happened and fades out (Config.FadeOut), the bounce of b at tick
// 13 is new and starts part-way, as far in as the time since tick 13; the
// hum, which happened again, plays on.
func TestRerunFadesWhatNoLongerHappenedAndStartsWhatIsNew(t *testing.T) {
	g := newGame(t)
	st := g.rollback(t, 3, 20, 1) // the corrected input
	if len(g.out.plays) != 3 {
		t.Fatalf("%d plays, want 3: %+v", len(g.out.plays), g.out.plays)
	}
	aVoice, late := g.out.plays[1].voice, g.out.plays[2]
	if fade, ok := g.out.stopped[aVoice]; !ok || fade != 0.05 || len(g.out.stopped) != 1 {
		t.Errorf("stops %v; want a's bounce alone faded over 0.05 s", g.out.stopped)
	}
	// Reconciled in the frame that re-ran up to tick 20: 7 ticks after
	// tick 13.
	if want := 7 * g.dt; late.sound.Name != "bounce" || late.p.Start < want-1e-9 || late.p.Start > want+1e-9 || late.p.Volume != 1 {
		t.Errorf("the late bounce %+v; want it started %.4f s in, volume 1", late.p, want)
	}
	if s := g.s.Stats(); s.Kept != 1 || s.Faded != 1 || s.Late != 1 || s.Missed != 0 {
		t.Errorf("Stats %+v, want 1 kept (the hum), 1 faded, 1 late", s)
	}
	// Back once more, the input as first predicted: b's bounce no longer
	// happened, and a's, new again, is 38 ticks (0.63 s) past its tick 12
	// when the re-run reaches tick 50: past its 0.5 s, so not started.
	g.e.LoadState(st)
	g.mode.Set(0)
	g.step(t, 3)
	g.resim(t, 50)
	if s := g.s.Stats(); s.Missed != 1 || s.Faded != 2 || len(g.out.plays) != 3 {
		t.Errorf("Stats %+v with %d plays; want a's bounce missed, b's faded, no new play", s, len(g.out.plays))
	}
}

// The keys: an event's order counts only the earlier events of its tick
// with the same entity and sound.
func TestKeys(t *testing.T) {
	g := newGame(t)
	var keys []Key
	if err := g.e.AddSystem(engine.StageScripts, "more", func(c *engine.FixedContext) {
		if c.Tick != 2 {
			return
		}
		g.s.Emit(c, Event{Sound: g.bounce, Entity: g.a})
		g.s.Emit(c, Event{Sound: g.hum, Entity: g.a})
		g.s.Emit(c, Event{Sound: g.bounce, Entity: g.b})
		g.s.Emit(c, Event{Sound: g.bounce, Entity: g.a})
		for _, e := range g.s.ticks[2].emitted {
			keys = append(keys, e.key)
		}
	}); err != nil {
		t.Fatal(err)
	}
	g.step(t, 2)
	want := []Key{{2, g.a, g.bounce, 0}, {2, g.a, g.hum, 0}, {2, g.b, g.bounce, 0}, {2, g.a, g.bounce, 1}}
	for i := range want {
		if keys[i] != want[i] {
			t.Errorf("key %d: %+v, want %+v", i, keys[i], want[i])
		}
	}
}

// A rollback-heavy run: every frame rolls back 1 to 8 ticks and runs them
// again with the same inputs, as a rollback session does after each
// remote input that confirms its prediction. Every event is started once
// (no double), none is faded or started late, and every re-run event is
// kept.
func TestRollbackHeavyRunStartsEachEventOnce(t *testing.T) {
	g := newGame(t)
	if err := g.e.AddSystem(engine.StageScripts, "clatter", func(c *engine.FixedContext) {
		if c.Tick%7 == 0 {
			g.s.Emit(c, Event{Sound: g.bounce, Entity: g.a})
		}
		if c.Tick%13 == 0 {
			g.s.Emit(c, Event{Sound: g.bounce, Entity: g.b})
			g.s.Emit(c, Event{Sound: g.bounce, Entity: g.b})
		}
	}); err != nil {
		t.Fatal(err)
	}
	var states [9]engine.State
	rng := engine.NewRNG(4)
	reruns := 0
	for g.e.World.Tick() < 600 {
		tick := g.e.World.Tick()
		g.e.SaveState(&states[tick%9])
		g.step(t, tick+1)
		back := uint64(1 + rng.Intn(8))
		if back <= tick {
			g.e.LoadState(&states[(tick+1-back)%9])
			g.resim(t, tick+1)
			reruns += int(back)
		}
	}
	events := 600/7 + 2*(600/13) + 2 // and the hum at tick 5, a's bounce at 12
	st := g.s.Stats()
	t.Logf("%d events, %d ticks run again; Stats %+v", events, reruns, st)
	if len(g.out.plays) != events || st.Started != uint64(events) || st.Faded+st.Late+st.Missed+st.Failed != 0 || st.Kept == 0 {
		t.Errorf("%d plays, Stats %+v; want each of the %d events started once, some kept, none faded or late", len(g.out.plays), st, events)
	}
}

// Without an output (a server) the events are reconciled as with one, and
// nothing plays; SetOutput then plays the world's music from where it is.
func TestNoOutputReconcilesAndSetOutputPlays(t *testing.T) {
	g := newGame(t)
	g.s.SetOutput(nil)
	g.rollback(t, 3, 20, 1)
	if s := g.s.Stats(); s.Started != 2 || s.Kept != 1 || s.Faded != 1 || s.Late != 1 || s.Failed != 0 || len(g.out.plays) != 0 {
		t.Errorf("Stats %+v with %d plays; want as with an output (2 started, 1 kept, 1 faded, 1 late) and nothing played", s, len(g.out.plays))
	}
	g.s.Music().Set(Music{Track: g.hum, Start: 10})
	g.s.Reconcile(&engine.FrameContext{World: g.e.World})
	if len(g.out.plays) != 0 {
		t.Fatalf("music played without an output: %+v", g.out.plays)
	}
	g.s.SetOutput(g.out)
	g.s.Reconcile(&engine.FrameContext{World: g.e.World})
	if want := 10 * g.dt; len(g.out.plays) != 1 || g.out.plays[0].sound.Name != "hum" || math.Abs(g.out.plays[0].p.Start-want) > 1e-9 {
		t.Errorf("plays %+v; want the hum started %.4f s in (tick 20, started at 10)", g.out.plays, want)
	}
}

// A world that goes back without running the ticks again (a state loaded,
// a match ending on its last confirmed tick after predicting past it)
// fades out the events of the ticks undone; run again, they start late.
func TestGoingBackFadesTheTicksUndone(t *testing.T) {
	g := newGame(t)
	g.step(t, 10)
	var st engine.State
	g.e.SaveState(&st)
	g.step(t, 13)
	g.e.LoadState(&st)
	g.s.Reconcile(&engine.FrameContext{World: g.e.World})
	bounce := g.out.plays[1].voice
	if _, ok := g.out.stopped[bounce]; !ok || len(g.out.stopped) != 1 {
		t.Fatalf("stops %v after going back to tick 10; want the bounce of tick 12 alone faded", g.out.stopped)
	}
	if s := g.s.Stats(); s.Started+s.Late+s.Missed-s.Faded != 1 {
		t.Errorf("Stats %+v: %d events sounding, want 1 (the hum of tick 5)", s, s.Started+s.Late+s.Missed-s.Faded)
	}
	g.resim(t, 14)
	if s := g.s.Stats(); len(g.out.plays) != 3 || s.Late != 1 || s.Started+s.Late+s.Missed-s.Faded != 2 {
		t.Errorf("Stats %+v, %d plays after running on to tick 14; want the bounce started again, late", s, len(g.out.plays))
	}
}
