package desktop_test

import (
	"github.com/nebulaengine/nebula/engine/geom"

	"errors"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/desktop"
	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/internal/platform"
	"github.com/nebulaengine/nebula/internal/platform/platformtest"
	"github.com/nebulaengine/nebula/timing"
)

// GLFW and OpenGL run on the main thread: the tests run on another goroutine
// and send New, Run and Close there with platformtest.OnMain. xdotool runs
// on the test's goroutine while Run processes the events on the main one.
func TestMain(m *testing.M) { platformtest.Main(m) }

// newEngine returns an engine with n cubes in a grid that bob up and down,
// one fixed system that moves them, and the input of every tick recorded by
// the returned log.
func newEngine(t testing.TB, n int) (*engine.Engine, *tickLog) {
	e := newScene(t, n)
	log := new(tickLog)
	e.AddSystem(engine.StageScripts, "record", func(c *engine.FixedContext) { log.add(c.Tick, *c.Input) })
	return e, log
}

// newScene returns an engine with n cubes in a grid that bob up and down.
func newScene(t testing.TB, n int) *engine.Engine {
	t.Helper()
	e, err := engine.New(engine.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	side := int(math.Ceil(math.Cbrt(float64(n))))
	ents := make([]engine.Entity, 0, n)
	for i := range n {
		x, y, z := i%side, i/side%side, i/(side*side)
		pos := mgl32.Vec3{float32(x-side/2) * 1.5, float32(y-side/2) * 1.5, float32(z-side/2) * 1.5}
		ent := e.World.Spawn(geom.NewTransform(pos), engine.Interpolate)
		e.World.SetColor(ent, [4]uint8{uint8(40 + 200*x/side), uint8(40 + 200*y/side), 200, 255})
		ents = append(ents, ent)
	}
	e.AddSystem(engine.StageScripts, "bob", func(c *engine.FixedContext) {
		dy := float32(0.05)
		if c.Tick/30%2 == 1 {
			dy = -dy
		}
		for _, ent := range ents {
			tr := c.World.Transform(ent)
			tr.Pos[1] += dy
			c.World.SetTransform(ent, tr)
		}
	})
	return e
}

// tickLog records the input sample of every tick. Fixed systems write it
// on the main thread; tests read it from theirs, so it is locked.
type tickLog struct {
	mu    sync.Mutex
	ticks []tickInput
}

type tickInput struct {
	tick uint64
	in   input.Sample
}

func (l *tickLog) add(tick uint64, in input.Sample) {
	l.mu.Lock()
	l.ticks = append(l.ticks, tickInput{tick, in})
	l.mu.Unlock()
}

// first returns the first tick whose snapshot satisfies f, or 0.
func (l *tickLog) first(f func(input.Sample) bool) uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, ti := range l.ticks {
		if f(ti.in) {
			return ti.tick
		}
	}
	return 0
}

// countRange returns the number of ticks in [from, to] whose snapshot
// satisfies f.
func (l *tickLog) countRange(from, to uint64, f func(input.Sample) bool) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, ti := range l.ticks {
		if ti.tick >= from && ti.tick <= to && f(ti.in) {
			n++
		}
	}
	return n
}

// count returns the number of ticks whose snapshot satisfies f.
func (l *tickLog) count(f func(input.Sample) bool) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, ti := range l.ticks {
		if f(ti.in) {
			n++
		}
	}
	return n
}

// newRunner opens a runner on the main thread and closes it when the test
// ends; without a display it skips (fails with NEBULA_REQUIRE_GL=1).
func newRunner(t testing.TB, e *engine.Engine, cfg desktop.Config) *desktop.Runner {
	t.Helper()
	var (
		r   *desktop.Runner
		err error
	)
	platformtest.OnMain(func() { r, err = desktop.New(e, cfg) })
	switch {
	case errors.Is(err, platform.ErrNoDisplay), errors.Is(err, platform.ErrNoGL41):
		platformtest.SkipOrFail(t, err)
	case err != nil:
		t.Fatalf("desktop.New: %v", err)
	}
	t.Cleanup(func() { platformtest.OnMain(r.Close) })
	return r
}

// run runs r on the main thread and returns Run's error and how long it took.
func run(r *desktop.Runner) (time.Duration, error) {
	var err error
	start := time.Now()
	platformtest.OnMain(func() { err = r.Run() })
	return time.Since(start), err
}

// testConfig is a small hidden window at 120 frames per second with a
// safety time limit.
func testConfig() desktop.Config {
	cfg := desktop.DefaultConfig()
	cfg.Window = platformtest.SmallHidden()
	cfg.FPS = 120
	cfg.Duration = 30 * time.Second
	return cfg
}

// frameLog collects what OnFrame sees. OnFrame runs on the main thread and
// tests read it afterwards, or while Run runs, so it is locked.
type frameLog struct {
	mu     sync.Mutex
	frames []timing.Stats
}

func (l *frameLog) add(s timing.Stats) {
	l.mu.Lock()
	l.frames = append(l.frames, s)
	l.mu.Unlock()
}

func (l *frameLog) snapshot() []timing.Stats {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]timing.Stats(nil), l.frames...)
}

func (l *frameLog) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.frames)
}

// A runner with a small engine runs exactly Frames frames and returns; the
// loop simulated the real time those frames took (the first frame only
// starts the clock), about frames*60/fps ticks; the renderer drew every
// entity each frame.
func TestRunFrames(t *testing.T) {
	const n, frames, fps = 8, 90, 120.0
	e, _ := newEngine(t, n)
	cfg := testConfig()
	cfg.Frames, cfg.FPS = frames, fps
	var (
		log   frameLog
		drawn []int // instances the renderer drew, per frame
		r     *desktop.Runner
	)
	cfg.OnFrame = func(s timing.Stats) {
		log.add(s)
		drawn = append(drawn, r.Renderer().Stats().Instances)
	}
	r = newRunner(t, e, cfg)
	if _, err := run(r); err != nil {
		t.Fatalf("Run: %v", err)
	}

	got := log.snapshot()
	if len(got) != frames {
		t.Fatalf("OnFrame saw %d frames, want %d", len(got), frames)
	}
	last := got[len(got)-1]
	if last.Frames != frames {
		t.Errorf("last frame's Stats.Frames = %d, want %d", last.Frames, frames)
	}
	if got[0].Steps != 0 {
		t.Errorf("the first frame ran %d ticks, want 0 (it starts the clock)", got[0].Steps)
	}
	// Exactly the time since the first frame, in whole ticks, unless time
	// was dropped.
	simulated := last.Time - got[0].Time - last.DroppedTime()
	if want := uint64(simulated * 60 / time.Second); last.Tick < want-1 || last.Tick > want+1 {
		t.Errorf("%d ticks in %v of frames (%v dropped), want %d±1", last.Tick, last.Time-got[0].Time, last.DroppedTime(), want)
	}
	expect := float64(frames-1) * 60 / fps
	achieved := float64(frames-1) / (last.Time - got[0].Time).Seconds()
	t.Logf("%d frames in %v: %d ticks (frames*60/fps = %.1f), %.1f fps", frames, last.Time.Round(time.Millisecond), last.Tick, expect, achieved)
	// The pacer holds the rate unless the machine is too loaded to draw
	// that fast; then the exact check above is what counts.
	if ratio := float64(last.Tick) / expect; achieved > 0.9*fps && (ratio < 0.8 || ratio > 1.2) {
		t.Errorf("%d ticks at %.1f fps, want about frames*60/fps = %.1f", last.Tick, achieved, expect)
	}
	for i, d := range drawn {
		if d != n {
			t.Errorf("frame %d: the renderer drew %d instances, want %d", i+1, d, n)
			break
		}
	}
}

// poll waits up to timeout for cond; for the goroutines that drive a
// window while Run runs, which must not call t.Fatal.
func poll(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
	return true
}

// lastTick returns the tick count OnFrame last saw.
func (l *frameLog) lastTick() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.frames) == 0 {
		return 0
	}
	return l.frames[len(l.frames)-1].Tick
}

// checkNoBurst fails the test when a frame from index i on ran more ticks
// than its own interval holds: at most 2 for a frame no longer than a tick
// (the leftover fraction of a tick plus the frame's own time), more only for
// a frame that itself took longer, as frames do on a loaded machine. Time
// from before a pause or a minimise, caught up, would show as a frame with
// more ticks than its interval.
func checkNoBurst(t *testing.T, frames []timing.Stats, i int, after string) {
	t.Helper()
	for _, f := range frames[min(i, len(frames)):] {
		allowed := max(2, int(f.Interval*60/time.Second)+1)
		if f.Steps > allowed {
			t.Errorf("frame %d, %s, ran %d ticks in a %v interval, want at most %d: a catch-up burst",
				f.Frames, after, f.Steps, f.Interval.Round(time.Microsecond), allowed)
		}
	}
}
