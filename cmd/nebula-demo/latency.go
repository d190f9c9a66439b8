package main

import (
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/sirupsen/logrus"

	"github.com/nebulaengine/nebula/cmd/nebula-demo/scene"
	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/engine/netplay"
	"github.com/nebulaengine/nebula/engine/rollback"
)

// inputTrace follows each press of an arrow key in a networked player's
// window from the window to the screen. It runs only at -log-level debug
// (runClient installs it), and logs one debug line per press, "own input
// shown", with:
//
//   - received_ns: when the window received the key's event (the frame's
//     event poll), Unix nanoseconds, and received_frame, the frame that
//     polled it;
//   - input_tick: the first tick whose sampled input holds the key (what
//     the client's input clock stamped the press with), and press_tick,
//     that tick minus the input delay: the local tick of the press;
//   - moved_tick: the tick of the client's first simulation (in time, on
//     predicted inputs or confirmed, first or again after a rollback) in
//     which its own cube moved, among the ticks from input_tick to the
//     next press's; moved_predicted and moved_resimulated say how that
//     simulation ran, moved_ns when (Unix nanoseconds);
//   - moved_after: moved_tick minus press_tick, in ticks (the input delay
//     when the tick clock runs the tick whose input it has just sampled);
//   - held_tick: the tick of the client's first simulation, among the
//     same ticks, whose own input held an arrow (the first that had the
//     press), and moved_with_input, whether the cube first moved in that
//     very simulation;
//   - ahead: how many of those ticks the client simulated before that
//     simulation, without the press (its tick clock ran that far ahead of
//     its input clock, or the server confirmed them without the input it
//     got late): the press could show no earlier than input_tick plus
//     ahead;
//   - drawn_frame, drawn_tick and drawn_ns: the first frame after the
//     event that drew the cube away (by more than drawnMoved) from where
//     the frame before the event drew it, the engine's tick in that frame, and the time its swap
//     returned (Unix nanoseconds);
//   - shown_after: drawn_ns minus received_ns, and frames, drawn_frame
//     minus received_frame plus one (1: the frame that polled the event
//     drew it).
//
// Presses are told apart by the arrows: one starts when an arrow goes down
// while none is down. Its systems read the world and never change it.
type inputTrace struct {
	c     *netplay.Client
	e     *engine.Engine
	sc    *scene.Scene
	log   logrus.FieldLogger
	me    engine.PlayerID
	delay uint64
	local *netplay.LocalInput

	held    [4]bool       // the arrows down in the window's events
	presses []tracedPress // received, not yet logged

	// The last frame's drawn position of the player's cube.
	haveDrawn bool
	drawnPos  mgl32.Vec3
	timeSwap  bool // a press was first drawn moved this frame: time its swap

	// The sampled input, read up to tick scanned (the last confirmed tick:
	// by then every tick before it has been sampled).
	scanned     uint64
	sampledDown bool

	// The first simulation of each tick: at all, whose own input held an
	// arrow, in which the cube moved; by tick modulo traceRing.
	sims, holds, moves [traceRing]tickMove
	seq                uint64 // simulations so far
}

// drawnMoved is how far the cube must be drawn from where it rested to
// count as moved: interpolation draws a cube at rest within a rounding
// error of its place (s*a + t*a is not always a), and a tick at the
// scene's speed moves it 0.1.
const drawnMoved = 1e-4

// traceRing is how many ticks of first moves inputTrace keeps: far more
// than a press's window (rollback.MaxDepth) plus the confirmation's
// lag.
const traceRing = 1024

// tickMove is the first simulation of a tick that did something (ran,
// held an arrow, moved the player's cube).
type tickMove struct {
	tick                   uint64 // 0: none
	seq                    uint64 // order among all such simulations
	at                     time.Time
	predicted, resimulated bool
}

// tracedPress is one press, as far as it is known.
type tracedPress struct {
	key           input.Key
	receivedAt    time.Time
	receivedFrame uint64
	rest          mgl32.Vec3 // where the frame before the event drew the cube
	haveRest      bool

	drawn       bool
	drawnFrame  uint64
	drawnTick   uint64
	drawnAt     time.Time
	timed       bool // drawnAt is set
	inputTick   uint64
	windowEnd   uint64 // the next press's input tick (0: not known yet)
	windowKnown bool
}

var traceArrows = [4]input.Key{input.KeyArrowLeft, input.KeyArrowRight, input.KeyArrowUp, input.KeyArrowDown}

// newInputTrace adds the trace's fixed system to e, last in the scene's
// debug stage, which c runs for player c.Welcome().Player.
func newInputTrace(c *netplay.Client, e *engine.Engine, sc *scene.Scene, log logrus.FieldLogger) *inputTrace {
	tr := &inputTrace{c: c, e: e, sc: sc, log: log, me: engine.PlayerID(c.Welcome().Player), delay: uint64(c.InputDelay()), local: c.LocalInput()}
	e.AddSystem(scene.StageDebug, "input-trace", tr.fixed)
	return tr
}

// install adds the trace's frame systems to e; the runner must pass the
// window's events to Push and ReleaseAll, and call frameDone after every
// frame.
func (tr *inputTrace) install() {
	tr.e.AddUpdate("input-trace", tr.update)
	tr.e.AddRender("input-trace", tr.render)
}

// Push implements desktop.InputSink: it notes a press, and passes the
// event to the client's local input.
func (tr *inputTrace) Push(ev input.Event) {
	for i, k := range traceArrows {
		if ev.Key != k || (ev.Kind != input.KeyDown && ev.Kind != input.KeyUp) {
			continue
		}
		down := ev.Kind == input.KeyDown
		if down && tr.held == [4]bool{} {
			tr.presses = append(tr.presses, tracedPress{
				key: k, receivedAt: time.Now(), receivedFrame: tr.e.Loop.Frames() + 1,
				rest: tr.drawnPos, haveRest: tr.haveDrawn,
			})
		}
		tr.held[i] = down
	}
	tr.local.Push(ev)
}

// ReleaseAll implements desktop.InputSink.
func (tr *inputTrace) ReleaseAll(t time.Duration) {
	tr.held = [4]bool{}
	tr.local.ReleaseAll(t)
}

// fixed notes the first simulation of each tick, the first whose own
// input held an arrow, and the first in which the player's cube moved.
func (tr *inputTrace) fixed(c *engine.FixedContext) {
	tr.seq++
	note := func(ring *[traceRing]tickMove) {
		if m := &ring[c.Tick%traceRing]; m.tick != c.Tick {
			*m = tickMove{tick: c.Tick, seq: tr.seq, at: time.Now(), predicted: c.Predicted, resimulated: c.Resimulated}
		}
	}
	note(&tr.sims)
	if in := c.Players.Input(tr.me); in != nil {
		for _, k := range traceArrows {
			if in.Down(k) {
				note(&tr.holds)
				break
			}
		}
	}
	cube, ok := tr.sc.PlayerCube(c.World, tr.me)
	if ok && c.World.Transform(cube).Pos != c.World.PrevTransform(cube).Pos {
		note(&tr.moves)
	}
}

// render finds where the frame draws the player's cube, and the first
// frame after each press's event that draws it elsewhere than before.
func (tr *inputTrace) render(c *engine.FrameContext) {
	cube, ok := tr.sc.PlayerCube(c.World, tr.me)
	if !ok {
		return
	}
	for k, ent := range c.Render.Entities {
		if ent != cube {
			continue
		}
		pos := c.Render.Instances[k].Pos
		for i := range tr.presses {
			p := &tr.presses[i]
			if p.drawn || !p.haveRest {
				continue
			}
			if d := pos.Sub(p.rest); d.Dot(d) > drawnMoved*drawnMoved {
				p.drawn, p.drawnFrame, p.drawnTick = true, c.Stats.Frames, c.World.Tick()
				tr.timeSwap = true
			}
			break // the oldest press not yet drawn
		}
		tr.drawnPos, tr.haveDrawn = pos, true
		return
	}
}

// frameDone times the swap of a frame that first drew a press.
func (tr *inputTrace) frameDone() {
	if !tr.timeSwap {
		return
	}
	tr.timeSwap = false
	now := time.Now()
	for i := range tr.presses {
		if p := &tr.presses[i]; p.drawn && !p.timed {
			p.drawnAt, p.timed = now, true
		}
	}
}

// update reads the sampled input up to the last confirmed tick, and logs
// the presses it knows all about.
func (tr *inputTrace) update(*engine.FrameContext) {
	tr.scan(tr.c.Tick())
	tr.flush(false)
}

// scan reads the sampled input of the ticks up to last, and gives each
// press the first tick whose input holds an arrow.
func (tr *inputTrace) scan(last uint64) {
	next := 0 // the first press without an input tick
	for next < len(tr.presses) && tr.presses[next].inputTick != 0 {
		next++
	}
	for t := tr.scanned + 1; t <= last; t++ {
		_, in, ok := tr.c.Local(t)
		down := false
		if ok {
			for _, k := range traceArrows {
				down = down || in.Down(k)
			}
		}
		if down && !tr.sampledDown {
			if next > 0 && !tr.presses[next-1].windowKnown {
				tr.presses[next-1].windowEnd, tr.presses[next-1].windowKnown = t, true
			}
			if next < len(tr.presses) {
				tr.presses[next].inputTick = t
				next++
			} else {
				tr.log.WithField("input_tick", t).Debug("own input: an arrow is down in the sampled input without a press the window received")
			}
		}
		tr.sampledDown = down
		tr.scanned = t
	}
}

// flush logs the presses whose every figure is known, oldest first; with
// all, also those that never will be (the run ended).
func (tr *inputTrace) flush(all bool) {
	n := 0
	for n < len(tr.presses) {
		p := &tr.presses[n]
		if p.inputTick != 0 && !p.windowKnown && tr.scanned > p.inputTick+rollback.MaxDepth {
			p.windowEnd, p.windowKnown = p.inputTick+rollback.MaxDepth+1, true
		}
		if !all && !(p.timed && p.windowKnown) {
			break
		}
		tr.logPress(p, all)
		n++
	}
	tr.presses = append(tr.presses[:0], tr.presses[n:]...)
}

func (tr *inputTrace) logPress(p *tracedPress, end bool) {
	f := logrus.Fields{"key": p.key.String(), "received_ns": p.receivedAt.UnixNano(), "received_frame": p.receivedFrame, "input_delay": tr.delay}
	if p.timed {
		f["drawn_frame"], f["drawn_tick"], f["drawn_ns"] = p.drawnFrame, p.drawnTick, p.drawnAt.UnixNano()
		f["shown_after"] = p.drawnAt.Sub(p.receivedAt)
		f["frames"] = p.drawnFrame - p.receivedFrame + 1
	}
	if p.inputTick != 0 {
		f["input_tick"] = p.inputTick
		if p.inputTick > tr.delay {
			f["press_tick"] = p.inputTick - tr.delay
		}
		end := p.windowEnd
		if !p.windowKnown {
			end = tr.scanned + 1
		}
		// earliest returns the earliest simulation in ring of the press's
		// ticks.
		earliest := func(ring *[traceRing]tickMove) *tickMove {
			var f *tickMove
			for t := p.inputTick; t < end && t < p.inputTick+traceRing; t++ {
				if m := &ring[t%traceRing]; m.tick == t && (f == nil || m.seq < f.seq) {
					f = m
				}
			}
			return f
		}
		first, held := earliest(&tr.moves), earliest(&tr.holds)
		if held != nil {
			ahead := 0
			for t := p.inputTick; t < end && t < p.inputTick+traceRing; t++ {
				if m := &tr.sims[t%traceRing]; m.tick == t && m.seq < held.seq {
					ahead++
				}
			}
			f["held_tick"], f["ahead"] = held.tick, ahead
			f["moved_with_input"] = first != nil && first.seq == held.seq
		}
		if first != nil {
			f["moved_tick"], f["moved_ns"] = first.tick, first.at.UnixNano()
			f["moved_predicted"], f["moved_resimulated"] = first.predicted, first.resimulated
			f["moved_after"] = int64(first.tick) - int64(p.inputTick) + int64(tr.delay)
		}
	}
	msg := "own input shown"
	if end && !(p.timed && p.inputTick != 0 && f["moved_tick"] != nil && f["held_tick"] != nil) {
		msg = "own input not traced to the screen"
	}
	tr.log.WithFields(f).Debug(msg)
}

// finish logs what is left once the window has closed: the sampled input
// up to the last confirmed tick, then every press not logged yet.
func (tr *inputTrace) finish() {
	tr.scan(tr.c.Tick())
	tr.flush(true)
}
