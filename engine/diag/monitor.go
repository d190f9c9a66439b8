package diag

import (
	"fmt"
	"io"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nebulaengine/nebula/timing"
)

// Sizes of the rings a Monitor allocates once, in NewMonitor.
const (
	// RecentFrames is how many frame intervals Intervals returns at most:
	// the overlay's graph.
	RecentFrames = 240
	// ReportFrames is how many frame intervals the percentiles of a Report
	// cover at most: the last 65,536 (about 7.6 minutes at 144 Hz). The
	// means and counts of a Report cover the whole run.
	ReportFrames = 1 << 16
	// StepsBuckets is the size of the steps-per-frame histogram: frames that
	// ran 0, 1, 2, 3, 4, and 5 or more fixed steps.
	StepsBuckets = 6
)

// dropRing bounds how many frames that dropped time the slow-motion rule
// remembers. It only matters above 2048 such frames per second (frames
// shorter than half a millisecond); then the oldest are forgotten and the
// rule sees less dropped time than there was.
const dropRing = 4096

// Config holds the Monitor's thresholds. Start from DefaultConfig for the
// loop's tick rate and change what you need; Validate reports a field out of
// range.
//
// A frame crosses a threshold when its figure is strictly greater. A frame
// over a Critical threshold counts as critical only, not also as a warning.
type Config struct {
	// FixedWarn and FixedCritical bound the fixed systems' CPU time in one
	// frame (Figures.FixedCPU, all of the frame's ticks together). Defaults:
	// 84% of a tick and one tick (14 ms and 16.67 ms at 60 Hz).
	FixedWarn, FixedCritical time.Duration
	// RenderWarn and RenderCritical bound Figures.RenderCPU. Defaults: 72% and
	// 96% of a tick (12 ms and 16 ms at 60 Hz).
	RenderWarn, RenderCritical time.Duration
	// StepsWarn and StepsCritical bound the fixed steps one frame runs.
	// Defaults: 2 and 4, whatever the tick rate.
	StepsWarn, StepsCritical int
	// DebtWarn and DebtCritical bound the accumulator debt (timing.Stats.Debt:
	// the simulation time owed when the frame started stepping, its own
	// interval included). Defaults: 3 and 6 ticks (50 ms and 100 ms at
	// 60 Hz). With a tick rate far above the frame rate, every frame owes
	// more than 3 ticks; raise them.
	DebtWarn, DebtCritical time.Duration

	// LogEvery is the shortest time between two lines of one kind and level;
	// the frames that crossed in between are counted in the next line.
	// Default 1 s.
	LogEvery time.Duration

	// The slow-motion rule: the game is running in slow motion when at least
	// SlowFrames frames that dropped time (clamped or capped) cover, with
	// their intervals, at least SlowMin of the last SlowWindow. It has
	// recovered when no frame has dropped time for RecoverAfter; the frames
	// of that episode then no longer count. A frame covers the real time
	// from the previous frame to it, [now-Interval, now], clipped to the
	// window (now-SlowWindow, now]. Asking for SlowFrames frames keeps one
	// long stall (a breakpoint, a dragged window) from counting as slow
	// motion. Defaults: 2 frames, 1 s of the last 2 s, recovered after 2 s.
	SlowFrames   int
	SlowMin      time.Duration // dropped time that makes slow motion
	SlowWindow   time.Duration // the window SlowMin is judged over
	RecoverAfter time.Duration // no dropped time for this long ends it
	// Warmup is how many frames at the start of a run are not judged
	// against the thresholds: the first frame pays for start-up (shader
	// compilation, the first uploads). Default 1.
	Warmup int
}

// DefaultConfig returns the default thresholds for a loop ticking at
// tickRate Hz: the 60 Hz figures of Config's fields scaled to the tick
// period. For a rate outside [timing.MinTickRate, timing.MaxTickRate] it
// returns the zero Config, which Validate rejects.
func DefaultConfig(tickRate int) Config {
	if timing.ValidateTickRate(tickRate) != nil {
		return Config{}
	}
	// perTick returns d/tickRate: d is the threshold for a 1 Hz tick, so
	// 840 ms gives exactly 14 ms at 60 Hz.
	perTick := func(d time.Duration) time.Duration { return d / time.Duration(tickRate) }
	return Config{
		FixedWarn:      perTick(840 * time.Millisecond),
		FixedCritical:  perTick(time.Second),
		RenderWarn:     perTick(720 * time.Millisecond),
		RenderCritical: perTick(960 * time.Millisecond),
		StepsWarn:      2,
		StepsCritical:  4,
		DebtWarn:       perTick(3 * time.Second),
		DebtCritical:   perTick(6 * time.Second),
		LogEvery:       time.Second,
		SlowFrames:     2,
		SlowMin:        time.Second,
		SlowWindow:     2 * time.Second,
		RecoverAfter:   2 * time.Second,
		Warmup:         1,
	}
}

// Validate reports the first field out of range, saying what is accepted.
func (c Config) Validate() error {
	pairs := [...]struct {
		name       string
		warn, crit time.Duration
	}{
		{"Fixed", c.FixedWarn, c.FixedCritical},
		{"Render", c.RenderWarn, c.RenderCritical},
		{"Steps", time.Duration(c.StepsWarn), time.Duration(c.StepsCritical)},
		{"Debt", c.DebtWarn, c.DebtCritical},
	}
	for _, p := range pairs {
		show := func(d time.Duration) any {
			if p.name == "Steps" {
				return int64(d)
			}
			return d
		}
		if p.warn <= 0 {
			return fmt.Errorf("diag: %sWarn must be positive, got %v", p.name, show(p.warn))
		}
		if p.crit < p.warn {
			return fmt.Errorf("diag: %sCritical (%v) must not be below %sWarn (%v)", p.name, show(p.crit), p.name, show(p.warn))
		}
	}
	switch {
	case c.LogEvery <= 0:
		return fmt.Errorf("diag: LogEvery must be positive, got %v", c.LogEvery)
	case c.SlowFrames < 1:
		return fmt.Errorf("diag: SlowFrames must be at least 1, got %d", c.SlowFrames)
	case c.SlowWindow <= 0:
		return fmt.Errorf("diag: SlowWindow must be positive, got %v", c.SlowWindow)
	case c.SlowMin <= 0 || c.SlowMin > c.SlowWindow:
		return fmt.Errorf("diag: SlowMin must be in (0, SlowWindow = %v], got %v", c.SlowWindow, c.SlowMin)
	case c.RecoverAfter <= 0:
		return fmt.Errorf("diag: RecoverAfter must be positive, got %v", c.RecoverAfter)
	case c.Warmup < 0:
		return fmt.Errorf("diag: Warmup must be 0 or more frames, got %d", c.Warmup)
	}
	return nil
}

// kind is a figure the Monitor checks against a pair of thresholds. Its
// String is the value of the "kind" field of the kind's log lines.
type kind int

//go:generate go run golang.org/x/tools/cmd/stringer@v0.52.0 -type=kind -linecomment

const (
	kindFixed  kind = iota // fixed
	kindRender             // render
	kindSteps              // steps
	kindDebt               // debt
	numKinds
)

func (k kind) message() string {
	switch k {
	case kindFixed:
		return "fixed systems over budget"
	case kindRender:
		return "rendering over budget"
	case kindSteps:
		return "too many fixed steps in one frame"
	default:
		return "simulation falling behind: accumulator debt high"
	}
}

// field returns v as the kind's unit for a log field: a step count or a
// duration.
func (k kind) field(v int64) any {
	if k == kindSteps {
		return int(v)
	}
	return time.Duration(v)
}

// Levels of a threshold crossing.
const (
	levelWarn = iota
	levelCritical
	numLevels
)

// alert is the rate limiter of one kind and level: the frames that crossed
// since its last line, and the worst of them.
type alert struct {
	pending   uint64 // frames crossed since the last line
	worst     int64  // the largest value among them
	threshold int64
	frame     uint64 // frame and tick of the worst one
	tick      uint64
	last      time.Duration // now of the last line
	logged    bool          // whether there was a last line
}

// drop is a frame that dropped time, for the slow-motion rule.
type drop struct {
	end, span time.Duration // the frame covers [end-span, end]
	lost      time.Duration // time it dropped
}

// Monitor watches a run frame by frame: it fills the memory figures of each
// Frame, keeps the recent frame intervals and the steps histogram for an
// overlay, keeps the intervals of the last ReportFrames frames for the
// Report, and logs threshold crossings and slow motion, rate-limited.
//
// Threshold crossings are logged at Warn level (warnings) and Error level
// (critical), with fields kind ("fixed", "render", "steps" or "debt"),
// value, threshold, frame, tick and count: at most one line per kind and
// level per Config.LogEvery. The first crossing is logged at once; the
// frames that cross after it are counted, and the next line (at the first
// Observe at least LogEvery after the last line, whether that frame crosses
// or not) carries their count, and the value, frame and tick of the worst
// of them.
//
// Slow motion (see Config) is logged once at Warn level when it starts, and
// once at Info level when the game has recovered.
//
// A Monitor is not safe for concurrent use; the runner's goroutine owns it.
type Monitor struct {
	cfg Config
	log logrus.FieldLogger

	heap HeapMeter

	last Figures

	recent  [RecentFrames]float32 // intervals in ms, a ring
	nRecent uint64

	pacing  []time.Duration // intervals, a ring of ReportFrames
	nPacing uint64          // intervals recorded (the ring keeps the last ReportFrames)
	elapsed time.Duration   // their sum
	ticks   uint64          // steps run in all observed frames
	frames  uint64          // frames observed
	hist    [StepsBuckets]uint64
	gpuPeak uint64 // the largest GPUMemory.InUse observed
	// The largest Figures.DrawCalls and Triangles observed.
	maxDraws, maxTriangles int

	alerts [numKinds][numLevels]alert

	prevDropped time.Duration
	drops       [dropRing]drop
	dropHead    int
	dropN       int
	dropSpan    time.Duration // sum of span over the ring
	dropLost    time.Duration // sum of lost over the ring
	lastDrop    time.Duration // now of the last frame that dropped time
	slow        bool
	slowSince   time.Duration
	slowDropped time.Duration // the loop's dropped time when slow motion began
}

// NewMonitor returns a Monitor that logs to log (nil: nowhere). Call
// cfg.Validate first: with an invalid cfg, NewMonitor logs the error and
// uses DefaultConfig(timing.DefaultTickRate) instead. NewMonitor allocates
// the rings once (about 600 KB); Observe then allocates nothing.
func NewMonitor(cfg Config, log logrus.FieldLogger) *Monitor {
	if log == nil {
		l := logrus.New()
		l.SetOutput(io.Discard)
		log = l
	}
	if err := cfg.Validate(); err != nil {
		def := DefaultConfig(timing.DefaultTickRate)
		log.WithError(err).WithField("tick_rate", timing.DefaultTickRate).
			Error("diag: invalid monitor config, using the defaults")
		cfg = def
	}
	m := &Monitor{
		cfg:    cfg,
		log:    log,
		pacing: make([]time.Duration, ReportFrames),
	}
	m.heap.init()
	m.setThresholds()
	return m
}

// thresholds returns the warning and critical threshold of k.
func (c *Config) thresholds(k kind) (warn, crit int64) {
	switch k {
	case kindFixed:
		return int64(c.FixedWarn), int64(c.FixedCritical)
	case kindRender:
		return int64(c.RenderWarn), int64(c.RenderCritical)
	case kindSteps:
		return int64(c.StepsWarn), int64(c.StepsCritical)
	default:
		return int64(c.DebtWarn), int64(c.DebtCritical)
	}
}

// Config returns the configuration the Monitor uses.
func (m *Monitor) Config() Config { return m.cfg }

// SetConfig replaces the thresholds, for example with DefaultConfig at a
// new tick rate after Loop.SetTickRate. Counts, rings and the slow-motion
// state are kept. An invalid cfg is returned as an error and changes
// nothing.
func (m *Monitor) SetConfig(cfg Config) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	m.cfg = cfg
	m.setThresholds()
	return nil
}

func (m *Monitor) setThresholds() {
	for k := range m.alerts {
		m.alerts[k][levelWarn].threshold, m.alerts[k][levelCritical].threshold = m.cfg.thresholds(kind(k))
	}
}

// Observe records frame f, which started at now (the clock reading given
// to the loop's Tick for this frame). It first fills f.HeapInUse and
// f.GCCycles from runtime/metrics, every frame (a HeapMeter: about
// 0.6 µs; Observe about 1 µs in all, see BenchmarkObserve). Observe
// allocates nothing except when it writes a log line.
func (m *Monitor) Observe(now time.Duration, f *Figures) {
	m.heap.Read(f)
	s := &f.Loop
	m.frames++
	m.hist[min(max(s.Steps, 0), StepsBuckets-1)]++
	m.ticks += uint64(max(s.Steps, 0))
	if s.Frames > 1 { // the first frame has no interval
		m.recent[m.nRecent%RecentFrames] = float32(float64(s.Interval) / 1e6)
		m.nRecent++
		m.pacing[m.nPacing%ReportFrames] = s.Interval
		m.nPacing++
		m.elapsed += s.Interval
	}

	if s.Frames > uint64(m.cfg.Warmup) {
		m.check(now, kindFixed, int64(f.FixedCPU), s)
		m.check(now, kindRender, int64(f.RenderCPU), s)
		m.check(now, kindSteps, int64(s.Steps), s)
		m.check(now, kindDebt, int64(s.Debt), s)
	}
	for k := range m.alerts {
		for lvl := range m.alerts[k] {
			if a := &m.alerts[k][lvl]; a.pending > 0 && (!a.logged || now-a.last >= m.cfg.LogEvery || now < a.last) {
				m.emit(kind(k), lvl, a, now)
			}
		}
	}

	if n, _ := f.GPUMemory.InUse(); n > m.gpuPeak {
		m.gpuPeak = n
	}
	m.maxDraws, m.maxTriangles = max(m.maxDraws, f.DrawCalls), max(m.maxTriangles, f.Triangles)
	m.slowMotion(now, s)
	m.last = *f
}

// check counts the frame if v crosses k's critical or, failing that, its
// warning threshold.
func (m *Monitor) check(now time.Duration, k kind, v int64, s *timing.Stats) {
	lvl := levelCritical
	if a := &m.alerts[k][levelCritical]; v <= a.threshold {
		lvl = levelWarn
		if v <= m.alerts[k][levelWarn].threshold {
			return
		}
	}
	a := &m.alerts[k][lvl]
	a.pending++
	if a.pending == 1 || v > a.worst {
		a.worst, a.frame, a.tick = v, s.Frames, s.Tick
	}
}

// emit writes a's line and starts counting afresh.
func (m *Monitor) emit(k kind, lvl int, a *alert, now time.Duration) {
	e := m.log.WithFields(logrus.Fields{
		"kind":      k.String(),
		"value":     k.field(a.worst),
		"threshold": k.field(a.threshold),
		"frame":     a.frame,
		"tick":      a.tick,
		"count":     a.pending,
	})
	if lvl == levelCritical {
		e.Error(k.message())
	} else {
		e.Warn(k.message())
	}
	a.pending, a.last, a.logged = 0, now, true
}

// slowMotion applies the slow-motion rule of Config to the frame s.
func (m *Monitor) slowMotion(now time.Duration, s *timing.Stats) {
	dropped := s.DroppedTime()
	lost := dropped - m.prevDropped
	if dropped < m.prevDropped { // the loop was reset
		lost = dropped
	}
	m.prevDropped = dropped

	if lost > 0 {
		if m.dropN == dropRing {
			m.popDrop()
		}
		d := drop{end: now, span: max(s.Interval, 0), lost: lost}
		m.drops[(m.dropHead+m.dropN)%dropRing] = d
		m.dropN++
		m.dropSpan += d.span
		m.dropLost += d.lost
		m.lastDrop = now
	}
	start := now - m.cfg.SlowWindow
	for m.dropN > 0 && m.drops[m.dropHead].end <= start {
		m.popDrop()
	}

	if !m.slow {
		if m.dropN < m.cfg.SlowFrames {
			return
		}
		// The frames follow each other, so only the oldest can reach back
		// before the window.
		covered := m.dropSpan
		if o := m.drops[m.dropHead]; o.end-o.span < start {
			covered -= start - (o.end - o.span)
		}
		if covered >= m.cfg.SlowMin {
			m.slow, m.slowSince, m.slowDropped = true, now, dropped-m.dropLost
			m.log.WithFields(logrus.Fields{
				"frame":   s.Frames,
				"tick":    s.Tick,
				"frames":  m.dropN,
				"covered": covered,
				"window":  m.cfg.SlowWindow,
				"dropped": m.dropLost,
			}).Warn("running in slow motion: the frame-time clamp and step cap keep dropping time")
		}
		return
	}
	if now-m.lastDrop >= m.cfg.RecoverAfter {
		// A new episode needs new drops, even with a RecoverAfter shorter
		// than the window.
		for m.dropN > 0 {
			m.popDrop()
		}
		m.slow = false
		m.log.WithFields(logrus.Fields{
			"frame":   s.Frames,
			"tick":    s.Tick,
			"lasted":  m.lastDrop - m.slowSince,
			"dropped": dropped - m.slowDropped,
		}).Info("recovered from slow motion")
	}
}

func (m *Monitor) popDrop() {
	d := m.drops[m.dropHead]
	m.dropSpan -= d.span
	m.dropLost -= d.lost
	m.dropHead = (m.dropHead + 1) % dropRing
	m.dropN--
}

// SlowMotion reports whether the game is running in slow motion by the rule
// of Config.
func (m *Monitor) SlowMotion() bool { return m.slow }

// Intervals appends the last RecentFrames frame intervals (fewer at the
// start of a run) in milliseconds, oldest first, to dst and returns the
// extended slice. It does not allocate when dst has the capacity:
//
//	buf = m.Intervals(buf[:0]) // buf made once with capacity RecentFrames
func (m *Monitor) Intervals(dst []float32) []float32 {
	n := int(min(m.nRecent, RecentFrames))
	i := int((m.nRecent - uint64(n)) % RecentFrames)
	if i+n <= RecentFrames {
		return append(dst, m.recent[i:i+n]...)
	}
	dst = append(dst, m.recent[i:]...)
	return append(dst, m.recent[:n-(RecentFrames-i)]...)
}

// StepsHistogram returns how many observed frames ran 0, 1, 2, 3, 4, and 5
// or more fixed steps.
func (m *Monitor) StepsHistogram() [StepsBuckets]uint64 { return m.hist }

// Last returns the last observed frame, with its memory figures filled.
func (m *Monitor) Last() Figures { return m.last }
