package netplay

import (
	"sync"
	"time"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/engine/netplay/wire"
)

// inputSender is a client's input sender: it samples the local player's
// input on the client's input clock (clockSync) and stamps each sample
// with the tick it is for, the local tick plus the input delay. It keeps
// the latest samples, for the predictions. Its device input is safe from
// any goroutine; next is the client's send loop's.
type inputSender struct {
	delay int           // the input delay, in ticks
	rate  time.Duration // ticks per second
	now   func() time.Duration

	mu     sync.Mutex
	local  input.Queue
	script func(tick uint64, due time.Duration, in *input.Queue)
	// sampled holds the inputs sampled for the latest ticks, by tick
	// modulo its length, for the predictions; lastSampled is the latest
	// tick sampled.
	sampled     [256]sampledInput
	lastSampled uint64

	// next is the next local tick to send input for (0: not started);
	// only the send loop touches it.
	next uint64
}

// sampledInput is the local input sampled for a tick.
type sampledInput struct {
	tick uint64
	in   input.Sample
}

// setScript makes script the player's input (nil: the device events).
func (s *inputSender) setScript(script func(tick uint64, due time.Duration, in *input.Queue)) {
	s.mu.Lock()
	s.script = script
	s.mu.Unlock()
}

// inheritActions makes a the local input's actions, unless it has some
// (LocalInput.SetActions) or a is nil.
func (s *inputSender) inheritActions(a *input.Actions) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a != nil && s.local.Actions() == nil {
		s.local.SetActions(a)
	}
}

// push queues a device event, timed by the client's clock.
func (s *inputSender) push(ev input.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ev.Time = s.now()
	s.local.Push(ev)
}

// releaseAll releases every key and button held, at the client's clock.
func (s *inputSender) releaseAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.local.ReleaseAll(s.now())
}

// sample returns the local player's input for tick: the script's, or the
// device events pushed since the last sample.
func (s *inputSender) sample(tick uint64) input.Sample {
	s.mu.Lock()
	defer s.mu.Unlock()
	var in input.Sample
	if s.script != nil {
		due := engine.TickTime(tick, int(s.rate))
		s.script(tick, due, &s.local)
		in = s.local.Advance(due)
	} else {
		in = s.local.Advance(s.now())
	}
	s.sampled[tick%uint64(len(s.sampled))] = sampledInput{tick, in}
	s.lastSampled = max(s.lastSampled, tick)
	return in
}

// sampledFor returns the input sampled for tick, or the latest one for a
// tick past those; false when there is none.
func (s *inputSender) sampledFor(tick uint64) (input.Sample, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if x := &s.sampled[tick%uint64(len(s.sampled))]; x.tick == tick && tick != 0 {
		return x.in, true
	}
	if s.lastSampled != 0 && tick > s.lastSampled {
		return s.sampled[s.lastSampled%uint64(len(s.sampled))].in, true
	}
	return input.Sample{}, false
}

// firstLocalTick is the first local tick whose send time is not past.
func (s *inputSender) firstLocalTick(clk *clockSync, now time.Duration) uint64 {
	at := now + clk.lead + clk.off // the match clock at the send time
	n := uint64(1)
	if at > 0 {
		n = uint64(at/time.Second)*uint64(s.rate) + uint64((at%time.Second)*s.rate/time.Second) + 1
	}
	for n > 1 && clk.sendTime(n-1, s.rate) >= now {
		n--
	}
	return max(n, 1)
}

// due samples the inputs whose send time has come at now, up to
// wire.MaxInputRun, into in (none: in.Inputs is empty). The clock must
// have its offset (clk.haveOff).
func (s *inputSender) due(clk *clockSync, now time.Duration, in *wire.Input) {
	if s.next == 0 {
		s.next = s.firstLocalTick(clk, now)
	}
	if behind := now - clk.sendTime(s.next, s.rate); behind > time.Second {
		// The client stalled: skip to the present rather than send a
		// second of stale input (the server substitutes those ticks).
		s.next = s.firstLocalTick(clk, now)
	}
	in.Inputs = in.Inputs[:0]
	for clk.sendTime(s.next, s.rate) <= now && len(in.Inputs) < wire.MaxInputRun {
		in.Inputs = append(in.Inputs, s.sample(s.next+uint64(s.delay)))
		s.next++
	}
	if n := len(in.Inputs); n > 0 {
		in.First = s.next - uint64(n) + uint64(s.delay)
	}
}

// nextSend is the local time at which the next input is due.
func (s *inputSender) nextSend(clk *clockSync) time.Duration {
	return clk.sendTime(s.next, s.rate)
}

// LocalInput is a client's local player's device input (Client.LocalInput),
// for a window to push its events to. Its methods are safe from any
// goroutine; an event's time is replaced by the client's clock.
type LocalInput struct{ s *inputSender }

// Push queues a device event.
func (l *LocalInput) Push(ev input.Event) { l.s.push(ev) }

// ReleaseAll releases every key and button held, as a window that loses
// the focus does (the time is the client's clock's).
func (l *LocalInput) ReleaseAll(time.Duration) { l.s.releaseAll() }

// SetActions makes the local player's Samples carry the actions a
// resolves (input.Queue.SetActions): what the client sends, and every
// peer and recording sees, is the action's state and value, whatever their
// own bindings. a may be rebound while the client runs. Without it, the
// client resolves the actions of the engine it is attached to
// (Client.Attach): set them there, once, for the game's every run.
func (l *LocalInput) SetActions(a *input.Actions) {
	l.s.mu.Lock()
	defer l.s.mu.Unlock()
	l.s.local.SetActions(a)
}
