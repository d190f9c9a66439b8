package sound

import (
	"math"
	"testing"
	"time"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/geom"
	"github.com/nebulaengine/nebula/engine/sound/decode"
	"github.com/nebulaengine/nebula/engine/sound/mix"
	"github.com/nebulaengine/nebula/internal/soundtest"
)

// tone is a sine of freq Hz at amplitude 0.5, seconds long, at 48 kHz.
func tone(name string, freq, seconds float64) *decode.Sound {
	s := &decode.Sound{Name: name, Rate: 48000, Channels: 1, Samples: make([]float32, int(seconds*48000))}
	for i := range s.Samples {
		s.Samples[i] = float32(0.5 * math.Sin(2*math.Pi*freq*float64(i)/48000))
	}
	return s
}

// In the real mixer, heard: entity a's bounce (a 440 Hz tone, at tick
// 12), cancelled by a rollback to tick 10 whose corrected input makes b
// bounce (660 Hz) at tick 13 instead, fades out over 50 ms from where it
// was, neither cut nor started again; b's starts part-way, its samples
// the sound's from the time since its tick on; and with the prediction
// confirmed instead, a's plays on as if nothing happened.
func TestRollbackHeard(t *testing.T) {
	for _, corrected := range []bool{true, false} {
		e, err := engine.New(engine.DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		m, _ := mix.New(48000)
		s, err := New(e, m, DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		aTone, bTone := s.Register(tone("a", 440, 0.5)), s.Register(tone("b", 660, 0.5))
		a := e.World.Spawn(geom.NewTransform([3]float32{}), engine.Interpolate)
		b := e.World.Spawn(geom.NewTransform([3]float32{1, 0, 0}), engine.Interpolate)
		mode := engine.NewResource(e.World, "mode", uint32(0))
		if err := e.AddSystem(engine.StageScripts, "bounces", func(c *engine.FixedContext) {
			switch {
			case c.Tick == 12 && mode.Get() == 0:
				s.Emit(c, Event{Sound: aTone, Entity: a})
			case c.Tick == 13 && mode.Get() == 1:
				s.Emit(c, Event{Sound: bTone, Entity: b})
			}
		}); err != nil {
			t.Fatal(err)
		}
		const perTick = 800 // frames a tick at 48 kHz and 60 Hz
		var left []float32
		buf := make([]float32, 2*perTick)
		run := func(to uint64) { // ticks up to to, then one frame of sound
			for e.World.Tick() < to {
				if !e.StepTick(engine.TickTime(e.World.Tick()+1, e.TickRate())) {
					t.Fatal(e.Err())
				}
			}
			s.Reconcile(&engine.FrameContext{World: e.World})
			m.Mix(buf)
			for i := 0; i < len(buf); i += 2 {
				left = append(left, buf[i])
			}
		}
		var at10 engine.State
		for e.World.Tick() < 15 {
			run(e.World.Tick() + 1)
			if e.World.Tick() == 10 {
				e.SaveState(&at10)
			}
		}
		// a's bounce started in tick 12's frame, so 4 frames of it (3,200
		// samples) are out. Now the rollback: back to 10, re-run to 16 in
		// one frame.
		heardA := len(left) - 11*perTick
		e.LoadState(&at10)
		if corrected {
			mode.Set(1)
		}
		run(16)
		for e.World.Tick() < 40 {
			run(e.World.Tick() + 1)
		}
		after := left[15*perTick:]
		const fade = 2400 // 50 ms
		aSound := s.Sound(aTone).Samples
		if !corrected {
			// a plays on, sample for sample from where it was.
			for i := range 6000 {
				if want := aSound[heardA+i]; math.Abs(float64(after[i]-want*float32(math.Sqrt2/2))) > 1e-5 {
					t.Fatalf("confirmed: sample %d after the rollback is %v, want a's %v at its sample %d", i, after[i], want, heardA+i)
				}
			}
			if st := s.Stats(); st.Kept != 1 || st.Reconciled() != 1 {
				t.Errorf("confirmed: Stats %+v, want a's bounce kept, nothing else", st)
			}
			continue
		}
		// a fades: its 440 Hz falls linearly to nothing over the fade,
		// with no step larger than the tone's own; b is at 660 Hz from
		// the start, part-way in.
		a440 := func(from, to int) float64 { return soundtest.Amplitude(after[from:to], 48000, 440) }
		first, second := a440(0, fade/2), a440(fade/2, fade)
		t.Logf("corrected: a's 440 Hz over the fade's halves %.3f and %.3f, after it %.4f", first, second, a440(fade, 2*fade))
		if first < 0.2 || second > first*0.5 || a440(fade, 2*fade) > 0.005 {
			t.Errorf("a's bounce after the rollback: 440 Hz amplitude %.3f then %.3f, then %.4f after the fade; want a fade from about 0.27 to nothing", first, second, a440(fade, 2*fade))
		}
		// b's samples: reconciled at tick 16, 3 ticks (2,400 samples) after
		// its tick, so it starts 2,400 samples in (after the de-click ramp
		// of 128 frames).
		bSound := s.Sound(bTone).Samples
		for i := 200; i < 2000; i += 97 {
			got := after[fade+i] // a has faded by then
			if want := bSound[2400+fade+i] * float32(math.Sqrt2/2); math.Abs(float64(got-want)) > 1e-5 {
				t.Fatalf("corrected: sample %d is %v, want b's sample %d, %v", fade+i, got, 2400+fade+i, want)
			}
		}
		if st := s.Stats(); st.Faded != 1 || st.Late != 1 || st.Started != 1 {
			t.Errorf("corrected: Stats %+v, want 1 started, 1 faded, 1 late", st)
		}
	}
}

// In the real mixer, heard: a change of streamed track cross-fades, both
// files streaming at once, track A (440 Hz) falling and track B (660 Hz)
// rising over Music.Fade (30 ticks, half a second), then B alone; each
// frame waits for the streams' rings (Mixer.Buffered), so nothing runs
// dry.
func TestStreamedCrossFadeHeard(t *testing.T) {
	e, err := engine.New(engine.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	m, _ := mix.New(48000)
	t.Cleanup(m.Close)
	s, err := New(e, m, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	a, err := s.RegisterStream(writeTrack(t, "a", 440, 3))
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.RegisterStream(writeTrack(t, "b", 660, 3))
	if err != nil {
		t.Fatal(err)
	}
	if err := e.AddSystem(engine.StageScripts, "music", func(c *engine.FixedContext) {
		switch c.Tick {
		case 2:
			s.Music().Set(Music{Track: a, Start: c.Tick})
		case 20:
			s.Music().Set(Music{Track: b, Start: c.Tick, Fade: 30})
		}
	}); err != nil {
		t.Fatal(err)
	}
	const perTick = 800
	var left []float32
	buf := make([]float32, 2*perTick)
	streamsMidFade := 0
	for e.World.Tick() < 80 {
		if !e.StepTick(engine.TickTime(e.World.Tick()+1, e.TickRate())) {
			t.Fatal(e.Err())
		}
		s.Reconcile(&engine.FrameContext{World: e.World})
		deadline := time.Now().Add(time.Minute) // against a hang only
		for !m.Buffered() {
			if time.Now().After(deadline) {
				t.Fatal("the streams never filled their rings")
			}
			time.Sleep(100 * time.Microsecond)
		}
		m.Mix(buf)
		for i := 0; i < len(buf); i += 2 {
			left = append(left, buf[i])
		}
		if e.World.Tick() == 35 {
			streamsMidFade = m.Stats().Streams
		}
	}
	// Tick 20's frame, the 20th, starts the fade: 0.5 s from sample 15,200.
	const from, fade, win = 19 * perTick, 24000, 4800
	amp := func(freq float64, at int) float64 { return soundtest.Amplitude(left[at:at+win], 48000, freq) }
	full := 0.5 * math.Sqrt2 / 2 // a mono track at the centre
	before, aStart, aEnd, bStart, bEnd, after := amp(440, from-win), amp(440, from), amp(440, from+fade-win), amp(660, from), amp(660, from+fade-win), amp(660, from+fade+win)
	t.Logf("A before the fade %.3f; over its first and last tenth of a second A %.3f → %.3f, B %.3f → %.3f; B after %.3f (full %.3f)", before, aStart, aEnd, bStart, bEnd, after, full)
	if math.Abs(before-full) > 0.01 || math.Abs(after-full) > 0.01 {
		t.Errorf("A before the fade %.3f, B after it %.3f; want both %.3f", before, after, full)
	}
	// Linear fades: about 0.9 and 0.1 of full over the first and last
	// tenths.
	if math.Abs(aStart-0.9*full) > 0.03 || math.Abs(aEnd-0.1*full) > 0.03 || math.Abs(bStart-0.1*full) > 0.03 || math.Abs(bEnd-0.9*full) > 0.03 {
		t.Errorf("over the fade A %.3f → %.3f and B %.3f → %.3f; want A from 0.9 to 0.1 of %.3f, B from 0.1 to 0.9", aStart, aEnd, bStart, bEnd, full)
	}
	if a := amp(440, from+fade+win); a > 1e-3 {
		t.Errorf("A after the fade: %.4f, want nothing", a)
	}
	if streamsMidFade != 2 {
		t.Errorf("%d streams open during the fade, want both", streamsMidFade)
	}
	// A's voice has ended: its feeder returns (an event; the deadline is
	// against a hang).
	for deadline := time.Now().Add(time.Minute); m.Stats().Streams > 1 && time.Now().Before(deadline); {
		time.Sleep(100 * time.Microsecond)
	}
	if st := m.Stats(); st.StreamUnderruns != 0 || st.Streams != 1 {
		t.Errorf("Stats %+v; want no underrun, B alone streaming", st)
	}
}
