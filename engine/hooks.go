package engine

import (
	"fmt"
	"slices"
)

// tickHooks is an engine's list of tick hooks, in the order they were
// added, with the optional roles of each found once, when it is added.
// Every slice is replaced, never changed in place, so a hook may add or
// remove hooks from its own call while the engine walks the old lists.
type tickHooks struct {
	list       []TickHook
	gate       TickGate // the hook that is a TickGate, if any
	steering   TickHook // the hook that steers the ticks (gate or owner), if any
	owns       bool     // a hook owns the players
	starters   []FrameStarter
	correctors []RenderCorrector
	restorers  []RestoreHook
}

// steers reports whether h steers the ticks, and whether it owns the
// players.
func steers(h TickHook) (steer, owns bool) {
	_, gate := h.(TickGate)
	o, ok := h.(PlayerOwner)
	owns = ok && o.OwnsPlayers()
	return gate || owns, owns
}

func (hs *tickHooks) add(h TickHook) error {
	if slices.Contains(hs.list, h) {
		return fmt.Errorf("engine: AddTickHook: the hook (%T) is added already", h)
	}
	steer, owns := steers(h)
	if steer && hs.steering != nil {
		return fmt.Errorf("%w: %T cannot be added beside %T", ErrTwoSteeringHooks, h, hs.steering)
	}
	hs.list = append(slices.Clip(hs.list), h)
	if steer {
		hs.steering, hs.owns = h, owns
		hs.gate, _ = h.(TickGate)
	}
	if s, ok := h.(FrameStarter); ok {
		hs.starters = append(slices.Clip(hs.starters), s)
	}
	if c, ok := h.(RenderCorrector); ok {
		hs.correctors = append(slices.Clip(hs.correctors), c)
	}
	if r, ok := h.(RestoreHook); ok {
		hs.restorers = append(slices.Clip(hs.restorers), r)
	}
	return nil
}

func (hs *tickHooks) remove(h TickHook) {
	hs.list = without(hs.list, h)
	if hs.steering == h {
		hs.steering, hs.gate, hs.owns = nil, nil, false
	}
	if s, ok := h.(FrameStarter); ok {
		hs.starters = without(hs.starters, s)
	}
	if c, ok := h.(RenderCorrector); ok {
		hs.correctors = without(hs.correctors, c)
	}
	if r, ok := h.(RestoreHook); ok {
		hs.restorers = without(hs.restorers, r)
	}
}

// without returns a new slice of s without v (an interface value compared
// by identity).
func without[T comparable](s []T, v T) []T {
	i := slices.Index(s, v)
	if i < 0 {
		return s
	}
	return slices.Concat(s[:i], s[i+1:])
}

func (hs *tickHooks) preTick() {
	for _, h := range hs.list {
		h.PreTick()
	}
}

func (hs *tickHooks) beginTick(t *TickInfo) {
	for _, h := range hs.list {
		h.BeginTick(t)
	}
}

func (hs *tickHooks) jobApplied(tick uint64, id JobID, result []byte) {
	for _, h := range hs.list {
		h.JobApplied(tick, id, result)
	}
}

func (hs *tickHooks) endTick(tick uint64, w *World) {
	for _, h := range hs.list {
		h.EndTick(tick, w)
	}
}
