package netdiagram

import (
	"bytes"
	"flag"
	"os"
	"testing"
	"time"

	"github.com/nebulaengine/nebula/engine/netplay"
	"github.com/nebulaengine/nebula/timing"
)

var update = flag.Bool("update", false, "rewrite "+committed)

const committed = "../../docs/multiplayer-tick.svg"

// The committed diagram is what the model gives today: regenerate it with
// go test ./internal/netdiagram -update.
func TestCommittedDiagramIsCurrent(t *testing.T) {
	got := SVG()
	if *update {
		if err := os.WriteFile(committed, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(committed)
	if err != nil {
		t.Fatalf("%v (go test ./internal/netdiagram -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale: the model or the drawing changed; run go test ./internal/netdiagram -update and commit it", committed)
	}
}

// The model's parameters are the engine's and the netplay package's
// defaults, so that the diagram shows what a default match does.
func TestDefaultsAreTheEngines(t *testing.T) {
	m := Default()
	srv, cli := netplay.DefaultServerConfig(), netplay.DefaultClientConfig()
	if m.TickRate != timing.DefaultTickRate {
		t.Errorf("tick rate %d, the engine's default is %d", m.TickRate, timing.DefaultTickRate)
	}
	if m.Tolerance != srv.Tolerance {
		t.Errorf("tolerance %v, the server's default is %v", m.Tolerance, srv.Tolerance)
	}
	if m.Slack != cli.Slack {
		t.Errorf("slack %v, the client's default is %v", m.Slack, cli.Slack)
	}
	if netplay.DefaultInputDelay != 0 {
		t.Errorf("the default input delay is %d ticks; the model (and the diagram's caption) assume 0", netplay.DefaultInputDelay)
	}
	for _, c := range []Client{m.A, m.B} {
		if c.FrameRate != timing.DefaultRenderRate {
			t.Errorf("%s: frame rate %d, the engine's default is %v", c.Name, c.FrameRate, timing.DefaultRenderRate)
		}
	}
}

// The story the diagram tells: both inputs arrive before the deadline, by
// their margin; the server confirms at the deadline and the fan-out leaves
// once it has simulated the tick; each client simulates the tick at its
// first frame after the Confirmed arrives.
func TestDiagramStory(t *testing.T) {
	m := Default()
	tt := m.Times()
	if want := time.Second; tt.Deadline != want { // tick 60 at 60 Hz
		t.Errorf("deadline %v, want %v", tt.Deadline, want)
	}
	for _, c := range []struct {
		name string
		c    Client
		ct   ClientTimes
	}{{"A", m.A, tt.A}, {"B", m.B, tt.B}} {
		ct := c.ct
		if ct.Arrive >= tt.Deadline || ct.Substituted {
			t.Errorf("%s's input arrives at %v, not before the deadline %v", c.name, ct.Arrive, tt.Deadline)
		}
		if ct.Early < m.Slack || ct.Early != m.Slack+c.c.Jitter {
			t.Errorf("%s's input is %v early, want the slack plus its jitter, %v", c.name, ct.Early, m.Slack+c.c.Jitter)
		}
		if ct.Arrive-ct.Send != c.c.Latency || ct.Receive-tt.FanOut != c.c.Latency {
			t.Errorf("%s: the messages take %v and %v, want the latency %v", c.name, ct.Arrive-ct.Send, ct.Receive-tt.FanOut, c.c.Latency)
		}
		period := time.Second / time.Duration(c.c.FrameRate)
		if ct.Frame < ct.Receive || ct.Frame-ct.Receive > period {
			t.Errorf("%s simulates at %v, the Confirmed arrives at %v: not its next frame", c.name, ct.Frame, ct.Receive)
		}
		if ct.Shown <= tt.KeyPress {
			t.Errorf("%s shows the tick at %v, before the key press at %v", c.name, ct.Shown, tt.KeyPress)
		}
	}
	if tt.Confirm != tt.Deadline {
		t.Errorf("the server confirms at %v, want the deadline %v", tt.Confirm, tt.Deadline)
	}
	if tt.FanOut != tt.Deadline+m.ServerTick {
		t.Errorf("the fan-out leaves at %v, want the deadline plus the server's tick, %v", tt.FanOut, tt.Deadline+m.ServerTick)
	}
	if tt.B.Send >= tt.Deadline-time.Second/time.Duration(m.TickRate) {
		t.Errorf("B sends at %v: the diagram means to show it sending before the previous tick's deadline", tt.B.Send)
	}
}

// An input that would arrive after the tolerance is substituted, and the
// server confirms at the deadline plus the tolerance; one that arrives
// within it is waited for.
func TestLateInput(t *testing.T) {
	m := Default()
	m.Slack = -10 * time.Millisecond // B's input aims 8 ms late
	tt := m.Times()
	if !tt.A.Substituted || !tt.B.Substituted || tt.Confirm != tt.Substitute {
		t.Errorf("inputs 9 and 8 ms late: substituted %v %v, confirmed at %v; want both, at %v", tt.A.Substituted, tt.B.Substituted, tt.Confirm, tt.Substitute)
	}
	m.Slack = -2 * time.Millisecond // A 2 ms late, B on time
	tt = m.Times()
	if tt.A.Substituted || tt.B.Substituted || tt.Confirm != tt.A.Arrive {
		t.Errorf("an input 2 ms late: substituted %v %v, confirmed at %v; want none, at its arrival %v", tt.A.Substituted, tt.B.Substituted, tt.Confirm, tt.A.Arrive)
	}
}

func TestNextFrame(t *testing.T) {
	origin := 3 * time.Millisecond
	for _, c := range []struct{ at, want time.Duration }{
		{3 * time.Millisecond, 3 * time.Millisecond},
		{3*time.Millisecond + 1, 3*time.Millisecond + time.Second/144},
		{2 * time.Millisecond, 3 * time.Millisecond},
		{-time.Second, 3*time.Millisecond - 144*time.Second/144},
	} {
		if got := nextFrame(origin, 144, c.at); got != c.want {
			t.Errorf("nextFrame(%v, 144, %v) = %v, want %v", origin, c.at, got, c.want)
		}
	}
}
