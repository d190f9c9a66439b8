package engine

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// logHook writes down every call it gets, named.
type logHook struct {
	name string
	log  *[]string
}

func (h *logHook) PreTick() { *h.log = append(*h.log, h.name+" pre") }
func (h *logHook) BeginTick(t *TickInfo) {
	*h.log = append(*h.log, fmt.Sprintf("%s begin %d", h.name, t.Tick))
}
func (h *logHook) JobApplied(uint64, JobID, []byte) {}
func (h *logHook) EndTick(tick uint64, _ *World) {
	*h.log = append(*h.log, fmt.Sprintf("%s end %d", h.name, tick))
}

// restoreLog is a logHook that is told of restores.
type restoreLog struct{ logHook }

func (h *restoreLog) Restored(_ []byte, w *World, before uint64) {
	*h.log = append(*h.log, fmt.Sprintf("%s restored %d", h.name, w.Tick()))
}

// Hooks are called in the order they were added, each call in turn; a
// removed hook is called no more, and removing it twice is harmless.
func TestTickHooksRunInTheOrderAdded(t *testing.T) {
	e := newEngine(t)
	var log []string
	removeA, err := e.AddTickHook(&logHook{"a", &log})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.AddTickHook(&logHook{"b", &log}); err != nil {
		t.Fatal(err)
	}
	e.StepTick(TickTime(1, 60))
	want := []string{"a pre", "b pre", "a begin 1", "b begin 1", "a end 1", "b end 1"}
	if !slices.Equal(log, want) {
		t.Errorf("calls %q, want %q", log, want)
	}
	removeA()
	removeA()
	log = log[:0]
	e.StepTick(TickTime(2, 60))
	if want := []string{"b pre", "b begin 2", "b end 2"}; !slices.Equal(log, want) {
		t.Errorf("after removing a: calls %q, want %q", log, want)
	}
	if n := len(e.TickHooks()); n != 1 {
		t.Errorf("%d hooks left, want 1", n)
	}
}

// At most one hook steers the ticks: a second PlayerOwner or TickGate is
// refused with ErrTwoSteeringHooks, naming both, and changes nothing;
// once the first is removed, another may steer. Observers (a recorder)
// may sit beside the one that steers, and the same hook is not added
// twice.
func TestOnlyOneHookSteers(t *testing.T) {
	e := newEngine(t)
	owner := &ownerHook{}
	remove, err := e.AddTickHook(owner)
	if err != nil {
		t.Fatal(err)
	}
	for _, second := range []TickHook{&ownerHook{}, &gateHook{ready: 10}} {
		_, err := e.AddTickHook(second)
		if !errors.Is(err, ErrTwoSteeringHooks) {
			t.Fatalf("a second steering hook %T: error %v, want ErrTwoSteeringHooks", second, err)
		}
		if msg := err.Error(); !strings.Contains(msg, fmt.Sprintf("%T", second)) || !strings.Contains(msg, "*engine.ownerHook") {
			t.Errorf("the error %q does not name both hooks", msg)
		}
	}
	if _, err := e.AddTickHook(owner); err == nil {
		t.Error("the same hook was added twice")
	}
	var log []string
	if _, err := e.AddTickHook(&logHook{"observer", &log}); err != nil {
		t.Fatalf("an observer beside the steering hook: %v", err)
	}
	if n := len(e.TickHooks()); n != 2 {
		t.Fatalf("%d hooks, want 2 (the refused ones are not added)", n)
	}
	remove()
	gate := &gateHook{ready: 1}
	if _, err := e.AddTickHook(gate); err != nil {
		t.Fatalf("a gate once the owner is removed: %v", err)
	}
	if !e.StepTick(TickTime(1, 60)) || e.StepTick(TickTime(2, 60)) {
		t.Errorf("the gate did not hold tick 2 (asked %v)", gate.asked)
	}
	// Without an owner, player 0 plays with the local input again.
	if !e.World.Players().Has(0) {
		t.Error("player 0 did not join at tick 1 once no hook owns the players")
	}
	if _, err := e.AddTickHook(nil); err == nil {
		t.Error("a nil hook was added")
	}
}

// A RestoreHook hears of every Restore, after it, with the restored
// world.
func TestRestoreHookHearsOfRestores(t *testing.T) {
	e := newEngine(t)
	var log []string
	if _, err := e.AddTickHook(&restoreLog{logHook{"r", &log}}); err != nil {
		t.Fatal(err)
	}
	for k := uint64(1); k <= 3; k++ {
		e.StepTick(TickTime(k, 60))
	}
	snap := e.Snapshot()
	e.StepTick(TickTime(4, 60))
	log = log[:0]
	if err := e.Restore(snap); err != nil {
		t.Fatal(err)
	}
	if want := []string{"r restored 3"}; !slices.Equal(log, want) {
		t.Errorf("calls %q, want %q", log, want)
	}
	if err := e.Restore([]byte("not a snapshot")); err == nil || len(log) != 1 {
		t.Errorf("a failed restore: error %v, calls %q; want an error and no call", err, log)
	}
}

// AdvanceTick runs a tick with the players given, calling no hook.
func TestAdvanceTickGivesThePlayers(t *testing.T) {
	e := newEngine(t)
	var log []string
	if _, err := e.AddTickHook(&logHook{"h", &log}); err != nil {
		t.Fatal(err)
	}
	var p Players
	if err := p.Join(3); err != nil {
		t.Fatal(err)
	}
	if err := p.SetInput(3, cursor(5)); err != nil {
		t.Fatal(err)
	}
	if !e.AdvanceTick(time.Second/60, &p) {
		t.Fatal(e.Err())
	}
	w := e.World.Players()
	if w.Len() != 1 || !w.Has(3) || *w.Input(3) != cursor(5) || !slices.Equal(w.Joined(), []PlayerID{3}) {
		t.Errorf("tick 1 ran with %d players (3 in: %v), joined %v; want player 3 alone, joined, with its input", w.Len(), w.Has(3), w.Joined())
	}
	if len(log) != 0 {
		t.Errorf("the hook was called: %q", log)
	}
	if hooks := e.TickHooks(); len(hooks) != 1 {
		t.Errorf("%d hooks after AdvanceTick, want the 1 there was", len(hooks))
	}
}
