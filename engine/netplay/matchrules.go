package netplay

import (
	"fmt"
	"slices"

	"github.com/nebulaengine/nebula/engine/netplay/wire"
)

// matchRules is a client's view of the match, kept by the protocol's
// rules from the server's messages: confirmed ticks come in order and
// never after the match's end; a snapshot never goes back behind ticks
// already confirmed; the client's player counts from the tick it joined
// at; the match ends once, at a tick the server names. It holds the
// confirmed-tick store and what the client must act on (desyncs to dump,
// the end). The Client guards it with its mutex.
//
//srccheck:wrapped by Client.receive, then Client.fail, as "netplay: client: ..."
type matchRules struct {
	ticks     tickStore
	desyncs   []wire.Desync // reported, not yet dumped
	endTick   uint64
	ended     bool
	endReason wire.EndReason // why, once ended
	joinTick  uint64         // the tick this client's player joined at (0: not yet)
}

// confirmed takes a run of confirmed ticks. For a player (me is its ID)
// it calls own for each tick from the one its player joined at: the
// ticks that hold its own input.
func (r *matchRules) confirmed(m *wire.Confirmed, player bool, me wire.PlayerID, own func(t *wire.ConfirmedTick)) error {
	if r.ended {
		return fmt.Errorf("a confirmed tick after the match's end")
	}
	if err := r.ticks.add(m); err != nil {
		return err
	}
	if !player {
		return nil
	}
	for i := range m.Ticks {
		t := &m.Ticks[i]
		tick := m.First + uint64(i)
		if r.joinTick == 0 && slices.Contains(t.Joins, me) {
			r.joinTick = tick
		}
		if r.joinTick != 0 && tick >= r.joinTick {
			own(t)
		}
	}
	return nil
}

// snapshot takes a snapshot to restore before the next tick.
func (r *matchRules) snapshot(m *wire.Snapshot) error {
	return r.ticks.setSnapshot(m.Tick, m.Data)
}

// desync takes the server's report of a desync, to dump at the next Sync.
func (r *matchRules) desync(m *wire.Desync) { r.desyncs = append(r.desyncs, *m) }

// end takes the match's end.
func (r *matchRules) end(m *wire.End) { r.ended, r.endTick, r.endReason = true, m.Tick, m.Reason }

// over reports whether the match has ended and tick, the last simulated,
// is its last.
func (r *matchRules) over(tick uint64) bool { return r.ended && tick >= r.endTick }
