package netplay

import (
	"fmt"
	"io"
	"sync/atomic"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/netplay/wire"
	"github.com/nebulaengine/nebula/timing"
)

// HashEvery is how often, in ticks, a client sends its state hash for the
// server to compare: at every tick that is a multiple of it.
const HashEvery = 60

// MaxInputAhead is how far, in ticks, beyond the server's last confirmed
// tick a client's input may be stamped, and how far behind it: an input
// outside that window is not a client keeping time but a broken or
// hostile one, and the server drops its connection.
const MaxInputAhead = 512

// applyTick sets p as the confirmed tick ct says, from TickHook.BeginTick:
// the leaves, then the joins, then every player's input. It returns an
// error when ct does not fit the match: a join of a player already in, a
// leave of one who is not, or inputs that are not exactly the players in
// the match once the joins and leaves are applied.
//
//srccheck:wrapped by the client's rollbackSource.Confirmed ("netplay: client: server <addr>: confirmed tick n ...") and the server's hook ("netplay: server: tick n: ...")
func applyTick(p *engine.Players, ct *wire.ConfirmedTick) error {
	for _, id := range ct.Leaves {
		if err := p.Leave(engine.PlayerID(id)); err != nil {
			return err
		}
	}
	for _, id := range ct.Joins {
		if err := p.Join(engine.PlayerID(id)); err != nil {
			return err
		}
	}
	if len(ct.Inputs) != p.Len() {
		return fmt.Errorf("%d inputs for the %d players in the match", len(ct.Inputs), p.Len())
	}
	for i := range ct.Inputs {
		in := &ct.Inputs[i]
		if id, _ := p.At(i); id != engine.PlayerID(in.Player) {
			return fmt.Errorf("an input for player %d, who is not in the match", in.Player)
		}
		if err := p.SetInput(engine.PlayerID(in.Player), in.Input); err != nil {
			return err
		}
	}
	return nil
}

// copyTick makes *dst a deep copy of src, reusing dst's slices.
func copyTick(dst, src *wire.ConfirmedTick) {
	dst.Joins = append(dst.Joins[:0], src.Joins...)
	dst.Leaves = append(dst.Leaves[:0], src.Leaves...)
	dst.Inputs = append(dst.Inputs[:0], src.Inputs...)
	dst.Early, dst.Substituted = src.Early, src.Substituted
}

// Latencies is a histogram of durations, for percentiles without keeping
// every sample (see timing.Durations).
type Latencies = timing.Durations

// The histogram's resolution and range.
const (
	LatencyStep = timing.DurationStep
	MaxLatency  = timing.MaxDuration
)

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n *atomic.Int64
}

func (c countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n.Add(int64(n))
	return n, err
}
