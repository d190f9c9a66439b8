package serverops

import (
	"fmt"
	"sync"
	"time"

	"github.com/nebulaengine/nebula/engine/netplay"
)

// Health says whether a match server is healthy, for /healthz: healthy
// while it waits for its players and while its match confirms ticks;
// unhealthy once no tick has been confirmed for StallAfter in a running
// match (a stalled match loop), and once the match is ending.
type Health struct {
	stallAfter time.Duration
	now        func() time.Time

	mu       sync.Mutex
	started  bool
	tick     uint64
	lastTick time.Time
	ending   bool
}

// NewHealth returns the health of a server whose match is stalled after
// stallAfter without a tick.
func NewHealth(stallAfter time.Duration) *Health {
	return &Health{stallAfter: stallAfter, now: time.Now}
}

// Trace returns the server trace that tells h of every tick
// (netplay.ServerConfig.Trace).
func (h *Health) Trace() *netplay.ServerTrace {
	return &netplay.ServerTrace{TickConfirmed: func(tick uint64, _ time.Duration) { h.Ticked(tick) }}
}

// Ticked records that tick was confirmed now.
func (h *Health) Ticked(tick uint64) {
	now := h.now()
	h.mu.Lock()
	h.started, h.tick, h.lastTick = true, tick, now
	h.mu.Unlock()
}

// Ending records that the match is ending (its last tick, a signal):
// from now on the server is unhealthy.
func (h *Health) Ending() {
	h.mu.Lock()
	h.ending = true
	h.mu.Unlock()
}

// Check reports whether the server is healthy, and in one line why.
func (h *Health) Check() (ok bool, why string) {
	now := h.now()
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case h.ending:
		return false, fmt.Sprintf("ending: the match is over or ending (last tick %d)", h.tick)
	case !h.started:
		return true, "ok: waiting for the players"
	case now.Sub(h.lastTick) > h.stallAfter:
		return false, fmt.Sprintf("stalled: no tick confirmed for %v (last tick %d)", now.Sub(h.lastTick).Round(time.Millisecond), h.tick)
	}
	return true, fmt.Sprintf("ok: tick %d", h.tick)
}
