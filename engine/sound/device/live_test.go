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

// The marker sound (its frames tell where in it they are, and its right
// channel its gain) starts at tick 30 and is heard; a rollback then
// re-runs from tick 29 with a corrected input in which it never happened.
// On the monitor it fades out over sound.Config.FadeOut (50 ms): its gain,
// heard at full until then, falls linearly with its position, reaching
// nothing 2,400 frames after it began to fall (a fit of the frames heard
// between 90% and 10%: within 40%; a cut leaves none), never rises above
// full (no double), and is not heard after the fade (no restart, not left
// playing). The fall is measured in the marker's own frames, so that
// milliseconds a busy machine drops or puts in on the way (an underrun) fail
// nothing.
func TestRollbackFadesCancelledSoundThroughAudioServer(t *testing.T) {
	m, _ := sharedDevice(t)
	rec := record(t)
	g := newLiveGame(t, m)
	const rate = soundtest.Rate
	mark := g.s.Register(marker())
	const n = 30
	g.saveAt = n - 2
	if err := g.e.AddSystem(engine.StageScripts, "marker", func(c *engine.FixedContext) {
		if c.Tick == n && g.mode.Get() == 0 {
			g.s.Emit(c, sound.Event{Sound: mark})
		}
	}); err != nil {
		t.Fatal(err)
	}
	from := rec.Frames()
	var onset int
	g.runUntil("the marker was heard for 300 ms", func() bool {
		var ok bool
		onset, ok = firstAbove(rec, from, 0.05)
		return ok && rec.Frames() >= onset+rate*3/10
	})
	rolled := g.rollback(func() { g.mode.Set(1) })
	if st := g.s.Stats(); st.Started != 1 || st.Faded != 1 || st.Reconciled() != 1 {
		t.Fatalf("Stats %+v after the rollback, want the marker started, then faded", st)
	}
	after := rec.Frames()
	g.runUntil("a second was recorded after the rollback", func() bool { return rec.Frames() >= after+rate })

	left, right := rec.Channels(onset)
	gain := func(i int) float64 { return float64(right[i]) / 0.5 }
	pos := func(i int) float64 { return (float64(left[i]/right[i])*0.5 - 0.1) / 0.4 * markerSeconds * rate }
	last := -1 // the last frame at 90% or more: where the fade begins
	peak := 0.0
	for i := range right {
		if gain(i) >= 0.9 {
			last = i
		}
		peak = max(peak, gain(i))
	}
	// The frames falling from 90% to 10%: gain against position, fitted
	// by least squares; the fade's length is where the line reaches 0
	// from 1.
	var ps, gs []float64
	end := last + 1 // the first frame below 10%
	for i := last + 1; i < len(right); i++ {
		if g := gain(i); g <= 0.1 {
			end = i
			break
		} else if g < 0.9 {
			ps, gs = append(ps, pos(i)), append(gs, g)
		}
	}
	fade := 0.0 // frames
	if len(ps) >= 2 {
		fade = -1 / slope(ps, gs)
	}
	heardAfter := 0 // frames above 2% after the fall to 10% (the fade's last 10% is 240 of them)
	for i := end; i < len(right); i++ {
		if gain(i) > 0.02 {
			heardAfter++
		}
	}
	fadeAt := rec.At(onset + last + 1)
	want := sound.DefaultConfig().FadeOut * rate
	t.Logf("the marker: heard at full to its frame %.0f; the rollback heard %v after its frame; %d frames fell from 90%% to 10%% (%d apart on the monitor), a linear fade of %.0f frames (%.1f ms; %.0f asked); peak gain %.4f; %d frames heard after it in the %v recorded",
		pos(last), fadeAt.Sub(rolled), len(ps), end-last-1, fade, fade/rate*1000, want, peak, heardAfter, time.Duration(len(right)-last-1)*time.Second/rate)
	if len(right)-last-1 < rate/2 {
		t.Fatalf("%d frames recorded after the marker's fade began, want half a second or more: it played on", len(right)-last-1)
	}
	if len(ps) < int(0.2*want) || fade < 0.6*want || fade > 1.4*want {
		t.Errorf("the marker fell from 90%% to 10%% over %d frames heard, a fade of %.0f frames; want a linear fade of %.0f (a fade, not a cut)", len(ps), fade, want)
	}
	if peak > 1.1 {
		t.Errorf("the marker's gain rose to %.4f, above 1: played twice", peak)
	}
	if heardAfter > int(0.1*want)+100 {
		t.Errorf("the marker was heard for %d frames after its fade fell to 10%%, want the fade's last %.0f", heardAfter, 0.1*want)
	}
	if d := fadeAt.Sub(rolled); d < 0 || d > 400*time.Millisecond {
		t.Errorf("the fade was heard %v after the rollback's frame, want within 400 ms", d)
	}
}

// slope returns the least-squares slope of y against x.
func slope(x, y []float64) float64 {
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx /= float64(len(x))
	my /= float64(len(y))
	var sxy, sxx float64
	for i := range x {
		sxy += (x[i] - mx) * (y[i] - my)
		sxx += (x[i] - mx) * (x[i] - mx)
	}
	return sxy / sxx
}

// median returns x's median (x is left as it was).
func median(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	return s[len(s)/2]
}

// markerSeconds is the length of the marker sound.
const markerSeconds = 1.5

// marker returns a stereo sound whose every frame tells where in it it
// is: the left channel rises from 0.1 to 0.5 over its length, the right
// holds 0.5 (played at volume 1 in the centre, both pass unchanged, and
// their ratio holds through any ramp of the gain).
func marker() *decode.Sound {
	n := int(markerSeconds * soundtest.Rate)
	s := &decode.Sound{Name: "marker", Rate: soundtest.Rate, Channels: 2, Samples: make([]float32, 2*n)}
	for i := range n {
		s.Samples[2*i] = float32(0.1 + 0.4*float64(i)/float64(n))
		s.Samples[2*i+1] = 0.5
	}
	return s
}

// markerHeard is what a recording holds of the marker: where it is first
// heard (above 0.01: into the mixer's ramp of 128 frames that starts a
// voice without a click), where in the marker that frame is, how many
// frames are heard at full level, the last position heard, the largest
// steps back and forward from one frame heard at full level to the next
// (a restart steps back; silence between them, an underrun, does not
// count), the loudest right channel (two at once reach 1), and the frames
// the steps forward of more than 50 passed over (lost on the way: an
// underrun on a busy machine).
type markerHeard struct {
	onset   int     // the frame of the recording where it is first heard
	start   float64 // the marker's frame heard there
	frames  int
	end     float64
	back    float64
	forward float64
	loudest float32
	dropped float64 // the frames stepped over, in steps of more than 50
}

// hearMarker reads the marker from a recording's left and right
// channels. Positions are read where the right channel is at full level
// (0.45 or more), from the two channels' ratio; the start is the median
// of the first 200 such, less their distance from the onset.
func hearMarker(left, right []float32) (markerHeard, bool) {
	const full = 0.45
	n := markerSeconds * soundtest.Rate
	pos := func(i int) float64 { return (float64(left[i]/right[i])*0.5 - 0.1) / 0.4 * n }
	h := markerHeard{onset: -1}
	var prev float64
	var starts []float64
	for i := range left {
		h.loudest = max(h.loudest, right[i])
		if h.onset < 0 && right[i] > 0.01 {
			h.onset = i
		}
		if right[i] < full {
			continue
		}
		p := pos(i)
		if h.frames > 0 {
			h.back = max(h.back, prev-p)
			h.forward = max(h.forward, p-prev)
			if p-prev > 50 {
				h.dropped += p - prev - 1
			}
		}
		if len(starts) < 200 {
			starts = append(starts, p-float64(i-h.onset))
		}
		prev = p
		h.frames++
	}
	if h.frames == 0 {
		return h, false
	}
	h.start, h.end = median(starts), prev
	return h, true
}

// A rollback that keeps a sound leaves it playing, and one that adds a
// sound starts it part-way. The marker sound (its frames tell where in it
// they are) starts at tick 30; a rollback re-runs from tick 29 with the
// same input: on the monitor it plays through once, from its start to
// its end, never stepping back (a restart would) nor doubled. Then a
// rollback re-runs from a later tick n with a corrected input in which
// the marker started at n, 20 ticks (333 ms) before: the first frame
// heard is the marker's frame at the time since tick n when the rollback
// reconciled (within 2 ms; sound.Sounds starts it there, to the frame), and
// it plays on from there to its end, once. The time since tick n when it
// is first heard is logged beside it: the difference is the latency.
func TestRollbackKeepsAndStartsPartWayThroughAudioServer(t *testing.T) {
	m, _ := sharedDevice(t)
	rec := record(t)
	g := newLiveGame(t, m)
	const rate = soundtest.Rate
	mark := g.s.Register(marker())
	const kept = 30
	var added uint64 // set before it is reached
	g.saveAt = kept - 2
	if err := g.e.AddSystem(engine.StageScripts, "marker", func(c *engine.FixedContext) {
		if c.Tick == kept || (c.Tick == added && g.mode.Get() == 1) {
			g.s.Emit(c, sound.Event{Sound: mark})
		}
	}); err != nil {
		t.Fatal(err)
	}
	n := int(markerSeconds * rate)

	// Kept.
	from := rec.Frames()
	var onset int
	g.runUntil("the marker was heard for 300 ms", func() bool {
		var ok bool
		onset, ok = firstAbove(rec, from, 0.05)
		return ok && rec.Frames() >= onset+rate*3/10
	})
	g.rollback(nil)
	if st := g.s.Stats(); st.Started != 1 || st.Kept != 1 || st.Reconciled() != 1 {
		t.Fatalf("Stats %+v after the first rollback, want the marker started, then kept", st)
	}
	g.runUntil("the marker's end and 300 ms were recorded", func() bool { return rec.Frames() >= onset+n+rate*3/10 })
	h, ok := hearMarker(rec.Channels(from))
	if !ok {
		t.Fatal("the marker was not heard")
	}
	h.onset += from
	t.Logf("kept: first heard at its frame %.0f, at full to %.0f, %d frames (of %d), largest step back %.1f frames, forward %.1f (%.0f frames dropped on the way); loudest %.4f",
		h.start, h.end, h.frames, n, h.back, h.forward, h.dropped, h.loudest)
	if heard := h.frames + int(h.dropped); math.Abs(h.start) > 50 || math.Abs(h.end-float64(n-1)) > 50 || h.back > 50 || h.loudest > 0.55 || heard < n-300 || heard > n+50 {
		t.Errorf("kept: the marker was heard from its frame %.0f to %.0f, %d frames, stepping back %.1f at most, at most %.4f; want it once from its start to its end (%d frames) at 0.5, never stepping back",
			h.start, h.end, h.frames, h.back, h.loudest, n)
	}

	// Added.
	added = g.e.World.Tick() + 30
	g.saveAt = added - 2
	g.runUntil("20 ticks past the added tick", func() bool { return g.e.World.Tick() >= added+20 })
	from = rec.Frames()
	rolled := g.rollback(func() { g.mode.Set(1) })
	if st := g.s.Stats(); st.Started != 1 || st.Late != 1 || st.Reconciled() != 2 || len(g.out.plays) != 2 {
		t.Fatalf("Stats %+v after the second rollback, %d plays; want the marker started late", st, len(g.out.plays))
	}
	late := g.out.plays[1].p.Start
	skip := int(late * rate)
	g.runUntil("the late marker's end and 300 ms were recorded", func() bool {
		o, ok := firstAbove(rec, from, 0.05)
		return ok && rec.Frames() >= o+n-skip+rate*3/10
	})
	h, ok = hearMarker(rec.Channels(from))
	if !ok {
		t.Fatal("the added marker was not heard")
	}
	h.onset += from
	heardAt := time.Duration(h.start / rate * float64(time.Second))
	want := time.Duration(late * float64(time.Second))
	since := rec.At(h.onset).Sub(g.due(added))
	t.Logf("added: started %v in (the time since its tick when reconciled), first heard at its frame %.0f (%v: %+v off), %v after its tick was due and %v after the rollback's frame; heard to its frame %.0f, %d frames (of %d), step back %.1f at most, forward %.1f (%.0f frames dropped on the way); loudest %.4f",
		want, h.start, heardAt, heardAt-want, since, rec.At(h.onset).Sub(rolled), h.end, h.frames, n-skip, h.back, h.forward, h.dropped, h.loudest)
	if d := heardAt - want; d < -2*time.Millisecond || d > 2*time.Millisecond {
		t.Errorf("added: first heard %v into the marker, want %v (the time since its tick), within 2 ms", heardAt, want)
	}
	if want < 20*time.Second/60 {
		t.Errorf("added: started %v in, want at least the 20 ticks run past it", want)
	}
	if lag := since - heardAt; lag < 0 || lag > 400*time.Millisecond+time.Second/60 {
		t.Errorf("added: heard %v after its tick, at the marker's %v: want it behind real time by the latency, 0 to 417 ms", since, heardAt)
	}
	if heard := h.frames + int(h.dropped); math.Abs(h.end-float64(n-1)) > 50 || h.back > 50 || h.loudest > 0.55 || heard < n-skip-300 || heard > n-skip+50 {
		t.Errorf("added: heard to its frame %.0f, %d frames, stepping back %.1f at most, at most %.4f; want it once to its end (%d frames) at 0.5, never stepping back",
			h.end, h.frames, h.back, h.loudest, n-skip)
	}
}
