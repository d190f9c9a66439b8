package netplay

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/netplay/wire"
	"github.com/nebulaengine/nebula/timing"
)

// RunHeadless simulates the match's ticks until the match ends and its
// last tick is simulated (nil), the connection fails, the simulation
// panics (the engine's *engine.PanicError) or ctx is done. In lockstep it
// simulates each tick as soon as its confirmed inputs arrive, as fast as
// the CPU allows; with prediction it simulates each tick when its own
// input is sampled (the client's input clock), predicting the others.
// After each frame it calls ClientConfig.OnHeadlessFrame, if set.
func (c *Client) RunHeadless(ctx context.Context) error {
	e := c.e
	if e == nil {
		return fmt.Errorf("netplay: client: RunHeadless before Attach")
	}
	c.headless = true
	var timer *time.Timer
	var wake <-chan time.Time
	onFrame := c.cfg.OnHeadlessFrame
	for {
		var start time.Time
		first := e.World.Tick()
		if onFrame != nil {
			start = time.Now()
		}
		c.rb.StartFrame()
		target, next := c.headlessTarget()
		for e.World.Tick() < target && e.StepTick(engine.TickTime(e.World.Tick()+1, int(c.rate))) {
		}
		if onFrame != nil {
			f := HeadlessFrame{Fixed: time.Since(start)}
			if t := e.World.Tick(); t > first {
				f.Ticks = int(t - first)
			}
			onFrame(f)
		}
		if err := e.Err(); err != nil {
			return err
		}
		if c.Done() {
			return nil
		}
		if err := c.Err(); err != nil {
			return err
		}
		wake = nil
		if next > 0 {
			if timer == nil {
				timer = time.NewTimer(next)
				defer timer.Stop()
			} else {
				timer.Reset(next)
			}
			wake = timer.C
		}
		select {
		case <-c.notify:
		case <-wake:
		case <-c.failed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// headlessTarget is the tick a headless client simulates up to now, and
// how long until that changes (0: when a message arrives). In lockstep it
// is every tick there is; with prediction, the last tick whose own input
// the client has sampled (its input clock's tick plus the input delay),
// but no further than the prediction window past the last tick received
// (a round trip longer than the window delays the client's picture
// rather than stalling it every tick), or the confirmed ticks while the
// clock is not set yet.
func (c *Client) headlessTarget() (uint64, time.Duration) {
	if c.cfg.Predict == 0 || c.cfg.Role != wire.RolePlayer {
		return math.MaxUint64, 0
	}
	c.mu.Lock()
	clk := c.clk
	window := c.match.ticks.received() + uint64(c.cfg.Predict) // the last tick received, plus the window
	c.mu.Unlock()
	if !clk.haveOff {
		return c.rb.Available(), 0
	}
	now := c.now()
	l := c.input.firstLocalTick(&clk, now) - 1 // the last local tick whose send time has come
	return min(l+uint64(c.delay), window), max(clk.sendTime(l+1, c.rate)-now, 0) + time.Millisecond/4
}

// steer sets the engine loop's speed so that its ticks keep their place:
// in lockstep, about a tick and a half behind the last confirmed tick
// received (so that a tick's inputs are there when the tick is due,
// without waiting behind a backlog); with prediction, half a tick behind
// the tick whose own input the client samples now (so that a tick never
// runs before its own input is sampled), but not past the prediction
// window.
// Where the loop is counts the time it owes (timing.Loop.Owed): a loop
// that held ticks is further ahead than its alpha says. The gap is
// smoothed over about 20 frames. The speed is 1 plus 2% per tick of gap,
// from 0.97 to 1.03 times real time; more than two ticks ahead it slows
// down to as little as half real time (a loop that held ticks at the
// start of the match owes several), and more than six behind (after a stall, or
// a minimised window) it catches up at up to twice real time. It moves
// in steps of 1%, and only when the speed wanted is a step away from the
// current one, so that noise does not flip it. Every change counts in
// ClientReport.ClockAdjustments. c.mu is held.
func (c *Client) steer(e *engine.Engine) {
	if c.match.ticks.next == 0 {
		return
	}
	// Where the loop will be once this frame's time is fed in (the last
	// frame's interval stands for this one's, which is not known yet).
	at := float64(e.World.Tick()) + e.Loop.Owed() + e.Loop.Stats().Interval.Seconds()*float64(c.rate)*e.Loop.Speed()
	received := float64(c.match.ticks.received())
	ref := received - 1
	if c.cfg.Predict > 0 && c.cfg.Role == wire.RolePlayer && c.clk.haveOff {
		// Half a tick behind the last tick whose own input is sampled,
		// so that the frame that runs a tick never comes before the
		// sample for it.
		lt := c.now() + c.clk.lead + c.clk.off
		local := lt.Seconds()*float64(c.rate) + float64(c.delay) - 0.5
		ref = min(local, received+float64(c.cfg.Predict)-1)
	}
	if !c.steering { // the first measure: no history to smooth
		c.gap, c.steering = ref-at, true
	}
	c.gap += (ref - at - c.gap) * 0.05
	want := 1 + min(max(c.gap*0.02, -0.03), 0.03)
	switch {
	case c.gap > 6:
		want = min(1.03+0.1*(c.gap-6), timing.MaxSpeed)
	case c.gap < -2:
		want = max(0.97+0.1*(c.gap+2), timing.MinSpeed)
	}
	if cur := e.Loop.Speed(); math.Abs(want-cur) >= 0.01 || want == 1 && math.Abs(want-cur) >= 0.005 {
		_ = e.Loop.SetSpeed(math.Round(want*100) / 100) // within MinSpeed to MaxSpeed
		c.stats.ClockAdjustments++
	}
}
