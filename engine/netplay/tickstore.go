package netplay

import (
	"fmt"
	"slices"

	"github.com/nebulaengine/nebula/engine/netplay/wire"
)

// tickStore is a client's confirmed-tick store: the confirmed ticks
// received and not yet simulated, in order, and the snapshot to restore
// before them (a late join's start, or a resynchronisation). It keeps
// nothing else; the Client guards it with its mutex.
//
//srccheck:wrapped by Client.receive, then Client.fail, as "netplay: client: ..."
type tickStore struct {
	ring    []wire.ConfirmedTick // the ticks not yet simulated, from head
	head, n int
	next    uint64 // the tick the next confirmed tick received must be
	// snap is a snapshot of tick snapTick to restore before the next
	// tick (nil: none).
	snap     []byte
	snapTick uint64
}

// len returns how many confirmed ticks wait to be simulated.
func (s *tickStore) len() int { return s.n }

// received returns the last tick received (0: none yet).
func (s *tickStore) received() uint64 { return s.next - 1 }

// peekTick returns the tick of the oldest confirmed tick held; only when
// len is above 0.
func (s *tickStore) peekTick() uint64 { return s.next - uint64(s.n) }

// add appends the confirmed ticks of m, which must start at the tick
// after the last one received.
func (s *tickStore) add(m *wire.Confirmed) error {
	if m.First != s.next {
		return fmt.Errorf("confirmed ticks from %d, expected %d", m.First, s.next)
	}
	for i := range m.Ticks {
		s.push(&m.Ticks[i])
	}
	s.next = m.First + uint64(len(m.Ticks))
	return nil
}

// push appends a deep copy of t, growing the ring when full.
func (s *tickStore) push(t *wire.ConfirmedTick) {
	if s.n == len(s.ring) {
		grown := make([]wire.ConfirmedTick, max(2*len(s.ring), 64))
		for i := range s.n {
			grown[i] = s.ring[(s.head+i)%len(s.ring)]
		}
		s.ring, s.head = grown, 0
	}
	copyTick(&s.ring[(s.head+s.n)%len(s.ring)], t)
	s.n++
}

// take copies the oldest confirmed tick held into dst and drops it.
func (s *tickStore) take(dst *wire.ConfirmedTick) {
	copyTick(dst, &s.ring[s.head])
	s.pop()
}

func (s *tickStore) pop() {
	s.head = (s.head + 1) % len(s.ring)
	s.n--
}

// setSnapshot keeps a snapshot of tick, dropping the confirmed ticks it
// covers; the next tick received must follow it. A snapshot older than a
// tick already held past it is an error.
func (s *tickStore) setSnapshot(tick uint64, data []byte) error {
	for s.n > 0 && s.peekTick() <= tick {
		s.pop()
	}
	if s.n > 0 {
		return fmt.Errorf("a snapshot of tick %d, with later ticks already confirmed", tick)
	}
	s.snap, s.snapTick = slices.Clone(data), tick
	s.next = tick + 1
	return nil
}

// takeSnapshot returns the snapshot to restore, and its tick, once; nil
// when there is none.
func (s *tickStore) takeSnapshot() ([]byte, uint64) {
	snap := s.snap
	s.snap = nil
	return snap, s.snapTick
}
