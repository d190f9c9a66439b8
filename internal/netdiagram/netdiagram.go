// Package netdiagram draws docs/multiplayer-tick.svg: the life of one tick
// of a lockstep match as a sequence diagram, with client A, the server and
// client B in three lanes and time running down the page. The times are
// computed by Model.Times from a small model of the protocol with explicit
// parameters (tick rate, slack, tolerance, each client's one-way latency,
// jitter and frame timing), not placed by hand and not measured.
// Regenerate the file with
//
//	go test ./internal/netdiagram -update
//
// and the package's test fails while the committed file is stale.
package netdiagram

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"time"
)

// Model holds the parameters the diagram's times are computed from.
type Model struct {
	// TickRate is the match's tick rate in ticks per second.
	TickRate int
	// Tick is the tick drawn, n; its deadline is n/TickRate seconds on
	// the match clock.
	Tick uint64
	// Slack is the least margin by which a client aims its input to
	// arrive before the deadline; the clock sync adds half the spread of
	// the arrival times (Client.Jitter) on top.
	Slack time.Duration
	// Tolerance is how long past a deadline the server waits for a
	// missing input before it substitutes the player's previous one.
	Tolerance time.Duration
	// ServerTick is the server's time to confirm the tick, simulate it
	// and queue the Confirmed message to every client.
	ServerTick time.Duration
	// KeyLead is how long before client A samples its input its player
	// presses a key.
	KeyLead time.Duration
	// A and B are the two clients.
	A, B Client
}

// Client holds one client's parameters.
type Client struct {
	// Name labels the client's lane.
	Name string
	// Latency is the one-way latency between the client and the server,
	// the same each way.
	Latency time.Duration
	// Jitter is how far the latency varies either way; the clock sync
	// aims the client's inputs that much earlier (half the spread).
	Jitter time.Duration
	// FrameRate is the client's frames per second.
	FrameRate int
	// FramePhase places the client's frames: one starts at the tick's
	// deadline plus FramePhase, and one every 1/FrameRate seconds from
	// there.
	FramePhase time.Duration
	// FrameWork is how long a frame takes to simulate the tick and draw
	// it, until the picture is on screen.
	FrameWork time.Duration
}

// Default returns the model the committed diagram is drawn from: the
// engine's default rates (60 Hz ticks, 144 Hz frames), the server's
// tolerance and the client's slack, a client 2 ms from the server and one
// 25 ms away with 2 ms of jitter.
func Default() Model {
	return Model{
		TickRate:   60,
		Tick:       60,
		Slack:      time.Millisecond,
		Tolerance:  4 * time.Millisecond,
		ServerTick: 500 * time.Microsecond,
		KeyLead:    5 * time.Millisecond,
		A: Client{
			Name: "client A", Latency: 2 * time.Millisecond,
			FrameRate: 144, FramePhase: 3 * time.Millisecond, FrameWork: 1500 * time.Microsecond,
		},
		B: Client{
			Name: "client B", Latency: 25 * time.Millisecond, Jitter: 2 * time.Millisecond,
			FrameRate: 144, FrameWork: 1500 * time.Microsecond,
		},
	}
}

// Times are the moments of the tick's life, on the match clock (to which
// the clients' clocks are synchronised).
type Times struct {
	Deadline   time.Duration // the tick's deadline, Tick/TickRate
	Substitute time.Duration // the deadline plus the tolerance
	KeyPress   time.Duration // client A's player presses a key
	// Confirm is when the server confirms the tick: at the deadline when
	// every input is in, else when the last one arrives, at the latest at
	// Substitute.
	Confirm time.Duration
	FanOut  time.Duration // the Confirmed messages leave the server
	A, B    ClientTimes   // the clients' parts
}

// ClientTimes are the moments of one client's part in the tick.
type ClientTimes struct {
	Margin      time.Duration // how early the clock sync aims the input: slack plus jitter
	Send        time.Duration // the client samples its input and sends it, stamped for the tick
	Arrive      time.Duration // the input reaches the server
	Early       time.Duration // the deadline minus Arrive: the feedback in the Confirmed
	Substituted bool          // the input came after Substitute; its previous one was used
	Receive     time.Duration // the tick's Confirmed message reaches the client
	Frame       time.Duration // the client's next frame starts: it simulates the tick
	Shown       time.Duration // that frame is on screen
}

// tickTime is tick n's time at rate ticks per second, n/rate seconds, exact
// to the nanosecond.
func tickTime(n uint64, rate int) time.Duration {
	r := uint64(rate)
	return time.Duration(n/r)*time.Second + time.Duration(n%r)*time.Second/time.Duration(rate)
}

// Times computes the tick's life. A client's clock sync, once settled,
// sends the input of tick n so that it arrives its margin (Slack plus
// Jitter) before the deadline: Latency plus the margin before it. The
// server confirms at the deadline when every input is in; a client
// simulates the tick at its first frame after the Confirmed arrives.
func (m Model) Times() Times {
	var t Times
	t.Deadline = tickTime(m.Tick, m.TickRate)
	t.Substitute = t.Deadline + m.Tolerance
	send := func(c Client) ClientTimes {
		var ct ClientTimes
		ct.Margin = m.Slack + c.Jitter
		ct.Send = t.Deadline - ct.Margin - c.Latency
		ct.Arrive = ct.Send + c.Latency
		ct.Early = t.Deadline - ct.Arrive
		ct.Substituted = ct.Arrive > t.Substitute
		return ct
	}
	t.A, t.B = send(m.A), send(m.B)
	t.KeyPress = t.A.Send - m.KeyLead
	t.Confirm = t.Deadline
	for _, ct := range []ClientTimes{t.A, t.B} {
		if !ct.Substituted {
			t.Confirm = max(t.Confirm, ct.Arrive)
		}
	}
	if t.A.Substituted || t.B.Substituted {
		t.Confirm = t.Substitute
	}
	t.FanOut = t.Confirm + m.ServerTick
	receive := func(ct *ClientTimes, c Client) {
		ct.Receive = t.FanOut + c.Latency
		ct.Frame = nextFrame(t.Deadline+c.FramePhase, c.FrameRate, ct.Receive)
		ct.Shown = ct.Frame + c.FrameWork
	}
	receive(&t.A, m.A)
	receive(&t.B, m.B)
	return t
}

// nextFrame returns the first frame start at or after at, frames starting
// at origin and every 1/rate seconds before and after it.
func nextFrame(origin time.Duration, rate int, at time.Duration) time.Duration {
	frame := func(k int64) time.Duration {
		return origin + time.Duration(k)*time.Second/time.Duration(rate)
	}
	k := int64(math.Floor(float64(at-origin) * float64(rate) / float64(time.Second)))
	for frame(k) < at {
		k++
	}
	for frame(k-1) >= at {
		k--
	}
	return frame(k)
}

// Layout, in pixels.
const (
	width    = 1110.0
	pxPerMS  = 10.0
	top      = 96.0 // the y of the first time on the axis
	axisX    = 70.0
	laneA    = 310.0
	laneS    = 570.0
	laneB    = 830.0
	axisStep = 5 * time.Millisecond
)

// SVG returns the diagram of Default().
func SVG() []byte { return Default().SVG() }

// SVG returns the diagram of m.
func (m Model) SVG() []byte {
	t := m.Times()
	first := min(t.KeyPress, t.B.Send, t.A.Send)
	last := max(t.A.Shown, t.B.Shown, t.Substitute)
	start := (first - 3*time.Millisecond).Truncate(axisStep)
	end := (last + 3*time.Millisecond + axisStep - 1).Truncate(axisStep)
	y := func(d time.Duration) float64 {
		return top + float64(d-start)/float64(time.Millisecond)*pxPerMS
	}
	height := y(end) + 76

	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...); b.WriteByte('\n') }
	// text writes a label at x, y; anchor is "start", "middle" or "end".
	text := func(x, y float64, anchor, style, s string) {
		if style != "" {
			style = " " + style
		}
		p(`<text x="%.0f" y="%.1f" text-anchor="%s"%s>%s</text>`, x, y, anchor, style, esc(s))
	}
	p(`<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="sans-serif" font-size="11">`, width, height, width, height)
	p(`<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#333"/></marker></defs>`)
	p(`<rect width="100%%" height="100%%" fill="white"/>`)
	text(axisX, 22, "start", `font-size="13" font-weight="bold"`,
		fmt.Sprintf("The life of tick %d in a lockstep match: inputs in before the deadline, confirmed, simulated by every peer", m.Tick))

	// Lanes.
	lane := func(x float64, title, sub string) {
		text(x, top-40, "middle", `font-weight="bold"`, title)
		text(x, top-26, "middle", "", sub)
		p(`<line x1="%.0f" y1="%.1f" x2="%.0f" y2="%.1f" stroke="#888" stroke-width="2"/>`, x, y(start)-8, x, y(end))
	}
	lane(laneA, m.A.Name, latency(m.A)+" from the server")
	lane(laneS, "server", fmt.Sprintf("owns the tick clock, %d Hz", m.TickRate))
	lane(laneB, m.B.Name, latency(m.B)+" from the server")

	// The time axis: the match clock, to which the clients' clocks are
	// synchronised.
	p(`<line x1="%.0f" y1="%.1f" x2="%.0f" y2="%.1f" stroke="black"/>`, axisX, y(start), axisX, y(end))
	text(axisX-20, top-26, "middle", "", "match clock")
	for d := start; d <= end; d += axisStep {
		p(`<line x1="%.0f" y1="%.1f" x2="%.0f" y2="%.1f" stroke="black"/>`, axisX-4, y(d), axisX, y(d))
		text(axisX-7, y(d)+4, "end", "", fmt.Sprintf("%d ms", d/time.Millisecond))
	}

	// The clients' frames, as short grey marks on their lanes.
	frames := func(x float64, c Client) {
		origin := t.Deadline + c.FramePhase
		for f := nextFrame(origin, c.FrameRate, start); f <= end; f = nextFrame(origin, c.FrameRate, f+1) {
			p(`<line x1="%.0f" y1="%.1f" x2="%.0f" y2="%.1f" stroke="#aaa"/>`, x-5, y(f), x+5, y(f))
		}
	}
	frames(laneA, m.A)
	frames(laneB, m.B)

	// Deadlines: the tick's, and its neighbours' for scale.
	n := m.Tick
	for k := n - 3; k <= n+3; k++ {
		d := tickTime(k, m.TickRate)
		if d < start || d > end {
			continue
		}
		if k == n {
			p(`<line x1="%.0f" y1="%.1f" x2="%.0f" y2="%.1f" stroke="#c03030" stroke-width="1.5"/>`, axisX, y(d), laneB+40, y(d))
			text(axisX+6, y(d)-4, "start", `fill="#c03030" font-weight="bold"`, fmt.Sprintf("tick %d deadline", k))
			continue
		}
		p(`<line x1="%.0f" y1="%.1f" x2="%.0f" y2="%.1f" stroke="#ccc" stroke-dasharray="4,4"/>`, axisX, y(d), laneB+40, y(d))
		text(axisX+6, y(d)-4, "start", `fill="#999"`, fmt.Sprintf("tick %d deadline", k))
	}

	dot := func(x float64, at time.Duration) {
		p(`<circle cx="%.0f" cy="%.1f" r="3.5" fill="#333"/>`, x, y(at))
	}
	// A frame that simulates the tick and draws it, as a blue box.
	frameBox := func(x float64, ct ClientTimes) {
		p(`<rect x="%.0f" y="%.1f" width="10" height="%.1f" fill="#3a6ea5"/>`, x-5, y(ct.Frame), y(ct.Shown)-y(ct.Frame))
	}

	// Client A: labels on the left of its lane.
	dot(laneA, t.KeyPress)
	text(laneA-9, y(t.KeyPress)+4, "end", "", "key pressed")
	dot(laneA, t.A.Send)
	text(laneA-9, y(t.A.Send)+4, "end", "", fmt.Sprintf("samples its input, sends it for tick %d", n))
	dot(laneA, t.A.Receive)
	text(laneA-9, y(t.A.Receive)-4, "end", "", fmt.Sprintf("Confirmed %d arrives: the tick may run", n))
	frameBox(laneA, t.A)
	text(laneA-9, y(t.A.Shown)+10, "end", "", fmt.Sprintf("next frame: simulates tick %d, draws it,", n))
	text(laneA-9, y(t.A.Shown)+23, "end", `font-weight="bold"`, fmt.Sprintf("on screen %s after the key press", ms(t.A.Shown-t.KeyPress)))

	// Client B: labels on the right.
	dot(laneB, t.B.Send)
	text(laneB+9, y(t.B.Send)+4, "start", "", fmt.Sprintf("samples its input, sends it for tick %d", n))
	dot(laneB, t.B.Receive)
	text(laneB+9, y(t.B.Receive)-4, "start", "", fmt.Sprintf("Confirmed %d arrives: the tick may run", n))
	frameBox(laneB, t.B)
	text(laneB+9, y(t.B.Shown)+10, "start", "", fmt.Sprintf("next frame: simulates tick %d, draws it,", n))
	text(laneB+9, y(t.B.Shown)+23, "start", `font-weight="bold"`, fmt.Sprintf("on screen %s after A's key press", ms(t.B.Shown-t.KeyPress)))

	// The server: the confirmation above the deadline on the right (below
	// it runs the Confirmed message to B), the tolerance on the left.
	p(`<rect x="%.0f" y="%.1f" width="10" height="%.1f" fill="#c07000"/>`, laneS-5, y(t.Confirm), max(y(t.FanOut)-y(t.Confirm), 2))
	why := "every input is in"
	if t.A.Substituted || t.B.Substituted {
		why = "a missing input is substituted"
	}
	text(laneS+9, y(t.Confirm)-17, "start", "", fmt.Sprintf("confirms tick %d (%s),", n, why))
	text(laneS+9, y(t.Confirm)-4, "start", "", fmt.Sprintf("simulates it, sends Confirmed %d to all", n))
	p(`<line x1="%.0f" y1="%.1f" x2="%.0f" y2="%.1f" stroke="#c03030" stroke-dasharray="2,3"/>`, laneS-30, y(t.Substitute), laneS+30, y(t.Substitute))
	text(laneS-34, y(t.Substitute)+4, "end", `fill="#c03030"`, fmt.Sprintf("deadline + %s: a missing", ms(m.Tolerance)))
	text(laneS-34, y(t.Substitute)+17, "end", `fill="#c03030"`, "input would be substituted")

	// Messages.
	arrow := func(x1 float64, t1 time.Duration, x2 float64, t2 time.Duration, label string) {
		y1, y2 := y(t1), y(t2)
		p(`<line x1="%.0f" y1="%.1f" x2="%.0f" y2="%.1f" stroke="#333" stroke-width="1.2" marker-end="url(#arrow)"/>`, x1, y1, x2, y2)
		// The label runs along the arrow, above it, read left to right.
		lx, ly, rx, ry := x1, y1, x2, y2
		if rx < lx {
			lx, ly, rx, ry = rx, ry, lx, ly
		}
		angle := math.Atan2(ry-ly, rx-lx) * 180 / math.Pi
		p(`<text transform="translate(%.1f %.1f) rotate(%.1f)" text-anchor="middle" font-size="10">%s</text>`, (lx+rx)/2, (ly+ry)/2-4, angle, esc(label))
	}
	arrow(laneA, t.A.Send, laneS, t.A.Arrive, fmt.Sprintf("Input %d: arrives %s early", n, ms(t.A.Early)))
	arrow(laneB, t.B.Send, laneS, t.B.Arrive, fmt.Sprintf("Input %d: arrives %s early", n, ms(t.B.Early)))
	arrow(laneS, t.FanOut, laneA, t.A.Receive, fmt.Sprintf("Confirmed %d", n))
	arrow(laneS, t.FanOut, laneB, t.B.Receive, fmt.Sprintf("Confirmed %d", n))

	// What the diagram is drawn from.
	foot := y(end) + 24
	small := `font-size="10"`
	text(axisX, foot, "start", small, fmt.Sprintf("Computed by internal/netdiagram: %d Hz ticks, input delay 0, slack %s, tolerance %s, %s for the server to confirm and simulate a tick;",
		m.TickRate, ms(m.Slack), ms(m.Tolerance), ms(m.ServerTick)))
	text(axisX, foot+14, "start", small, fmt.Sprintf("%s %s one way, %s %s; frames at %d Hz (grey marks), %s to simulate and draw a tick (blue). Each input aims to arrive the slack",
		m.A.Name, latency(m.A), m.B.Name, latency(m.B), m.A.FrameRate, ms(m.A.FrameWork)))
	text(axisX, foot+28, "start", small, fmt.Sprintf("plus half the spread of its arrival times before the deadline (B: %s). A client holds tick %d until its Confirmed arrives and goes on drawing meanwhile.",
		ms(t.B.Margin), n))
	p(`</svg>`)
	return b.Bytes()
}

// latency describes a client's one-way latency: "25 ms ± 2 ms".
func latency(c Client) string {
	if c.Jitter == 0 {
		return ms(c.Latency)
	}
	return fmt.Sprintf("%s ± %s", ms(c.Latency), ms(c.Jitter))
}

// ms formats d in milliseconds with at most one decimal: "2 ms", "0.5 ms".
func ms(d time.Duration) string {
	s := fmt.Sprintf("%.1f", float64(d)/float64(time.Millisecond))
	return strings.TrimSuffix(s, ".0") + " ms"
}

// esc escapes text for an SVG text element.
func esc(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
