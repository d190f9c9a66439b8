package diag

import (
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	"github.com/sirupsen/logrus/hooks/test"

	"github.com/nebulaengine/nebula/timing"
)

const ms = time.Millisecond

func newLogger() (*logrus.Logger, *test.Hook) {
	log, hook := test.NewNullLogger()
	log.SetLevel(logrus.DebugLevel)
	return log, hook
}

func newTestMonitor(t testing.TB, cfg Config) (*Monitor, *test.Hook) {
	t.Helper()
	log, hook := newLogger()
	cfg.Warmup = 0 // the tests judge from frame 1 (TestWarmup checks the default)
	m := NewMonitor(cfg, log)
	if n := len(hook.AllEntries()); n != 0 {
		t.Fatalf("NewMonitor logged %d lines: %v", n, hook.AllEntries()[0].Message)
	}
	return m, hook
}

// line is the part of a log entry the tests compare.
type line struct {
	level  logrus.Level
	msg    string
	fields logrus.Fields
}

func lines(hook *test.Hook) []line {
	var out []line
	for _, e := range hook.AllEntries() {
		out = append(out, line{e.Level, e.Message, e.Data})
	}
	hook.Reset()
	return out
}

func checkLines(t *testing.T, hook *test.Hook, want ...line) {
	t.Helper()
	got := lines(hook)
	if len(got) != len(want) {
		t.Fatalf("got %d log lines, want %d:\n got %+v\nwant %+v", len(got), len(want), got, want)
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.level != w.level || g.msg != w.msg || len(g.fields) != len(w.fields) {
			t.Errorf("line %d:\n got %+v\nwant %+v", i, g, w)
			continue
		}
		for k, v := range w.fields {
			if g.fields[k] != v {
				t.Errorf("line %d field %s = %#v, want %#v", i, k, g.fields[k], v)
			}
		}
	}
}

func TestDefaultConfigScalesToTheTickRate(t *testing.T) {
	for _, c := range []struct {
		hz   int
		want Config
	}{
		{60, Config{FixedWarn: 14 * ms, FixedCritical: 16666666, RenderWarn: 12 * ms, RenderCritical: 16 * ms,
			DebtWarn: 50 * ms, DebtCritical: 100 * ms}},
		{30, Config{FixedWarn: 28 * ms, FixedCritical: 33333333, RenderWarn: 24 * ms, RenderCritical: 32 * ms,
			DebtWarn: 100 * ms, DebtCritical: 200 * ms}},
		{120, Config{FixedWarn: 7 * ms, FixedCritical: 8333333, RenderWarn: 6 * ms, RenderCritical: 8 * ms,
			DebtWarn: 25 * ms, DebtCritical: 50 * ms}},
	} {
		w := c.want
		w.StepsWarn, w.StepsCritical = 2, 4
		w.LogEvery, w.SlowFrames, w.SlowMin, w.SlowWindow, w.RecoverAfter, w.Warmup = time.Second, 2, time.Second, 2*time.Second, 2*time.Second, 1
		got := DefaultConfig(c.hz)
		if got != w {
			t.Errorf("DefaultConfig(%d) =\n %+v\nwant\n %+v", c.hz, got, w)
		}
		if err := got.Validate(); err != nil {
			t.Errorf("DefaultConfig(%d).Validate() = %v", c.hz, err)
		}
	}
}

func TestScaledThresholdsApply(t *testing.T) {
	// Each side of the scaled fixed thresholds: 28 ms and 33.33 ms at 30 Hz,
	// 7 ms and 8.33 ms at 120 Hz.
	for _, c := range []struct {
		hz    int
		fixed time.Duration
		level logrus.Level // 0: no line
	}{
		{30, 28 * ms, 0},
		{30, 28*ms + 1, logrus.WarnLevel},
		{30, 33333334, logrus.ErrorLevel},
		{120, 7 * ms, 0},
		{120, 7*ms + 1, logrus.WarnLevel},
		{120, 8333334, logrus.ErrorLevel},
	} {
		m, hook := newTestMonitor(t, DefaultConfig(c.hz))
		m.Observe(0, &Figures{Loop: timing.Stats{Frames: 1}, FixedCPU: c.fixed})
		got := hook.AllEntries()
		switch {
		case c.level == 0 && len(got) != 0:
			t.Errorf("%d Hz, fixed %v: logged %q, want nothing", c.hz, c.fixed, got[0].Message)
		case c.level != 0 && (len(got) != 1 || got[0].Level != c.level):
			t.Errorf("%d Hz, fixed %v: logged %d lines, want one at %v", c.hz, c.fixed, len(got), c.level)
		}
	}
}

func TestDefaultConfigRejectsBadTickRate(t *testing.T) {
	for _, hz := range []int{0, -60, 1001} {
		if got := DefaultConfig(hz); got != (Config{}) {
			t.Errorf("DefaultConfig(%d) = %+v, want the zero Config", hz, got)
		}
	}
	want := "diag: FixedWarn must be positive, got 0s"
	if err := DefaultConfig(0).Validate(); err == nil || err.Error() != want {
		t.Errorf("DefaultConfig(0).Validate() = %v, want %q", err, want)
	}
}

func TestConfigValidate(t *testing.T) {
	for _, c := range []struct {
		change func(*Config)
		want   string
	}{
		{func(c *Config) { c.FixedWarn = -1 }, "diag: FixedWarn must be positive, got -1ns"},
		{func(c *Config) { c.FixedCritical = 13 * ms }, "diag: FixedCritical (13ms) must not be below FixedWarn (14ms)"},
		{func(c *Config) { c.RenderWarn = 0 }, "diag: RenderWarn must be positive, got 0s"},
		{func(c *Config) { c.RenderCritical = 11 * ms }, "diag: RenderCritical (11ms) must not be below RenderWarn (12ms)"},
		{func(c *Config) { c.StepsWarn = 0 }, "diag: StepsWarn must be positive, got 0"},
		{func(c *Config) { c.StepsCritical = 1 }, "diag: StepsCritical (1) must not be below StepsWarn (2)"},
		{func(c *Config) { c.DebtWarn = 0 }, "diag: DebtWarn must be positive, got 0s"},
		{func(c *Config) { c.DebtCritical = 40 * ms }, "diag: DebtCritical (40ms) must not be below DebtWarn (50ms)"},
		{func(c *Config) { c.LogEvery = 0 }, "diag: LogEvery must be positive, got 0s"},
		{func(c *Config) { c.SlowFrames = 0 }, "diag: SlowFrames must be at least 1, got 0"},
		{func(c *Config) { c.SlowWindow = 0 }, "diag: SlowWindow must be positive, got 0s"},
		{func(c *Config) { c.SlowMin = 3 * time.Second }, "diag: SlowMin must be in (0, SlowWindow = 2s], got 3s"},
		{func(c *Config) { c.SlowMin = 0 }, "diag: SlowMin must be in (0, SlowWindow = 2s], got 0s"},
		{func(c *Config) { c.RecoverAfter = -time.Second }, "diag: RecoverAfter must be positive, got -1s"},
		{func(c *Config) { c.FixedCritical = c.FixedWarn; c.StepsCritical = c.StepsWarn }, ""}, // equal is allowed
	} {
		cfg := DefaultConfig(60)
		c.change(&cfg)
		err := cfg.Validate()
		if c.want == "" {
			if err != nil {
				t.Errorf("Validate() = %v, want nil", err)
			}
		} else if err == nil || err.Error() != c.want {
			t.Errorf("Validate() = %v, want %q", err, c.want)
		}
	}
}

func TestNewMonitorWithInvalidConfigLogsAndUsesDefaults(t *testing.T) {
	log, hook := test.NewNullLogger()
	cfg := DefaultConfig(60)
	cfg.LogEvery = 0
	m := NewMonitor(cfg, log)
	got := hook.AllEntries()
	if len(got) != 1 || got[0].Level != logrus.ErrorLevel ||
		got[0].Data[logrus.ErrorKey].(error).Error() != "diag: LogEvery must be positive, got 0s" {
		t.Fatalf("logged %+v, want one error naming LogEvery", got)
	}
	if m.Config() != DefaultConfig(timing.DefaultTickRate) {
		t.Errorf("Config() = %+v, want the defaults", m.Config())
	}
	NewMonitor(DefaultConfig(60), nil).Observe(0, &Figures{FixedCPU: time.Hour}) // a nil logger discards
}

// fixedAt returns frame n (1-based) of a 60 Hz display with the given fixed
// time; it starts at now.
func fixedAt(n int, fixed time.Duration) (time.Duration, *Figures) {
	return time.Duration(n-1) * time.Second / 60, &Figures{Loop: timing.Stats{Frames: uint64(n), Tick: uint64(n - 1)}, FixedCPU: fixed}
}

func TestWarningsAreRateLimitedWithACount(t *testing.T) {
	m, hook := newTestMonitor(t, DefaultConfig(60))
	warn := func(value time.Duration, frame uint64, count uint64) line {
		return line{logrus.WarnLevel, "fixed systems over budget", logrus.Fields{
			"kind": "fixed", "value": value, "threshold": 14 * ms, "frame": frame, "tick": frame - 1, "count": count}}
	}
	// Frames 1..60 (0 to 983 ms) all over 14 ms: the first is logged at
	// once, the other 59 are counted.
	for n := 1; n <= 60; n++ {
		v := 15 * ms
		if n == 30 {
			v = 16 * ms // the worst of them
		}
		m.Observe(fixedAt(n, v))
		if n == 1 {
			checkLines(t, hook, warn(15*ms, 1, 1))
		}
	}
	checkLines(t, hook)
	// Frame 61 starts at exactly 1 s: one line for frames 2..61.
	m.Observe(fixedAt(61, 15*ms))
	checkLines(t, hook, warn(16*ms, 30, 60))

	// Frames 62..70 cross, then the figure falls back under the threshold:
	// their line comes at the first frame a second after the last line
	// (frame 121, at 2 s), though that frame does not cross.
	for n := 62; n <= 120; n++ {
		v := 1 * ms
		if n <= 70 {
			v = 15 * ms
		}
		m.Observe(fixedAt(n, v))
	}
	checkLines(t, hook)
	m.Observe(fixedAt(121, 1*ms))
	checkLines(t, hook, warn(15*ms, 62, 9))

	// Nothing pending: quiet from then on; a crossing much later is logged
	// at once.
	for n := 122; n <= 400; n++ {
		m.Observe(fixedAt(n, 0))
	}
	checkLines(t, hook)
	m.Observe(fixedAt(401, 20*ms))
	checkLines(t, hook, line{logrus.ErrorLevel, "fixed systems over budget", logrus.Fields{
		"kind": "fixed", "value": 20 * ms, "threshold": time.Duration(16666666), "frame": uint64(401), "tick": uint64(400), "count": uint64(1)}})
}

func TestCriticalAndWarningAreSeparate(t *testing.T) {
	cfg := DefaultConfig(60)
	for _, c := range []struct {
		kind             string
		msg              string
		under, warn, bad func(*Figures)
		warnThr, critThr any
		warnVal, critVal any
	}{
		{"fixed", "fixed systems over budget",
			func(f *Figures) { f.FixedCPU = 14 * ms }, func(f *Figures) { f.FixedCPU = 15 * ms }, func(f *Figures) { f.FixedCPU = 17 * ms },
			14 * ms, cfg.FixedCritical, 15 * ms, 17 * ms},
		{"render", "rendering over budget",
			func(f *Figures) { f.RenderCPU = 12 * ms }, func(f *Figures) { f.RenderCPU = 13 * ms }, func(f *Figures) { f.RenderCPU = 16*ms + 1 },
			12 * ms, 16 * ms, 13 * ms, 16*ms + 1},
		{"steps", "too many fixed steps in one frame",
			func(f *Figures) { f.Loop.Steps = 2 }, func(f *Figures) { f.Loop.Steps = 3 }, func(f *Figures) { f.Loop.Steps = 5 },
			2, 4, 3, 5},
		{"debt", "simulation falling behind: accumulator debt high",
			func(f *Figures) { f.Loop.Debt = 50 * ms }, func(f *Figures) { f.Loop.Debt = 60 * ms }, func(f *Figures) { f.Loop.Debt = 150 * ms },
			50 * ms, 100 * ms, 60 * ms, 150 * ms},
	} {
		t.Run(c.kind, func(t *testing.T) {
			m, hook := newTestMonitor(t, cfg)
			at := func(n int, set func(*Figures)) {
				f := &Figures{Loop: timing.Stats{Frames: uint64(n), Tick: 7}}
				set(f)
				m.Observe(time.Duration(n)*10*ms, f)
			}
			at(1, c.under) // at the threshold: not over it
			checkLines(t, hook)
			at(2, c.warn)
			at(3, c.bad)
			at(4, c.warn) // counted, rate-limited
			at(5, c.bad)  // counted, rate-limited
			fields := func(v, thr any, frame uint64) logrus.Fields {
				return logrus.Fields{"kind": c.kind, "value": v, "threshold": thr, "frame": frame, "tick": uint64(7), "count": uint64(1)}
			}
			checkLines(t, hook,
				line{logrus.WarnLevel, c.msg, fields(c.warnVal, c.warnThr, 2)},
				line{logrus.ErrorLevel, c.msg, fields(c.critVal, c.critThr, 3)})
			at(103, c.under) // 1 s after frame 3's line: both pending lines
			got := lines(hook)
			if len(got) != 2 || got[0].level != logrus.WarnLevel || got[0].fields["frame"] != uint64(4) ||
				got[1].level != logrus.ErrorLevel || got[1].fields["frame"] != uint64(5) {
				t.Errorf("a second later got %+v, want the warning of frame 4 and the critical of frame 5", got)
			}
		})
	}
}

// dropper builds frames for the slow-motion tests: each starts at now, came
// interval after the previous and dropped lost.
type dropper struct {
	m       *Monitor
	frame   uint64
	dropped time.Duration
}

func (d *dropper) at(now, interval, lost time.Duration) {
	d.frame++
	d.dropped += lost
	d.m.Observe(now, &Figures{Loop: timing.Stats{Frames: d.frame, Interval: interval, ClampedTime: d.dropped}})
}

// run observes frames every step from (and excluding) from until to, none
// dropping time.
func (d *dropper) run(from, to, step time.Duration) {
	for now := from + step; now <= to; now += step {
		d.at(now, step, 0)
	}
}

const slowMsg = "running in slow motion: the frame-time clamp and step cap keep dropping time"

func TestSlowMotionStartsWhenDropsCoverTheMinimum(t *testing.T) {
	for _, c := range []struct {
		name   string
		second time.Duration // interval of the second dropping frame
		slow   bool
	}{
		{"exactly 1 s", 500 * ms, true},
		{"1 ns short", 500*ms - 1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, hook := newTestMonitor(t, DefaultConfig(60))
			d := &dropper{m: m}
			d.at(0, 0, 0)
			d.at(500*ms, 500*ms, 250*ms)
			checkLines(t, hook)
			d.at(500*ms+c.second, c.second, 250*ms)
			if m.SlowMotion() != c.slow {
				t.Fatalf("SlowMotion() = %v, want %v", m.SlowMotion(), c.slow)
			}
			if !c.slow {
				checkLines(t, hook)
				return
			}
			checkLines(t, hook, line{logrus.WarnLevel, slowMsg, logrus.Fields{
				"frame": uint64(3), "tick": uint64(0), "frames": 2, "covered": time.Second, "window": 2 * time.Second, "dropped": 500 * ms}})
		})
	}
}

func TestOneLongStallIsNotSlowMotion(t *testing.T) {
	m, hook := newTestMonitor(t, DefaultConfig(60))
	d := &dropper{m: m}
	d.at(0, 0, 0)
	d.at(1500*ms, 1500*ms, 1250*ms) // one frame covering 1.5 s of the window
	d.run(1500*ms, 5*time.Second, 10*ms)
	if m.SlowMotion() {
		t.Error("SlowMotion() after one stall")
	}
	checkLines(t, hook)
}

func TestSlowMotionClipsTheOldestFrameToTheWindow(t *testing.T) {
	for _, c := range []struct {
		name string
		end  time.Duration // of the second dropping frame, which spans 500 ms
		slow bool
	}{
		// The first covers [0.5 s, 1.5 s]; at 3 s the window (1 s, 3 s]
		// holds 0.5 s of it, plus 0.5 s of the second: 1 s.
		{"at 3 s", 3 * time.Second, true},
		// At 3 s + 1 ns it holds 1 ns less of the first.
		{"at 3 s + 1 ns", 3*time.Second + 1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, hook := newTestMonitor(t, DefaultConfig(60))
			d := &dropper{m: m}
			d.at(500*ms, 0, 0)
			d.at(1500*ms, time.Second, 750*ms)
			d.run(1500*ms, c.end-500*ms, 100*ms)
			d.at(c.end, 500*ms, 250*ms)
			if m.SlowMotion() != c.slow {
				t.Errorf("SlowMotion() = %v, want %v", m.SlowMotion(), c.slow)
			}
			want := 0
			if c.slow {
				want = 1
			}
			if got := len(lines(hook)); got != want {
				t.Errorf("logged %d lines, want %d", got, want)
			}
		})
	}
}

func TestSlowMotionIsLoggedOnceAndRecoveryOnce(t *testing.T) {
	m, hook := newTestMonitor(t, DefaultConfig(60))
	d := &dropper{m: m}
	d.at(0, 0, 0)
	// 10 s at 2 fps, every frame dropping 250 ms.
	for now := 500 * ms; now <= 10*time.Second; now += 500 * ms {
		d.at(now, 500*ms, 250*ms)
	}
	checkLines(t, hook, line{logrus.WarnLevel, slowMsg, logrus.Fields{
		"frame": uint64(3), "tick": uint64(0), "frames": 2, "covered": time.Second, "window": 2 * time.Second, "dropped": 500 * ms}})

	// The last drop was at 10 s. Still slow 1 ns before 12 s; recovered at
	// 12 s, logged once.
	d.run(10*time.Second, 12*time.Second-1*ms, 1*ms)
	d.at(12*time.Second-1, 1*ms-1, 0)
	if !m.SlowMotion() {
		t.Fatal("recovered before 2 s without drops")
	}
	checkLines(t, hook)
	d.at(12*time.Second, 1, 0)
	if m.SlowMotion() {
		t.Fatal("not recovered after 2 s without drops")
	}
	checkLines(t, hook, line{logrus.InfoLevel, "recovered from slow motion", logrus.Fields{
		"frame": d.frame, "tick": uint64(0), "lasted": 9 * time.Second, "dropped": 20 * 250 * ms}})
	d.run(12*time.Second, 20*time.Second, 10*ms)
	checkLines(t, hook)

	// A second episode is logged again.
	d.at(20500*ms, 500*ms, 250*ms)
	d.at(21*time.Second, 500*ms, 250*ms)
	if got := lines(hook); len(got) != 1 || got[0].msg != slowMsg {
		t.Errorf("second episode logged %+v, want one slow-motion line", got)
	}
}

func TestRecoveryForgetsTheEpisodesDrops(t *testing.T) {
	// With RecoverAfter shorter than the window, the episode's drops are
	// still in the window at recovery; they must not start a new episode.
	cfg := DefaultConfig(60)
	cfg.RecoverAfter = 500 * ms
	m, hook := newTestMonitor(t, cfg)
	d := &dropper{m: m}
	d.at(0, 0, 0)
	d.at(500*ms, 500*ms, 250*ms)
	d.at(time.Second, 500*ms, 250*ms)
	d.run(time.Second, 3*time.Second, 10*ms)
	got := lines(hook)
	if len(got) != 2 || got[0].msg != slowMsg || got[1].msg != "recovered from slow motion" {
		t.Errorf("logged %+v, want slow motion then recovered, once each", got)
	}
}

func TestSlowMotionWithALoop(t *testing.T) {
	// A real loop clamps 500 ms frames to 250 ms: slow motion. Then 10 ms
	// frames: recovered 2 s after the last clamped frame.
	m, hook := newTestMonitor(t, DefaultConfig(60))
	loop := timing.MustNewLoop(timing.DefaultConfig())
	now := time.Duration(0)
	frame := func(step time.Duration) {
		now += step
		loop.Tick(now, nil, nil)
		m.Observe(now, &Figures{Loop: loop.Stats()})
	}
	frame(0)
	for range 6 {
		frame(500 * ms)
	}
	if !m.SlowMotion() {
		t.Fatal("not in slow motion after 3 s of clamped frames")
	}
	lastClamp := now
	for now < lastClamp+2*time.Second-10*ms {
		frame(10 * ms)
	}
	if !m.SlowMotion() {
		t.Fatal("recovered early")
	}
	frame(10 * ms)
	if m.SlowMotion() {
		t.Fatal("not recovered 2 s after the last clamped frame")
	}
	got := lines(hook)
	// Frames with 5 steps from the 250 ms clamp (15 ticks owed, capped at 5)
	// also log steps and debt; keep the slow-motion lines.
	var slow []string
	for _, l := range got {
		if l.fields["kind"] == nil {
			slow = append(slow, l.msg)
		}
	}
	if strings.Join(slow, "|") != slowMsg+"|recovered from slow motion" {
		t.Errorf("slow-motion lines %q", slow)
	}
}

func TestLoopResetIsNotADrop(t *testing.T) {
	m, hook := newTestMonitor(t, DefaultConfig(60))
	d := &dropper{m: m}
	d.at(0, 0, 0)
	d.at(500*ms, 500*ms, 250*ms)
	// The loop was reset: its counts start again from 0.
	d.dropped = -250 * ms
	d.run(500*ms, 5*time.Second, 100*ms)
	if m.SlowMotion() || len(lines(hook)) != 0 {
		t.Error("a reset loop counted as slow motion")
	}
}

func TestIntervals(t *testing.T) {
	m, _ := newTestMonitor(t, DefaultConfig(60))
	if got := m.Intervals(nil); len(got) != 0 {
		t.Errorf("Intervals before any frame = %v", got)
	}
	observe := func(n int) {
		m.Observe(0, &Figures{Loop: timing.Stats{Frames: uint64(n), Interval: time.Duration(n) * ms / 4}})
	}
	for n := 1; n <= 4; n++ {
		observe(n) // the first frame has no interval
	}
	got := m.Intervals([]float32{-1})
	if want := []float32{-1, 0.5, 0.75, 1}; !slices.Equal(got, want) {
		t.Errorf("Intervals = %v, want %v", got, want)
	}
	for n := 5; n <= 1000; n++ {
		observe(n)
	}
	buf := make([]float32, 0, RecentFrames)
	got = m.Intervals(buf)
	if len(got) != RecentFrames || got[0] != float32(761)/4 || got[RecentFrames-1] != 250 {
		t.Errorf("Intervals after 1000 frames: %d values, %v ... %v; want 240, 190.25 ... 250", len(got), got[0], got[len(got)-1])
	}
	if n := testing.AllocsPerRun(100, func() { buf = m.Intervals(buf[:0]) }); n != 0 {
		t.Errorf("Intervals allocates %v times with capacity", n)
	}
}

func TestStepsHistogramAndLast(t *testing.T) {
	m, _ := newTestMonitor(t, DefaultConfig(60))
	for i, steps := range []int{0, 1, 1, 2, 3, 4, 5, 9, 1} {
		m.Observe(time.Duration(i)*time.Second, &Figures{Loop: timing.Stats{Frames: uint64(i + 1), Steps: steps}, Entities: i})
	}
	if got, want := m.StepsHistogram(), [StepsBuckets]uint64{1, 3, 1, 1, 1, 2}; got != want {
		t.Errorf("StepsHistogram() = %v, want %v", got, want)
	}
	if last := m.Last(); last.Entities != 8 || last.Loop.Frames != 9 {
		t.Errorf("Last() = %+v, want frame 9", last)
	}
}

func TestObserveFillsMemory(t *testing.T) {
	m, _ := newTestMonitor(t, DefaultConfig(60))
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	var f Figures
	m.Observe(0, &f)
	if f.HeapInUse == 0 || f.GCCycles < uint64(ms.NumGC) {
		t.Errorf("HeapInUse %d, GCCycles %d; want > 0 and >= %d", f.HeapInUse, f.GCCycles, ms.NumGC)
	}
	if m.Last().HeapInUse != f.HeapInUse {
		t.Error("Last() lacks the memory figures")
	}
}

func TestObserveDoesNotAllocate(t *testing.T) {
	m, hook := newTestMonitor(t, DefaultConfig(60))
	f := Figures{Loop: timing.Stats{Interval: 7 * ms, Steps: 3, Debt: 60 * ms}, FixedCPU: 20 * ms, RenderCPU: 2 * ms}
	now := time.Duration(0)
	frame := func(step time.Duration) {
		now += step
		f.Loop.Frames++
		f.Loop.ClampedTime += time.Millisecond // every frame drops time
		m.Observe(now, &f)
	}
	for range 300 { // 2.1 s: the first crossings and slow motion are logged
		frame(7 * ms)
	}
	if !m.SlowMotion() {
		t.Fatal("not in slow motion")
	}
	hook.Reset()
	// Every frame crosses thresholds, but within a second of the last
	// line: counted, not logged.
	if n := testing.AllocsPerRun(1000, func() { frame(time.Microsecond) }); n != 0 {
		t.Errorf("Observe allocates %v times per frame", n)
	}
	if len(hook.AllEntries()) != 0 {
		t.Errorf("logged %d lines within the rate limit", len(hook.AllEntries()))
	}
}

func BenchmarkObserve(b *testing.B) {
	m, _ := newTestMonitor(b, DefaultConfig(60))
	f := Figures{Loop: timing.Stats{Frames: 1, Interval: 6944444, Steps: 1, Debt: 20 * ms}, FixedCPU: ms, RenderCPU: 2 * ms}
	now := time.Duration(0)
	b.ReportAllocs()
	for b.Loop() {
		now += 6944444
		f.Loop.Frames++
		m.Observe(now, &f)
	}
}

// The first frame (start-up) is not judged by default; the second is.
func TestWarmup(t *testing.T) {
	log, hook := newLogger()
	m := NewMonitor(DefaultConfig(60), log)
	m.Observe(0, &Figures{Loop: timing.Stats{Frames: 1}, RenderCPU: time.Second})
	if n := len(hook.AllEntries()); n != 0 {
		t.Fatalf("frame 1 over budget logged %d lines, want none (warm-up)", n)
	}
	m.Observe(ms, &Figures{Loop: timing.Stats{Frames: 2}, RenderCPU: time.Second})
	if n := len(hook.AllEntries()); n != 1 {
		t.Fatalf("frame 2 over budget logged %d lines, want 1", n)
	}
}

// After SetConfig the new thresholds judge the frames; a bad config is
// refused and the old one stays.
func TestSetConfig(t *testing.T) {
	m, hook := newTestMonitor(t, DefaultConfig(60))
	m.Observe(0, &Figures{Loop: timing.Stats{Frames: 1, Debt: 80 * ms}}) // over 50 ms at 60 Hz
	if n := len(hook.AllEntries()); n != 1 {
		t.Fatalf("debt 80 ms at 60 Hz logged %d lines, want 1", n)
	}
	hook.Reset()
	if err := m.SetConfig(DefaultConfig(10)); err != nil { // debt warning at 300 ms
		t.Fatal(err)
	}
	m.Observe(5*time.Second, &Figures{Loop: timing.Stats{Frames: 2, Debt: 80 * ms}})
	if n := len(hook.AllEntries()); n != 0 {
		t.Errorf("debt 80 ms at 10 Hz logged %d lines, want none", n)
	}
	if err := m.SetConfig(Config{}); err == nil {
		t.Errorf("SetConfig(Config{}) = nil, want an error")
	}
	if got := m.Config(); got != DefaultConfig(10) {
		t.Errorf("after a refused SetConfig, Config() = %+v, want the 10 Hz defaults", got)
	}
}
