package timing

import (
	"math"
	"strings"
	"testing"
	"time"
)

// sloppyClock is a fake clock with the faults of a real one: every Now
// costs nowCost, and every Sleep wakes late by oversleep.
type sloppyClock struct {
	now       time.Duration
	nowCost   time.Duration
	oversleep time.Duration
	sleeps    int
}

func (c *sloppyClock) Now() time.Duration { c.now += c.nowCost; return c.now }
func (c *sloppyClock) Sleep(d time.Duration) {
	c.sleeps++
	if d > 0 {
		c.now += d + c.oversleep
	}
}

func newPacer(t *testing.T, c Clock, hz float64) *Pacer {
	t.Helper()
	p, err := NewPacer(c, hz)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPacerHitsDeadlinesExactly(t *testing.T) {
	c := NewManualClock(time.Hour)
	p := newPacer(t, c, 144)
	var origin time.Duration
	seed := uint64(7)
	for k := int64(1); k <= 1000; k++ {
		// Render work of 0 to 6 ms, always shorter than a frame.
		seed = seed*6364136223846793005 + 1442695040888963407
		c.Advance(time.Duration(seed>>40) % (6 * time.Millisecond))
		if k == 1 {
			origin = c.Now() // the first Wait anchors the grid
		}
		got := p.Wait()
		want := origin + time.Duration(math.Round(float64(k)*1e9/144))
		if got != want || c.Now() != want {
			t.Fatalf("frame %d woke at %v, want %v", k, got-origin, want-origin)
		}
	}
	if s := p.Stats(); s.Late != 0 || s.Skipped != 0 || s.Spun != 0 || s.Margin != 0 {
		t.Errorf("stats %+v: a manual clock needs no spin and nothing is late", s)
	}
}

func TestPacerLateFrameCatchesUpOneFrameOnly(t *testing.T) {
	c := NewManualClock(0)
	p := newPacer(t, c, 100) // 10 ms frames
	p.Wait()                 // frame 1 starts at 10 ms
	if c.Now() != 10*time.Millisecond {
		t.Fatalf("first frame at %v", c.Now())
	}

	// Frame 1 overruns by 4 ms: frame 2 starts at once (24 ms), frame 3 is
	// back on the grid at 30 ms.
	c.Advance(14 * time.Millisecond)
	if got := p.Wait(); got != 24*time.Millisecond {
		t.Errorf("late frame started at %v, want at once (24ms)", got)
	}
	if got := p.Wait(); got != 30*time.Millisecond {
		t.Errorf("frame after a late one at %v, want 30ms on the grid", got)
	}

	// Frame 3 overruns by 35 ms: frame 4 starts at once (75 ms); the
	// deadlines at 40..70 ms are skipped, not sprinted through, so frame
	// 5 waits for 80 ms.
	c.Advance(45 * time.Millisecond)
	if got := p.Wait(); got != 75*time.Millisecond {
		t.Errorf("very late frame started at %v, want 75ms", got)
	}
	if got := p.Wait(); got != 80*time.Millisecond {
		t.Errorf("next frame at %v, want 80ms", got)
	}
	if got := p.Wait(); got != 90*time.Millisecond {
		t.Errorf("next frame at %v, want 90ms", got)
	}
	s := p.Stats()
	if s.Late != 2 || s.Skipped != 3 {
		t.Errorf("late %d skipped %d, want 2 and 3", s.Late, s.Skipped)
	}
}

func TestPacerSpinsThroughOversleep(t *testing.T) {
	c := &sloppyClock{now: time.Second, nowCost: time.Microsecond, oversleep: 400 * time.Microsecond}
	p := newPacer(t, c, 144)
	var origin time.Duration
	var worst time.Duration
	for k := int64(1); k <= 500; k++ {
		c.now += 2 * time.Millisecond // render work
		if k == 1 {
			origin = c.now + c.nowCost // the first Wait anchors the grid at its Now
		}
		got := p.Wait()
		want := origin + time.Duration(math.Round(float64(k)*1e9/144))
		if k > 1 { // the first frame learns the oversleep
			worst = max(worst, got-want)
			if got < want {
				t.Fatalf("frame %d woke %v early", k, want-got)
			}
		}
	}
	if worst > 2*time.Microsecond {
		t.Errorf("with 400µs oversleep, frames woke up to %v late", worst)
	}
	s := p.Stats()
	if s.Margin < 400*time.Microsecond || s.Margin > 600*time.Microsecond {
		t.Errorf("spin margin %v, want a little over the 400µs oversleep", s.Margin)
	}
	// Spinning costs about the margin per frame, not the whole wait.
	if perFrame := s.Spun / 500; perFrame > time.Millisecond {
		t.Errorf("spun %v per frame", perFrame)
	}
}

func TestPacerMarginDecays(t *testing.T) {
	c := &sloppyClock{nowCost: time.Microsecond, oversleep: 2 * time.Millisecond}
	p := newPacer(t, c, 144)
	p.Wait()
	p.Wait()
	high := p.Stats().Margin
	c.oversleep = 100 * time.Microsecond
	for range 300 {
		p.Wait()
	}
	low := p.Stats().Margin
	if high < 2*time.Millisecond || low > 200*time.Microsecond {
		t.Errorf("margin %v after 2ms oversleeps, %v after 300 frames of 100µs; want >= 2ms then <= 200µs", high, low)
	}
}

func TestPacerUnlimited(t *testing.T) {
	c := NewManualClock(5 * time.Second)
	p := newPacer(t, c, 0)
	for range 10 {
		if got := p.Wait(); got != 5*time.Second {
			t.Fatalf("unlimited pacer waited until %v", got)
		}
	}
}

func TestPacerSetRateRestartsGrid(t *testing.T) {
	c := NewManualClock(0)
	p := newPacer(t, c, 100)
	p.Wait()
	p.Wait() // 20 ms
	if err := p.SetRate(50); err != nil {
		t.Fatal(err)
	}
	c.Advance(3 * time.Millisecond)
	if got := p.Wait(); got != 43*time.Millisecond {
		t.Errorf("first frame at 50 Hz woke at %v, want 23ms + 20ms", got)
	}
}

func TestPacerRejectsBadRates(t *testing.T) {
	for _, hz := range []float64{-1, math.NaN(), math.Inf(1), MaxRenderRate + 1} {
		_, err := NewPacer(NewManualClock(0), hz)
		if err == nil || !strings.Contains(err.Error(), "render rate must be 0 (unlimited) or up to 10000 Hz") {
			t.Errorf("NewPacer(%v) error %v", hz, err)
		}
	}
}

func TestPacerDoesNotAllocate(t *testing.T) {
	c := NewManualClock(0)
	p := newPacer(t, c, 144)
	if n := testing.AllocsPerRun(1000, func() { p.Wait() }); n != 0 {
		t.Errorf("Wait allocates %v times", n)
	}
}

func TestSummarizeIntervals(t *testing.T) {
	var in []time.Duration
	for i := 1; i <= 100; i++ {
		in = append(in, time.Duration(i)*time.Millisecond)
	}
	s := SummarizeIntervals(in, 10*time.Millisecond)
	want := IntervalSummary{
		Count: 100, Rate: 100 / 5.05,
		P50: 50 * time.Millisecond, P95: 95 * time.Millisecond, P99: 99 * time.Millisecond, Max: 100 * time.Millisecond,
		ErrP50: 40 * time.Millisecond, ErrP99: 89 * time.Millisecond,
	}
	if math.Abs(s.Rate-want.Rate) > 1e-9 {
		t.Errorf("rate %v, want %v", s.Rate, want.Rate)
	}
	s.Rate = want.Rate
	if s != want {
		t.Errorf("summary %+v\nwant %+v", s, want)
	}
	if (SummarizeIntervals(nil, time.Millisecond) != IntervalSummary{}) {
		t.Error("empty input should give a zero summary")
	}
}
