package timing

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

// frameAt returns the start of frame k of a display at hz, rounded to the
// nanosecond: the frame times of an ideal display.
func frameAt(k int64, hz int64) time.Duration {
	return time.Duration((k*int64(time.Second) + hz/2) / hz)
}

func newLoop(t testing.TB, rate, maxSteps int) *Loop {
	t.Helper()
	cfg := DefaultConfig()
	cfg.TickRate = rate
	cfg.MaxStepsPerFrame = maxSteps
	return newLoopConfig(t, cfg)
}

func newLoopConfig(t testing.TB, cfg Config) *Loop {
	t.Helper()
	l, err := NewLoop(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// run starts l at time 0 and runs one more frame at elapsed, returning the
// steps of that frame, the alphas passed to render and the steps seen.
func run(l *Loop, elapsed time.Duration) (steps int, alphas []float64, seen []Step) {
	l.Tick(0, nil, nil)
	steps = l.Tick(elapsed, func(s Step) { seen = append(seen, s) }, func(a float64) { alphas = append(alphas, a) })
	return steps, alphas, seen
}

func TestFixedDT(t *testing.T) {
	for _, rate := range []int{1, 30, 60, 144, 1000} {
		l := newLoopConfig(t, Config{TickRate: rate, MaxFrameTime: 2 * time.Second, MaxStepsPerFrame: 5})
		if want := 1 / float64(rate); l.DT() != want {
			t.Errorf("%d Hz: DT() = %v, want %v", rate, l.DT(), want)
		}
		_, _, seen := run(l, time.Second/time.Duration(rate)+1)
		if len(seen) != 1 || seen[0].DT != 1/float64(rate) {
			t.Errorf("%d Hz: steps %+v, want one with DT %v", rate, seen, 1/float64(rate))
		}
	}
	if math.Abs(newLoop(t, 60, 5).DT()-1.0/60.0) > 1e-15 {
		t.Error("60 Hz DT is not 1/60 s")
	}
}

func TestStepsForElapsedTime(t *testing.T) {
	tests := []struct {
		name      string
		rate      int
		elapsed   time.Duration
		wantSteps int
		wantAlpha float64
	}{
		{"one dt at 50 Hz", 50, 20 * time.Millisecond, 1, 0},
		{"one dt at 60 Hz (rounded up to the ns)", 60, 16666667, 1, 20e-9},
		{"just under one dt at 60 Hz", 60, 16666666, 0, 0.99999996},
		{"three dt at 60 Hz", 60, 50 * time.Millisecond, 3, 0},
		{"three dt at 50 Hz", 50, 60 * time.Millisecond, 3, 0},
		{"half a dt", 50, 10 * time.Millisecond, 0, 0.5},
		{"a quarter dt", 50, 5 * time.Millisecond, 0, 0.25},
		{"a quarter dt at 60 Hz", 60, 4166667, 0, 0.25000002},
		{"zero-length frame", 60, 0, 0, 0},
		{"1000 Hz, 2.5 ms", 1000, 2500 * time.Microsecond, 2, 0.5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := newLoop(t, tc.rate, 5)
			steps, alphas, seen := run(l, tc.elapsed)
			if steps != tc.wantSteps || len(seen) != tc.wantSteps {
				t.Errorf("steps = %d (callbacks %d), want %d", steps, len(seen), tc.wantSteps)
			}
			if len(alphas) != 1 {
				t.Fatalf("render called %d times, want 1", len(alphas))
			}
			if math.Abs(alphas[0]-tc.wantAlpha) > 1e-12 {
				t.Errorf("alpha = %.12f, want %.12f", alphas[0], tc.wantAlpha)
			}
			if alphas[0] < 0 || alphas[0] >= 1 {
				t.Errorf("alpha %v outside [0, 1)", alphas[0])
			}
		})
	}
}

func TestRemainderIsKept(t *testing.T) {
	l := newLoop(t, 50, 5)
	l.Tick(0, nil, nil)
	if n := l.Tick(10*time.Millisecond, nil, nil); n != 0 {
		t.Fatalf("half a tick ran %d steps", n)
	}
	if n := l.Tick(20*time.Millisecond, nil, nil); n != 1 {
		t.Fatalf("two halves ran %d steps, want 1", n)
	}
	if a := l.Alpha(); a != 0 {
		t.Errorf("alpha after two halves = %v, want 0", a)
	}
}

func TestLongFrameIsClamped(t *testing.T) {
	tests := []struct {
		maxSteps  int
		wantSteps int
		capped    uint64
	}{
		{0, 15, 0}, // ceil(250 ms / 16.67 ms) = 15
		{5, 5, 10},
	}
	for _, tc := range tests {
		l := newLoop(t, 60, tc.maxSteps)
		steps, alphas, _ := run(l, time.Second)
		if steps != tc.wantSteps {
			t.Errorf("cap %d: a 1 s frame ran %d steps, want %d", tc.maxSteps, steps, tc.wantSteps)
		}
		if alphas[0] < 0 || alphas[0] >= 1 {
			t.Errorf("cap %d: alpha %v outside [0, 1)", tc.maxSteps, alphas[0])
		}
		s := l.Stats()
		if s.ClampedFrames != 1 || s.ClampedTime != 750*time.Millisecond {
			t.Errorf("cap %d: clamped %d frames, %v; want 1 frame, 750ms", tc.maxSteps, s.ClampedFrames, s.ClampedTime)
		}
		if s.CappedTicks != tc.capped {
			t.Errorf("cap %d: capped ticks %d, want %d", tc.maxSteps, s.CappedTicks, tc.capped)
		}
		if tc.capped > 0 {
			if s.CappedFrames != 1 || s.CappedTime != 166666666 {
				t.Errorf("cap %d: capped frames %d, time %v; want 1, 166.666666ms", tc.maxSteps, s.CappedFrames, s.CappedTime)
			}
			if s.Debt != 250*time.Millisecond {
				t.Errorf("debt %v, want 250ms", s.Debt)
			}
			if got, want := s.DroppedTime(), 750*time.Millisecond+166666666; got != want {
				t.Errorf("dropped %v, want %v", got, want)
			}
		}
	}
}

func TestSimTimeIsComputedFromTicks(t *testing.T) {
	for _, rate := range []int{60, 144, 7, 1000} {
		l := newLoop(t, rate, 0)
		now := time.Duration(0)
		l.Tick(now, nil, nil)
		var last Step
		for i := 0; i < 5000; i++ {
			now += 3 * time.Millisecond
			l.Tick(now, func(s Step) {
				if s.Tick != last.Tick+1 {
					t.Fatalf("%d Hz: tick %d after %d", rate, s.Tick, last.Tick)
				}
				want := time.Duration(s.Tick * uint64(time.Second) / uint64(rate))
				if s.SimTime != want {
					t.Fatalf("%d Hz: tick %d sim time %v, want %v", rate, s.Tick, s.SimTime, want)
				}
				last = s
			}, nil)

		}
		if want := time.Duration(l.Ticks() * uint64(time.Second) / uint64(rate)); l.SimTime() != want {
			t.Errorf("%d Hz: SimTime %v, want %v", rate, l.SimTime(), want)
		}
		if l.Ticks() != last.Tick {
			t.Errorf("%d Hz: Ticks %d, last step %d", rate, l.Ticks(), last.Tick)
		}
	}
}

func TestFrameCountIncrementsOncePerTick(t *testing.T) {
	l := newLoop(t, 60, 5)
	for i := 1; i <= 10; i++ {
		l.Tick(time.Duration(i)*100*time.Millisecond, nil, nil)
		if l.Frames() != uint64(i) || l.Stats().Frames != uint64(i) {
			t.Fatalf("after %d Frames, Frames() = %d, Stats().Frames = %d", i, l.Frames(), l.Stats().Frames)
		}
	}
}

func TestZeroAndNegativeFrames(t *testing.T) {
	l := newLoop(t, 60, 5)
	l.Tick(time.Second, nil, nil)
	var alphas []float64
	render := func(a float64) { alphas = append(alphas, a) }
	if n := l.Tick(time.Second, nil, render); n != 0 {
		t.Errorf("zero-length frame ran %d steps", n)
	}
	if n := l.Tick(time.Second-time.Millisecond, nil, render); n != 0 {
		t.Errorf("negative frame ran %d steps", n)
	}
	if len(alphas) != 2 || alphas[0] != 0 || alphas[1] != 0 {
		t.Errorf("alphas %v, want [0 0]", alphas)
	}
	if got := l.Stats().NonPositiveFrames; got != 2 {
		t.Errorf("NonPositiveFrames = %d, want 2", got)
	}
	// Time runs on from the backwards reading, not from the earlier one.
	if n := l.Tick(time.Second-time.Millisecond+20*time.Millisecond, nil, nil); n != 1 {
		t.Errorf("frame after the anomaly ran %d steps, want 1", n)
	}
}

func TestSameFrameTimesGiveSameResults(t *testing.T) {
	type frame struct {
		ticks uint64
		sim   time.Duration
		alpha float64
	}
	record := func() []frame {
		l := newLoop(t, 60, 5)
		var out []frame
		now := time.Duration(0)
		seed := uint64(42)
		for i := 0; i < 10000; i++ {
			seed = seed*6364136223846793005 + 1442695040888963407
			now += time.Duration(seed>>40) % (40 * time.Millisecond)
			l.Tick(now, nil, func(a float64) { out = append(out, frame{l.Ticks(), l.SimTime(), a}) })
		}
		return out
	}
	a, b := record(), record()
	if len(a) != len(b) {
		t.Fatalf("lengths differ: %d, %d", len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("frame %d: %+v != %+v", i, a[i], b[i])
		}
	}
}

// TestNoDriftOverADay feeds 24 hours of frames of an ideal 144 Hz display
// (frame k at k/144 s, rounded to the nanosecond) and expects exactly
// 24*3600*rate ticks.
func TestNoDriftOverADay(t *testing.T) {
	tests := []struct {
		rate     int
		hours    int64
		maxSteps int
	}{
		{60, 24, 5},
		{144, 1, 5},
		{7, 1, 5},
		{1000, 1, 0}, // about 6.9 ticks a frame: needs no cap
	}
	if testing.Short() {
		tests = tests[1:]
	}
	for _, tc := range tests {
		l := newLoop(t, tc.rate, tc.maxSteps)
		frames := tc.hours * 3600 * 144
		for k := int64(0); k <= frames; k++ {
			l.Tick(frameAt(k, 144), nil, nil)
		}
		want := uint64(tc.hours * 3600 * int64(tc.rate))
		if l.Ticks() != want {
			t.Errorf("%d Hz over %d h of 144 Hz frames: %d ticks, want %d", tc.rate, tc.hours, l.Ticks(), want)
		}
		if l.SimTime() != time.Duration(tc.hours)*time.Hour {
			t.Errorf("%d Hz: sim time %v, want %dh", tc.rate, l.SimTime(), tc.hours)
		}
		if s := l.Stats(); s.CappedTicks != 0 || s.ClampedFrames != 0 {
			t.Errorf("%d Hz: an ideal display dropped time: %+v", tc.rate, s)
		}
	}
}

func TestPauseResumeHasNoBurst(t *testing.T) {
	l := newLoop(t, 60, 0) // no step cap, so a burst would show
	const hz = 144
	k := int64(0)
	for ; k <= hz; k++ { // one second
		l.Tick(frameAt(k, hz), nil, nil)
	}
	before := l.Ticks()
	alpha := l.Alpha()

	// Paused while frames keep rendering for 10 s.
	l.Pause()
	for end := k + 10*hz; k <= end; k++ {
		if n := l.Tick(frameAt(k, hz), nil, nil); n != 0 {
			t.Fatalf("paused frame ran %d ticks", n)
		}
	}
	if l.Ticks() != before || l.Alpha() != alpha {
		t.Fatalf("pause changed ticks %d -> %d, alpha %v -> %v", before, l.Ticks(), alpha, l.Alpha())
	}
	l.Resume(frameAt(k-1, hz))
	for end := k + hz; k <= end; k++ {
		if n := l.Tick(frameAt(k, hz), nil, nil); n > 1 {
			t.Fatalf("frame %d after resume ran %d ticks", k, n)
		}
	}
	if got := l.Ticks() - before; got < 59 || got > 61 {
		t.Errorf("one second after resume ran %d ticks, want about 60", got)
	}

	// Paused with no frames at all for a minute (a minimised window).
	l.Pause()
	before = l.Ticks()
	resumeAt := frameAt(k, hz) + time.Minute
	l.Resume(resumeAt)
	if n := l.Tick(resumeAt+frameAt(1, hz), nil, nil); n > 1 {
		t.Errorf("first frame after a silent pause ran %d ticks", n)
	}
	if s := l.Stats(); s.ClampedFrames != 0 {
		t.Errorf("resume was treated as a long frame: %d clamped", s.ClampedFrames)
	}
	if l.Ticks()-before > 1 {
		t.Errorf("burst after silent pause: %d ticks", l.Ticks()-before)
	}
}

func TestReset(t *testing.T) {
	l := newLoop(t, 60, 5)
	l.Tick(0, nil, nil)
	l.Tick(time.Second, nil, nil)
	if err := l.SetTickRate(30); err != nil {
		t.Fatal(err)
	}
	l.Pause()
	l.Reset()
	if l.Ticks() != 0 || l.Frames() != 0 || l.Alpha() != 0 || l.Paused() || l.Stats() != (Stats{}) {
		t.Fatalf("Reset left state: ticks %d frames %d alpha %v paused %v stats %+v", l.Ticks(), l.Frames(), l.Alpha(), l.Paused(), l.Stats())
	}
	if l.TickRate() != 30 {
		t.Errorf("Reset changed the tick rate to %d", l.TickRate())
	}
	l.Tick(5*time.Second, nil, nil)
	if n := l.Tick(5*time.Second+100*time.Millisecond, nil, nil); n != 3 {
		t.Errorf("after Reset 100 ms at 30 Hz ran %d ticks, want 3", n)
	}
}

func TestSetTickRateKeepsSimTimeAndAlpha(t *testing.T) {
	l := newLoopConfig(t, Config{TickRate: 60, MaxFrameTime: 2 * time.Second})
	l.Tick(0, nil, nil)
	l.Tick(time.Second+time.Second/120, nil, nil) // 60.5 ticks
	if l.Ticks() != 60 || l.Alpha() < 0.49 || l.Alpha() > 0.51 {
		t.Fatalf("ticks %d alpha %v", l.Ticks(), l.Alpha())
	}
	alpha := l.Alpha()
	if err := l.SetTickRate(10); err != nil {
		t.Fatal(err)
	}
	if l.Alpha() != alpha || l.SimTime() != time.Second {
		t.Errorf("rate change moved alpha %v -> %v or sim time to %v", alpha, l.Alpha(), l.SimTime())
	}
	var last Step
	l.Tick(2*time.Second+time.Second/120, func(s Step) { last = s }, nil)
	if last.Tick != 70 || last.SimTime != 2*time.Second || last.DT != 0.1 {
		t.Errorf("after 1 s at 10 Hz last step %+v, want tick 70 at 2s with DT 0.1", last)
	}
	if err := l.SetTickRate(0); err == nil || l.TickRate() != 10 {
		t.Errorf("SetTickRate(0) = %v, rate now %d", err, l.TickRate())
	}
}

func TestRollingRates(t *testing.T) {
	l := newLoop(t, 60, 5)
	for k := int64(0); k <= 3*144; k++ {
		l.Tick(frameAt(k, 144), nil, nil)
	}
	s := l.Stats()
	if math.Abs(s.FPS-144) > 0.5 || math.Abs(s.UPS-60) > 0.5 {
		t.Errorf("FPS %.3f UPS %.3f, want 144 and 60", s.FPS, s.UPS)
	}
	// Pausing brings UPS to zero within a second; FPS stays.
	l.Pause()
	for k := int64(3*144 + 1); k <= 5*144; k++ {
		l.Tick(frameAt(k, 144), nil, nil)
	}
	s = l.Stats()
	if s.UPS != 0 || math.Abs(s.FPS-144) > 0.5 {
		t.Errorf("paused: FPS %.3f UPS %.3f, want 144 and 0", s.FPS, s.UPS)
	}
	if s.Interval != frameAt(5*144, 144)-frameAt(5*144-1, 144) || s.Time != frameAt(5*144, 144) {
		t.Errorf("interval %v time %v", s.Interval, s.Time)
	}
}

func TestConfigValidation(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*Config)
		want   string // substring of the error; "" for valid
	}{
		{"default", func(*Config) {}, ""},
		{"1 Hz", func(c *Config) { c.TickRate = 1 }, ""},
		{"1000 Hz", func(c *Config) { c.TickRate = 1000 }, ""},
		{"no cap", func(c *Config) { c.MaxStepsPerFrame = 0 }, ""},
		{"0 Hz", func(c *Config) { c.TickRate = 0 }, "tick rate must be an integer from 1 to 1000 Hz, got 0"},
		{"5000 Hz", func(c *Config) { c.TickRate = 5000 }, "got 5000"},
		{"negative Hz", func(c *Config) { c.TickRate = -60 }, "got -60"},
		{"zero max frame", func(c *Config) { c.MaxFrameTime = 0 }, "max frame time must be in (0, 1h0m0s], got 0s"},
		{"huge max frame", func(c *Config) { c.MaxFrameTime = 2 * time.Hour }, "got 2h0m0s"},
		{"negative cap", func(c *Config) { c.MaxStepsPerFrame = -1 }, "max steps per frame must be 0 (no cap) or positive, got -1"},
		{"zero value", func(c *Config) { *c = Config{} }, "tick rate"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			tc.modify(&cfg)
			l, err := NewLoop(cfg)
			if tc.want == "" {
				if err != nil || l == nil {
					t.Fatalf("NewLoop(%+v) = %v", cfg, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "timing: ") {
				t.Fatalf("NewLoop(%+v) error %q, want it to contain %q", cfg, err, tc.want)
			}
		})
	}
}

func TestMustNewLoopPanicsWithMessage(t *testing.T) {
	defer func() {
		r := recover()
		if s, ok := r.(string); !ok || !strings.HasPrefix(s, "timing: tick rate") {
			t.Errorf("panic %v, want a message starting with 'timing: tick rate'", r)
		}
	}()
	MustNewLoop(Config{})
}

func TestTickDoesNotAllocate(t *testing.T) {
	l := newLoop(t, 60, 5)
	var sink uint64
	fixed := func(s Step) { sink += s.Tick }
	render := func(a float64) {}
	k := int64(0)
	allocs := testing.AllocsPerRun(10000, func() {
		l.Tick(frameAt(k, 144), fixed, render)
		k++
	})
	if allocs != 0 {
		t.Errorf("Tick allocates %v times per frame", allocs)
	}
	_ = sink
}

func TestStepDueTimes(t *testing.T) {
	l := newLoop(t, 50, 5) // 20 ms ticks
	l.Tick(100*time.Millisecond, nil, nil)
	l.Tick(110*time.Millisecond, nil, nil) // half a tick owed
	var dues []time.Duration
	l.Tick(165*time.Millisecond, func(s Step) { dues = append(dues, s.Due) }, nil)
	// The accumulator held 10 ms at 110 ms: ticks became due at 120, 140
	// and 160 ms.
	want := []time.Duration{120 * time.Millisecond, 140 * time.Millisecond, 160 * time.Millisecond}
	if !slices.Equal(dues, want) {
		t.Errorf("due times %v, want %v", dues, want)
	}
	// A clamped frame compresses its ticks into the first 250 ms.
	dues = dues[:0]
	l.Tick(1165*time.Millisecond, func(s Step) { dues = append(dues, s.Due) }, nil)
	want = []time.Duration{180 * time.Millisecond, 200 * time.Millisecond, 220 * time.Millisecond, 240 * time.Millisecond, 260 * time.Millisecond}
	if !slices.Equal(dues, want) {
		t.Errorf("clamped frame due times %v, want %v", dues, want)
	}
}

func TestPauseFromFixedStopsTheFrame(t *testing.T) {
	l := newLoop(t, 60, 0)
	l.Tick(0, nil, nil)
	var last uint64
	n := l.Tick(100*time.Millisecond+time.Millisecond, func(s Step) {
		last = s.Tick
		if s.Tick == 3 {
			l.Pause()
		}
	}, nil)

	if n != 3 || last != 3 || l.Ticks() != 3 {
		t.Errorf("pause at tick 3 of 6: ran %d, last %d, Ticks %d", n, last, l.Ticks())
	}
	if a := l.Alpha(); a < 0 || a >= 1 {
		t.Errorf("alpha %v after pausing mid-frame", a)
	}
}

// Resume(t) makes t the time reference: a Tick at t runs nothing and is no
// anomaly, and the next frame accumulates only the time since t.
func TestResumeSetsTheTimeReference(t *testing.T) {
	l := newLoop(t, 100, 0) // 10 ms ticks, no cap so a burst would show
	l.Tick(0, nil, nil)
	l.Tick(15*time.Millisecond, nil, nil) // one tick, half a tick left
	l.Pause()
	l.Tick(20*time.Millisecond, nil, nil)
	alpha := l.Alpha()

	resume := 10 * time.Second
	l.Resume(resume)
	if n := l.Tick(resume, nil, nil); n != 0 {
		t.Errorf("Tick at the resume ran %d ticks", n)
	}
	if s := l.Stats(); s.NonPositiveFrames != 0 || s.ClampedFrames != 0 || l.Alpha() != alpha {
		t.Errorf("Resume(t) then Tick(t): %d non-positive, %d clamped frames, alpha %v -> %v", s.NonPositiveFrames, s.ClampedFrames, alpha, l.Alpha())
	}
	// The half tick kept plus 5 ms: one tick, due 5 ms after the resume.
	var dues []time.Duration
	if n := l.Tick(resume+7*time.Millisecond, func(s Step) { dues = append(dues, s.Due) }, nil); n != 1 || dues[0] != resume+5*time.Millisecond {
		t.Errorf("frame 7 ms after the resume ran %d ticks due %v, want 1 due %v", n, dues, resume+5*time.Millisecond)
	}
	// A zero interval is an anomaly again once a frame has run.
	l.Tick(resume+7*time.Millisecond, nil, nil)
	if s := l.Stats(); s.NonPositiveFrames != 1 {
		t.Errorf("a repeated frame counted %d non-positive frames, want 1", s.NonPositiveFrames)
	}

	// Without a Tick at the resume, the first frame accumulates the time
	// since Resume and no more.
	l.Pause()
	l.Tick(resume+8*time.Millisecond, nil, nil)
	before := l.Ticks()
	l.Resume(time.Minute)
	if n := l.Tick(time.Minute+25*time.Millisecond, nil, nil); n != 2 || l.Ticks() != before+2 {
		t.Errorf("first frame 25 ms after a resume ran %d ticks, want 2", n)
	}
	// Time going backwards from the resume is still an anomaly.
	l.Pause()
	l.Resume(2 * time.Minute)
	l.Tick(2*time.Minute-time.Millisecond, nil, nil)
	if s := l.Stats(); s.NonPositiveFrames != 2 {
		t.Errorf("a frame before the resume counted %d non-positive frames, want 2", s.NonPositiveFrames)
	}
}

func TestSetSpeedRunsTicksFasterOrSlower(t *testing.T) {
	for _, c := range []struct {
		speed float64
		ticks uint64 // in 10 s of 60 Hz frames at 60 Hz ticks
	}{{1, 600}, {1.05, 630}, {0.97, 582}, {2, 1200}, {0.5, 300}} {
		l := MustNewLoop(DefaultConfig())
		if err := l.SetSpeed(c.speed); err != nil {
			t.Fatal(err)
		}
		now := time.Duration(0)
		l.Tick(now, nil, nil)
		for range 600 {
			now += time.Second / 60
			l.Tick(now, nil, nil)
		}
		// Within one tick: the last fraction is still in the accumulator.
		if got := l.Ticks(); got+1 < c.ticks || got > c.ticks {
			t.Errorf("speed %v: %d ticks in 10 s, want %d (or one less)", c.speed, got, c.ticks)
		}
	}
}

func TestSetSpeedRefusesOutOfRange(t *testing.T) {
	l := MustNewLoop(DefaultConfig())
	for _, f := range []float64{0, 0.49, 2.01, math.NaN(), -1} {
		if err := l.SetSpeed(f); err == nil {
			t.Errorf("SetSpeed(%v) accepted", f)
		}
	}
	if l.Speed() != 1 {
		t.Errorf("speed %v after refused changes, want 1", l.Speed())
	}
}

func TestSetSpeedKeepsDueTimesWithinTheFrame(t *testing.T) {
	l := MustNewLoop(DefaultConfig())
	l.SetSpeed(1.5)
	now := time.Duration(0)
	l.Tick(now, nil, nil)
	prevDue := time.Duration(-1)
	for range 300 {
		start := now
		now += 7 * time.Millisecond
		l.Tick(now, func(s Step) {
			if s.Due < start || s.Due > now || s.Due < prevDue {
				t.Fatalf("tick %d due at %v, outside the frame (%v, %v] or before the previous tick's %v", s.Tick, s.Due, start, now, prevDue)
			}
			prevDue = s.Due
		}, nil)
	}
}
