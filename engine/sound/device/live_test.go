package device

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/sound"
	"github.com/nebulaengine/nebula/engine/sound/decode"
	"github.com/nebulaengine/nebula/engine/sound/mix"
	"github.com/nebulaengine/nebula/internal/soundtest"
)

// The tests here run a game in real time, its sound (sound.Sounds)
// played through the binary's device and a real PulseAudio server, and
// hear the null sink's monitor: how long after its tick a sound is heard,
// and what a rollback does to what is heard.

// liveGame is an engine whose ticks run as wall time passes (60 Hz),
// reconciling its sound each frame (about 144 a second), as a game's loop
// does; its world's "mode" resource is what a rollback's corrected input
// changes.
type liveGame struct {
	t     *testing.T
	e     *engine.Engine
	s     *sound.Sounds
	out   *stampedOutput
	mode  *engine.Resource[uint32]
	start time.Time
	ranAt map[uint64]time.Time // when each tick first ran

	saveAt uint64       // the tick whose state is saved as it runs, for rollback
	saved  engine.State // the state at the end of tick saveAt
}

// stampedOutput is the mixer, each Play dated.
type stampedOutput struct {
	*mix.Mixer
	plays []stampedPlay
}

// stampedPlay is one Play: when, what and how.
type stampedPlay struct {
	at    time.Time
	sound string
	p     mix.Params
}

func (o *stampedOutput) Play(s *decode.Sound, p mix.Params) (mix.Voice, error) {
	at := time.Now()
	v, err := o.Mixer.Play(s, p)
	o.plays = append(o.plays, stampedPlay{at, s.Name, p})
	return v, err
}

// newLiveGame returns a game whose sound plays through m. Its clock
// starts at the first frame.
func newLiveGame(t *testing.T, m *mix.Mixer) *liveGame {
	t.Helper()
	e, err := engine.New(engine.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	g := &liveGame{t: t, e: e, out: &stampedOutput{Mixer: m}, ranAt: map[uint64]time.Time{}}
	if g.s, err = sound.New(e, g.out, sound.DefaultConfig()); err != nil {
		t.Fatal(err)
	}
	g.mode = engine.NewResource(e.World, "mode", uint32(0))
	if err := e.AddSystem(engine.StageScripts, "stamp", func(c *engine.FixedContext) {
		if _, ok := g.ranAt[c.Tick]; !ok {
			g.ranAt[c.Tick] = time.Now()
		}
	}); err != nil {
		t.Fatal(err)
	}
	return g
}

// due returns when tick n was due, by the game's clock.
func (g *liveGame) due(n uint64) time.Time { return g.start.Add(engine.TickTime(n, g.e.TickRate())) }

// owed returns the tick the wall time has reached.
func (g *liveGame) owed() uint64 {
	return uint64(time.Since(g.start) * time.Duration(g.e.TickRate()) / time.Second)
}

// step runs the next tick, saving the state after tick saveAt.
func (g *liveGame) step() {
	next := g.e.World.Tick() + 1
	if !g.e.StepTick(engine.TickTime(next, g.e.TickRate())) {
		g.t.Fatalf("tick %d did not run: %v", next, g.e.Err())
	}
	if next == g.saveAt {
		g.e.SaveState(&g.saved)
	}
}

// frame runs the ticks the wall time owes, then reconciles the sound.
func (g *liveGame) frame() {
	if g.start.IsZero() {
		g.start = time.Now()
	}
	for g.e.World.Tick() < g.owed() {
		g.step()
	}
	g.s.Reconcile(&engine.FrameContext{World: g.e.World})
}

// runUntil runs frames, about 144 a second, until done says so (checked
// after each frame); the bound of 30 s is only against a hang.
func (g *liveGame) runUntil(what string, done func() bool) {
	g.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		g.frame()
		if done() {
			return
		}
		if time.Now().After(deadline) {
			g.t.Fatalf("30 s went by before %s", what)
		}
		time.Sleep(time.Second / 144)
	}
}

// rollback loads the state saved after tick saveAt, lets change correct
// the input, and re-runs the ticks up to the one the wall time owes (at
// least the one reached before) in one frame, reconciling once, as a
// rollback session does. It returns when that frame reconciled.
func (g *liveGame) rollback(change func()) time.Time {
	reached := g.e.World.Tick()
	g.e.LoadState(&g.saved)
	if change != nil {
		change()
	}
	for g.e.World.Tick() < max(reached, g.owed()) {
		g.step()
	}
	g.s.Reconcile(&engine.FrameContext{World: g.e.World})
	return time.Now()
}

// firstAbove returns the first frame of rec, from frame from on, with a
// sample above level on either channel.
func firstAbove(rec *soundtest.Recorder, from int, level float32) (int, bool) {
	l, r := rec.Channels(from)
	for i := range l {
		if max(l[i], -l[i], r[i], -r[i]) > level {
			return from + i, true
		}
	}
	return 0, false
}

// A running game emits a click at a tick (six times, half a second
// apart); the click is heard on the monitor within 400 ms of the frame
// that ran its tick. The figures are logged: from the tick running, from
// Play (in the same frame), and from the tick being due.
func TestLatencyFromTickThroughAudioServer(t *testing.T) {
	m, _ := sharedDevice(t)
	rec := record(t)
	g := newLiveGame(t, m)
	clickSound := &decode.Sound{Name: "click", Rate: soundtest.Rate, Channels: 1, Samples: make([]float32, soundtest.Rate/20)}
	for i := range clickSound.Samples {
		clickSound.Samples[i] = 0.5 // 0.354 on each side, panned to the centre
	}
	click := g.s.Register(clickSound)
	const clicks, first, apart = 6, 30, 30
	if err := g.e.AddSystem(engine.StageScripts, "clicks", func(c *engine.FixedContext) {
		if c.Tick >= first && (c.Tick-first)%apart == 0 && (c.Tick-first)/apart < clicks {
			g.s.Emit(c, sound.Event{Sound: click})
		}
	}); err != nil {
		t.Fatal(err)
	}
	from := rec.Frames()
	var fromTick, fromPlay, fromDue []time.Duration
	for k := range clicks {
		tick := uint64(first + k*apart)
		g.runUntil("the click's tick ran", func() bool { return g.e.World.Tick() >= tick })
		if len(g.out.plays) != k+1 {
			t.Fatalf("%d clicks played by tick %d, want %d", len(g.out.plays), tick, k+1)
		}
		var at int
		g.runUntil("the click was heard", func() bool {
			var ok bool
			at, ok = firstAbove(rec, from, 0.1)
			return ok
		})
		heard := rec.At(at)
		fromTick = append(fromTick, heard.Sub(g.ranAt[tick]))
		fromPlay = append(fromPlay, heard.Sub(g.out.plays[k].at))
		fromDue = append(fromDue, heard.Sub(g.due(tick)))
		from = at + soundtest.Rate/10 // past the click's 50 ms
	}
	t.Logf("latency to the monitor over %d clicks: tick ran → heard %v; Play → heard %v; tick due → heard %v (device buffer %v, the recording's 20 ms included)",
		clicks, fromTick, fromPlay, fromDue, time.Duration(DefaultConfig().Buffer*float64(time.Second)))
	if worst := slices.Max(fromTick); worst > 400*time.Millisecond {
		t.Errorf("a click was heard %v after its tick ran, want within 400 ms", worst)
	}
	if st := g.s.Stats(); st.Started != clicks || st.Reconciled() != 0 {
		t.Errorf("Stats %+v, want %d started, nothing reconciled", st, clicks)
	}
}

// A 1 kHz tone of 2 s starts at tick 30 and is heard; a rollback then
// re-runs from tick 29 with a corrected input in which it never
// happened. On the monitor the tone, heard at full level until then,
// fades out over about sound.Config.FadeOut (50 ms): its fall from 90% to
// 10% of its level, counted in windows of 1 ms, takes 16 to 60 ms (40
// for the linear fade; a cut takes 1), it never rises above its level (no
// double), and after the fade it is not heard again (no restart, not left
// playing). Windows of silence a busy machine might put in (an underrun)
// count for nothing, so they cannot fail the test.
func TestRollbackFadesCancelledSoundThroughAudioServer(t *testing.T) {
	m, _ := sharedDevice(t)
	rec := record(t)
	g := newLiveGame(t, m)
	const rate = soundtest.Rate
	toneSound := &decode.Sound{Name: "tone", Rate: rate, Channels: 1, Samples: make([]float32, 2*rate)}
	for i := range toneSound.Samples {
		toneSound.Samples[i] = float32(0.5 * math.Sin(2*math.Pi*1000*float64(i)/rate))
	}
	tone := g.s.Register(toneSound)
	const n = 30
	g.saveAt = n - 2
	if err := g.e.AddSystem(engine.StageScripts, "tone", func(c *engine.FixedContext) {
		if c.Tick == n && g.mode.Get() == 0 {
			g.s.Emit(c, sound.Event{Sound: tone})
		}
	}); err != nil {
		t.Fatal(err)
	}
	from := rec.Frames()
	var onset int
	g.runUntil("the tone was heard for 300 ms", func() bool {
		var ok bool
		onset, ok = firstAbove(rec, from, 0.1)
		return ok && rec.Frames() >= onset+rate*3/10
	})
	rolled := g.rollback(func() { g.mode.Set(1) })
	if st := g.s.Stats(); st.Started != 1 || st.Faded != 1 || st.Reconciled() != 1 {
		t.Fatalf("Stats %+v after the rollback, want the tone started, then faded", st)
	}
	after := rec.Frames()
	g.runUntil("a second was recorded after the rollback", func() bool { return rec.Frames() >= after+rate })

	// The tone's level in windows of 1 ms (a period of 1 kHz), from its
	// onset.
	left, _ := rec.Channels(onset)
	const win = rate / 1000
	env := make([]float64, len(left)/win)
	for w := range env {
		env[w] = soundtest.Amplitude(left[w*win:(w+1)*win], rate, 1000)
	}
	level := median(env[5:250]) // heard at full for 300 ms before the rollback
	last := -1                  // the last window at 90% or more: the fade's start
	for w, a := range env {
		if a >= 0.9*level {
			last = w
		}
	}
	var falling, sounding int // windows after it between 10% and 90%, and at 5% or more
	for _, a := range env[last+1:] {
		if a > 0.1*level && a < 0.9*level {
			falling++
		}
		if a >= 0.05*level {
			sounding++
		}
	}
	fadeAt := rec.At(onset + (last+1)*win)
	fade := time.Duration(falling) * time.Millisecond
	t.Logf("the tone: level %.4f, peak %.4f, at full for %v; the rollback heard %v after its frame; its fall from 90%% to 10%% took %v (a linear fade over %v: %v), then %d ms above 5%% in the %v recorded after it",
		level, slices.Max(env), time.Duration(last+1)*time.Millisecond, fadeAt.Sub(rolled), fade,
		time.Duration(sound.DefaultConfig().FadeOut*float64(time.Second)), time.Duration(0.8*sound.DefaultConfig().FadeOut*float64(time.Second)),
		sounding, time.Duration(len(env)-last-1)*time.Millisecond)
	if level < 0.3 || level > 0.4 {
		t.Fatalf("the tone's level is %.4f, want about 0.354 (0.5 panned to the centre)", level)
	}
	if peak := slices.Max(env); peak > 1.1*level {
		t.Errorf("the tone rises to %.4f, above its level %.4f: played twice", peak, level)
	}
	if len(env)-last-1 < 500 {
		t.Fatalf("%d ms recorded after the tone's fade began, want 500 or more: it played on", len(env)-last-1)
	}
	if fade < 16*time.Millisecond {
		t.Errorf("the tone fell from 90%% to 10%% in %v, want about 40 ms (a fade, not a cut)", fade)
	}
	if fade > 60*time.Millisecond || sounding > 60 {
		t.Errorf("the tone fell from 90%% to 10%% in %v and sounded for %d ms after its fade began, want about 40 and 50", fade, sounding)
	}
	if d := fadeAt.Sub(rolled); d < 0 || d > 400*time.Millisecond {
		t.Errorf("the fade was heard %v after the rollback's frame, want within 400 ms", d)
	}
}

// median returns x's median (x is left as it was).
func median(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	return s[len(s)/2]
}
