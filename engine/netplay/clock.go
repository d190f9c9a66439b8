package netplay

import (
	"slices"
	"time"

	"github.com/nebulaengine/nebula/engine"
)

// clockSync times a client's inputs so that they reach the server just
// before the server needs them. It keeps two estimates:
//
//   - the offset from the client's clock to the server's match clock, from
//     the ping with the shortest round trip (half the round trip each way);
//   - the lead: how long before its tick's deadline, on the match clock, the
//     input of a tick is sent. It starts at half the round trip plus the
//     target margin, and the server's feedback (how early each input
//     arrived) corrects it, a little at a time, every feedbackWindow ticks:
//     the clock never jumps by more than an eighth of a tick.
//
// The target margin is the configured slack plus half the spread of the
// recent arrival times, so a jittery connection aims earlier.
type clockSync struct {
	dt    time.Duration
	slack time.Duration
	delay time.Duration // the input delay, as time

	haveOff bool
	off     time.Duration // match clock minus local clock
	bestRTT time.Duration
	offAt   time.Duration // local time of the best sample

	lead        time.Duration
	target      time.Duration
	window      [feedbackWindow]time.Duration
	nwin        int
	adjustments int
}

// feedbackWindow is how many ticks of feedback each correction of the
// lead looks at.
const feedbackWindow = 16

// offsetMaxAge: a best ping older than this is replaced by the next one,
// whatever its round trip, so that a changed path is followed.
const offsetMaxAge = 10 * time.Second

func (k *clockSync) init(dt, slack time.Duration, delay int) {
	k.dt, k.slack, k.delay = dt, slack, time.Duration(delay)*dt
	k.target = slack
}

// pong takes a Pong received at local time now for a Ping sent at echo;
// server is the match clock when the server answered.
func (k *clockSync) pong(now, echo, server time.Duration) {
	rtt := now - echo
	if rtt < 0 || echo < 0 {
		return
	}
	if k.haveOff && rtt > k.bestRTT && now-k.offAt < offsetMaxAge {
		return
	}
	k.off, k.bestRTT, k.offAt = server+rtt/2-now, rtt, now
	if !k.haveOff {
		k.haveOff = true
		k.lead = rtt/2 + k.target
	}
}

// sendTime is the local time at which the input of local tick l (stamped
// l plus the delay) is sent.
func (k *clockSync) sendTime(l uint64, rate time.Duration) time.Duration {
	return engine.TickTime(l, int(rate)) - k.lead - k.off
}

// feedback takes how early the server received one of this client's
// inputs (negative: late, or substituted).
func (k *clockSync) feedback(early time.Duration, substituted bool) {
	if !k.haveOff {
		return
	}
	k.window[k.nwin] = early
	k.nwin++
	if k.nwin < feedbackWindow {
		return
	}
	k.nwin = 0
	s := k.window
	slices.Sort(s[:])
	median := s[feedbackWindow/2]
	spread := (s[feedbackWindow-2] - s[1]) / 2
	k.target = k.slack + max(spread, 0)
	err := median - k.delay - k.target
	step := min(max(err/2, -k.dt/8), k.dt/8)
	k.lead = min(max(k.lead-step, -time.Second), 2*time.Second)
	if step > time.Millisecond/2 || step < -time.Millisecond/2 {
		k.adjustments++
	}
}
