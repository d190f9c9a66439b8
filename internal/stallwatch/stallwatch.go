// Package stallwatch records the times a test process did not run, for the
// tests that judge real-time behaviour (inputs that arrive in time, a
// server that answers) on a machine that may be busy: a goroutine that
// wakes every millisecond notes each gap between two wakes longer than
// MinGap. A busy machine starves its processes now and then for tens of
// milliseconds, and at times for seconds; a test can then tell what the
// scheduler cost from what the code under test did.
//
//	w := stallwatch.Start(t)
//	... play a match ...
//	lost := w.Stop().Ticks(tolerance, 60) // ticks the stalls may have cost
//	t.Logf("%v", w)
package stallwatch

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// MinGap is the least gap a Watch records.
const MinGap = 100 * time.Millisecond

// Watch records the gaps longer than MinGap in which its process did not
// run, from Start until Stop.
type Watch struct {
	quit, done chan struct{}
	gaps       []time.Duration
}

// Start starts a Watch, stopped when the test ends if Stop was not called.
func Start(t testing.TB) *Watch {
	w := &Watch{quit: make(chan struct{}), done: make(chan struct{})}
	go w.run()
	t.Cleanup(func() { w.Stop() })
	return w
}

func (w *Watch) run() {
	defer close(w.done)
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	last := time.Now()
	for {
		select {
		case <-w.quit:
			return
		case <-tick.C:
		}
		now := time.Now()
		if gap := now.Sub(last); gap > MinGap {
			w.gaps = append(w.gaps, gap)
		}
		last = now
	}
}

// Stop stops the watch (once; later calls do nothing) and returns it with
// its gaps final. Gaps and Ticks may be read only after Stop.
func (w *Watch) Stop() *Watch {
	select {
	case <-w.quit:
	default:
		close(w.quit)
	}
	<-w.done
	return w
}

// Gaps returns the gaps recorded, in order.
func (w *Watch) Gaps() []time.Duration { return w.gaps }

// Ticks bounds how many ticks at rate Hz the stalls can have cost each
// sender of a per-tick message when the receiver waits slack for a late
// one. A stall shorter than half the slack costs none (the receiver waits
// for what it makes late). A longer one costs the ticks whose messages
// were due to be sent while it lasted (a sender far behind skips them as
// stale; a shorter stall sends them late), counted with half the slack
// more, for a stall of the sender that the watch saw shorter than it was.
func (w *Watch) Ticks(slack time.Duration, rate int) uint64 {
	var n uint64
	for _, g := range w.gaps {
		if g >= slack/2 {
			n += uint64((g+slack/2)*time.Duration(rate)/time.Second) + 1
		}
	}
	return n
}

// String lists the stalls.
func (w *Watch) String() string {
	if len(w.gaps) == 0 {
		return fmt.Sprintf("no stall over %v", MinGap)
	}
	gaps := make([]string, len(w.gaps))
	for i, g := range w.gaps {
		gaps[i] = g.Round(time.Millisecond).String()
	}
	return "stalls of " + strings.Join(gaps, ", ")
}
