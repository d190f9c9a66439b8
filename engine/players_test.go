package engine

import (
	"github.com/nebulaengine/nebula/engine/geom"

	"math"

	"github.com/nebulaengine/nebula/engine/input"

	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
)

// testHook is a TickHook whose BeginTick runs begin.
type testHook struct {
	begin func(t *TickInfo)
	pre   int // PreTick calls
}

func (h *testHook) PreTick() { h.pre++ }
func (h *testHook) BeginTick(t *TickInfo) {
	if h.begin != nil {
		h.begin(t)
	}
}
func (h *testHook) JobApplied(uint64, JobID, []byte) {}
func (h *testHook) EndTick(uint64, *World)           {}

// ownerHook is a testHook that owns the players.
type ownerHook struct{ testHook }

func (ownerHook) OwnsPlayers() bool { return true }

// gateHook is a testHook that lets ticks up to ready run.
type gateHook struct {
	testHook
	ready uint64
	asked []uint64
}

func (h *gateHook) TickReady(tick uint64) bool {
	h.asked = append(h.asked, tick)
	return tick <= h.ready
}

// cursor returns an input whose cursor is at x, 0: inputs told apart.
func cursor(x float64) input.Sample {
	var w [input.SampleWords]uint64
	w[3*keyWords+1] = math.Float64bits(x)
	var s input.Sample
	if err := s.SetWords(&w); err != nil {
		panic(err)
	}
	return s
}

// must fails the test on err.
func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// describePlayers writes what a fixed system sees of the players: each
// player's ID and input (its cursor X), who joined and left, and
// FixedContext.Input's cursor X.
func describePlayers(c *FixedContext) string {
	var b strings.Builder
	fmt.Fprintf(&b, "tick %d: players [", c.Tick)
	for i := range c.Players.Len() {
		id, in := c.Players.At(i)
		x, _ := in.Cursor()
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%d:%v", id, x)
	}
	x, _ := c.Input.Cursor()
	fmt.Fprintf(&b, "] joined %v left %v input %v", c.Players.Joined(), c.Players.Left(), x)
	return b.String()
}

// A fixed system sees, tick by tick, exactly the joins, leaves and inputs
// the hook made in BeginTick, on top of the single-player default (player
// 0 joins at tick 1 with the local input, and gets it every tick).
func TestPlayersTickByTick(t *testing.T) {
	e := newEngine(t)
	e.SetInputScript(func(tick uint64, due time.Duration, in *input.Queue) {
		in.Push(input.Event{Time: due, Kind: input.CursorMove, X: float64(tick)}) // the local input's cursor is at the tick
	})
	h := &testHook{begin: func(ti *TickInfo) {
		p := ti.Players
		switch ti.Tick {
		case 1:
			must(t, p.Join(3))
			must(t, p.SetInput(3, cursor(31)))
		case 3:
			must(t, p.Join(1))
			must(t, p.Leave(3))
		case 4:
			must(t, p.Join(3))
			must(t, p.SetInput(1, cursor(14)))
		case 5:
			must(t, p.Leave(0))
			ti.Input = cursor(500) // player 0 is out: ignored
		case 6:
			must(t, p.Join(0)) // with the local input
		case 7:
			ti.Input = cursor(700) // player 0 follows
		case 8:
			must(t, p.SetInput(0, cursor(800))) // Input left alone: SetInput holds
		case 9:
			must(t, p.Join(7))
			must(t, p.Join(2))
			must(t, p.Leave(3))
			must(t, p.Leave(1))
		}
	}}
	e.AddTickHook(h)
	var got []string
	e.AddSystem(StageScripts, "look", func(c *FixedContext) {
		if c.Players != c.World.Players() {
			t.Error("FixedContext.Players is not World.Players")
		}
		got = append(got, describePlayers(c))
	})
	stepN(t, e, 10, nil)
	want := []string{
		"tick 1: players [0:1 3:31] joined [0 3] left [] input 1",
		"tick 2: players [0:2 3:31] joined [] left [] input 2",
		"tick 3: players [0:3 1:0] joined [1] left [3] input 3",
		"tick 4: players [0:4 1:14 3:0] joined [3] left [] input 4",
		"tick 5: players [1:14 3:0] joined [] left [0] input 0",
		"tick 6: players [0:6 1:14 3:0] joined [0] left [] input 6",
		"tick 7: players [0:700 1:14 3:0] joined [] left [] input 700",
		"tick 8: players [0:800 1:14 3:0] joined [] left [] input 800",
		"tick 9: players [0:9 2:0 7:0] joined [2 7] left [1 3] input 9",
		"tick 10: players [0:10 2:0 7:0] joined [] left [] input 10",
	}
	if !slices.Equal(got, want) {
		t.Errorf("the fixed system saw\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	p := e.World.Players()
	if !p.Has(7) || p.Has(1) || p.Input(1) != nil || p.Input(7) == nil || p.Len() != 3 {
		t.Errorf("after tick 10: Has(7) %v, Has(1) %v, Input(1) %v, Len %d", p.Has(7), p.Has(1), p.Input(1), p.Len())
	}
}

// With no hook at all, a single-player game is player 0 from tick 1 and
// FixedContext.Input is its local input, as before players existed.
func TestPlayersSinglePlayerDefault(t *testing.T) {
	e := newEngine(t)
	e.SetInputScript(func(tick uint64, due time.Duration, in *input.Queue) {
		if tick == 2 {
			in.Push(input.Event{Time: due, Kind: input.KeyDown, Key: input.KeySpace})
		}
	})
	var got []string
	e.AddSystem(StageScripts, "look", func(c *FixedContext) {
		got = append(got, fmt.Sprintf("%d %v %v %v %v", c.Tick, c.Players.Joined(), c.Input.JustPressed(input.KeySpace), c.Players.Input(0).Down(input.KeySpace), c.Players.Len()))
	})
	stepN(t, e, 3, nil)
	if want := []string{"1 [0] false false 1", "2 [] true true 1", "3 [] false true 1"}; !slices.Equal(got, want) {
		t.Errorf("saw %q, want %q", got, want)
	}
}

// Refused changes name the player and why, and change nothing: out of
// range, already in, not in, joining and leaving in one tick, and any
// change outside the start of a tick.
func TestPlayersRefusals(t *testing.T) {
	e := newEngine(t)
	var errs []string
	note := func(err error) {
		if err == nil {
			errs = append(errs, "<nil>")
			return
		}
		errs = append(errs, err.Error())
	}
	e.AddTickHook(&testHook{begin: func(ti *TickInfo) {
		p := ti.Players
		switch ti.Tick {
		case 1:
			note(p.Join(0))
			note(p.Leave(0))
			note(p.Join(MaxPlayers))
			note(p.SetInput(MaxPlayers+10, input.Sample{}))
			note(p.Leave(4))
			note(p.SetInput(4, cursor(1)))
		case 2:
			note(p.Leave(0))
			note(p.Join(0))
			note(p.SetInput(0, cursor(1)))
		}
	}})
	e.AddSystem(StageScripts, "try", func(c *FixedContext) {
		if c.Tick == 2 {
			note(c.Players.Join(9))
		}
	})
	stepN(t, e, 2, nil)
	note(e.World.Players().SetInput(0, cursor(2)))
	want := []string{
		"engine: player 0 cannot join: already in the match",
		"engine: player 0 cannot leave: joined the match at this tick (a player cannot join and leave in one tick)",
		"engine: player 256 cannot join: out of range (players are 0 to 255)",
		"engine: player 266 cannot get an input: out of range (players are 0 to 255)",
		"engine: player 4 cannot leave: not in the match",
		"engine: player 4 cannot get an input: not in the match",
		"<nil>",
		"engine: player 0 cannot join: left the match at this tick (a player cannot leave and join in one tick)",
		"engine: player 0 cannot get an input: not in the match",
		"engine: player 9 cannot join now: players join, leave and get inputs only at the start of a tick, in TickHook.BeginTick",
		"engine: player 0 cannot get an input now: players join, leave and get inputs only at the start of a tick, in TickHook.BeginTick",
	}
	if !slices.Equal(errs, want) {
		t.Errorf("errors\n%s\nwant\n%s", strings.Join(errs, "\n"), strings.Join(want, "\n"))
	}
	p := e.World.Players()
	if p.Len() != 0 || !slices.Equal(p.Left(), []PlayerID{0}) || len(p.Joined()) != 0 {
		t.Errorf("after the refusals: %d players, left %v, joined %v; want none, [0], []", p.Len(), p.Left(), p.Joined())
	}
}

// The zero Players is an empty match that accepts changes (for tests and
// tools that drive a hook by hand).
func TestPlayersZeroValue(t *testing.T) {
	var p Players
	must(t, p.Join(5))
	must(t, p.Join(2))
	must(t, p.SetInput(5, cursor(5)))
	if id, in := p.At(1); p.Len() != 2 || id != 5 || *in != cursor(5) || !slices.Equal(p.Joined(), []PlayerID{2, 5}) {
		t.Errorf("Len %d, At(1) %d %v, Joined %v", p.Len(), id, in, p.Joined())
	}
}

// A hook that owns the players gets no default: nobody joins at tick 1,
// player 0 does not get the local input, and every input carries over
// until the hook sets it.
func TestPlayersOwnedByTheHook(t *testing.T) {
	e := newEngine(t)
	e.SetInputScript(func(tick uint64, due time.Duration, in *input.Queue) {
		in.Push(input.Event{Time: due, Kind: input.CursorMove, X: float64(tick)})
	})
	h := &ownerHook{testHook{begin: func(ti *TickInfo) {
		switch ti.Tick {
		case 2:
			must(t, ti.Players.Join(0))
			must(t, ti.Players.Join(1))
			must(t, ti.Players.SetInput(1, cursor(12)))
		case 4:
			must(t, ti.Players.SetInput(0, cursor(40)))
		}
	}}}
	e.AddTickHook(h)
	var got []string
	e.AddSystem(StageScripts, "look", func(c *FixedContext) { got = append(got, describePlayers(c)) })
	stepN(t, e, 5, nil)
	want := []string{
		"tick 1: players [] joined [] left [] input 0",
		"tick 2: players [0:0 1:12] joined [0 1] left [] input 0",
		"tick 3: players [0:0 1:12] joined [] left [] input 0",
		"tick 4: players [0:40 1:12] joined [] left [] input 40",
		"tick 5: players [0:40 1:12] joined [] left [] input 40",
	}
	if !slices.Equal(got, want) {
		t.Errorf("the fixed system saw\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// runMembers runs a fresh engine 6 ticks with a hook that joins the given
// players at tick 2, each with its input, and returns the hash.
func runMembers(t *testing.T, inputs map[PlayerID]float64) uint64 {
	e := newEngine(t)
	e.World.Spawn(geom.NewTransform(mgl32.Vec3{1, 2, 3}), Interpolate)
	e.AddTickHook(&testHook{begin: func(ti *TickInfo) {
		if ti.Tick != 2 {
			return
		}
		for id := range PlayerID(MaxPlayers) {
			if x, ok := inputs[id]; ok {
				must(t, ti.Players.Join(id))
				must(t, ti.Players.SetInput(id, cursor(x)))
			}
		}
	}})
	stepN(t, e, 6, nil)
	return e.World.Hash()
}

// The hash covers who is in the match, not the inputs (which the systems
// here do not read).
func TestPlayersHash(t *testing.T) {
	base := runMembers(t, nil)
	one := runMembers(t, map[PlayerID]float64{1: 0})
	if base == one {
		t.Error("joining player 1 does not change the hash")
	}
	if other := runMembers(t, map[PlayerID]float64{2: 0}); other == one || other == base {
		t.Error("player 2 hashes as player 1, or as nobody")
	}
	if again := runMembers(t, map[PlayerID]float64{1: 9}); again != one {
		t.Error("player 1's input changes the hash; only membership should")
	}
}

// playersGame is an engine with a hook that plays a match of 8 players:
// 1 to 7 join at tick 1 (0 by default), each tick every player gets an
// input of its own, player 3 leaves at tick 20 and player 9 joins at 25;
// a fixed system moves one entity per player by its input.
func playersGame(t testing.TB) *Engine {
	e := newEngine(t)
	for i := range 10 {
		e.World.Spawn(geom.NewTransform(mgl32.Vec3{float32(i), 0, 0}), Interpolate)
	}
	inputs := make([]input.Sample, 10)
	e.AddTickHook(&testHook{begin: func(ti *TickInfo) {
		p := ti.Players
		switch ti.Tick {
		case 1:
			for id := PlayerID(1); id < 8; id++ {
				must(t, p.Join(id))
			}
		case 20:
			must(t, p.Leave(3))
		case 25:
			must(t, p.Join(9))
		}
		for i := range p.Len() {
			id, _ := p.At(i)
			if id == 0 {
				continue // the local input
			}
			inputs[id] = cursor(float64(ti.Tick%7) + float64(id))
			must(t, p.SetInput(id, inputs[id]))
		}
	}})
	e.AddSystem(StageScripts, "move", func(c *FixedContext) {
		b := c.World.Bodies()
		for i := range c.Players.Len() {
			id, in := c.Players.At(i)
			x, _ := in.Cursor()
			b.Pos[id][1] = float32(float32(x)*c.DT) + b.Pos[id][1] // rounded: the same bits on arm64 (testdata holds them)
		}
	})
	return e
}

// SaveState and LoadState, and Snapshot and Restore, bring back who plays
// and every player's latest input (the next tick starts from them), and
// the run continues with the same hashes.
func TestPlayersSaveLoadAndRestore(t *testing.T) {
	want := map[uint64]uint64{}
	stepN(t, playersGame(t), 40, want)

	e := playersGame(t)
	stepN(t, e, 22, nil)
	var st State
	e.SaveState(&st)
	snap := e.Snapshot()
	type seen struct {
		ids    []PlayerID
		inputs []input.Sample
	}
	look := func() seen {
		var s seen
		p := e.World.Players()
		for i := range p.Len() {
			id, in := p.At(i)
			s.ids, s.inputs = append(s.ids, id), append(s.inputs, *in)
		}
		return s
	}
	at22 := look()
	if !slices.Equal(at22.ids, []PlayerID{0, 1, 2, 4, 5, 6, 7}) {
		t.Fatalf("players at tick 22: %v", at22.ids)
	}
	check := func(how string) {
		t.Helper()
		if got := look(); !slices.Equal(got.ids, at22.ids) || !slices.Equal(got.inputs, at22.inputs) {
			t.Fatalf("%s: players %v inputs %v, want %v %v", how, got.ids, got.inputs, at22.ids, at22.inputs)
		}
		if p := e.World.Players(); len(p.Joined()) != 0 || len(p.Left()) != 0 {
			t.Fatalf("%s: joined %v left %v, want none between ticks", how, p.Joined(), p.Left())
		}
		got := map[uint64]uint64{}
		stepN(t, e, 18, got)
		for tick := uint64(23); tick <= 40; tick++ {
			if got[tick] != want[tick] {
				t.Fatalf("%s: tick %d hash %016x, uninterrupted %016x", how, tick, got[tick], want[tick])
			}
		}
	}
	stepN(t, e, 10, nil) // player 9 joined at 25
	e.LoadState(&st)
	check("LoadState")
	must(t, e.Restore(snap))
	check("Restore")
	if e.World.Players().Join(3) == nil {
		t.Error("the world's players accept a join between ticks after a Restore")
	}
}

// Restore refuses a snapshot whose players are out of range, not
// ascending, too many or cut short, naming the field, and changes nothing.
func TestRestoreRefusesBadPlayers(t *testing.T) {
	e := playersGame(t)
	stepN(t, e, 3, nil)
	snap := e.Snapshot()
	// The players section ends the world's part: find it from the input
	// part's size, which follows it.
	inputBytes := len(e.Input.AppendState(nil)) + len(e.Jobs.appendState(nil))
	players := len(snap) - inputBytes - (2 + 8*(2+8*input.SampleWords))
	if got := binary.LittleEndian.Uint16(snap[players:]); got != 8 {
		t.Fatalf("the players section says %d players, want 8 (the test's offsets are wrong)", got)
	}
	rec := 2 + 8*input.SampleWords
	for _, tc := range []struct {
		name   string
		change func(b []byte)
		field  string
		msg    string
	}{
		{"too many", func(b []byte) { binary.LittleEndian.PutUint16(b[players:], MaxPlayers+1) }, "players", "257 players, at most 256"},
		{"cut short", func(b []byte) { binary.LittleEndian.PutUint16(b[players:], 200) }, "players", "200 players of"},
		{"out of range", func(b []byte) { binary.LittleEndian.PutUint16(b[players+2+7*rec:], 300) }, "player id", "player 300 is out of range"},
		{"not ascending", func(b []byte) { binary.LittleEndian.PutUint16(b[players+2+2*rec:], 1) }, "player id", "player 1 after player 1: the players are not ascending"},
		{"bad key bits", func(b []byte) { b[players+2+rec+2+8*(keyWords-1)+7] = 0xff }, "player input", fmt.Sprintf("player 1: input word %d has bits for keys beyond", keyWords-1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := slices.Clone(snap)
			tc.change(bad)
			before := e.World.Hash()
			err := e.Restore(bad)
			var se *SnapshotError
			if !errors.As(err, &se) || se.Field != tc.field || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("Restore: %v; want field %s, %q", err, tc.field, tc.msg)
			}
			if e.World.Hash() != before || e.World.Players().Len() != 8 {
				t.Error("a refused Restore changed the world")
			}
		})
	}
}

// A tick of an 8-player match allocates nothing once warm, nor do
// SaveState and LoadState of it.
func TestPlayersTickDoesNotAllocate(t *testing.T) {
	e := playersGame(t)
	stepN(t, e, 10, nil)
	if n := e.World.Players().Len(); n != 8 {
		t.Fatalf("%d players, want 8", n)
	}
	tick := func() {
		if !e.StepTick(time.Duration(e.World.Tick()+1) * time.Second / 60) {
			t.Fatal(e.Err())
		}
	}
	if a := testing.AllocsPerRun(5, tick); a != 0 {
		t.Errorf("a tick with 8 players allocates %v times, want 0", a)
	}
	var now time.Duration
	frame := func() {
		now += 7 * time.Millisecond
		e.Frame(now)
	}
	frame()
	if a := testing.AllocsPerRun(5, frame); a != 0 {
		t.Errorf("a frame with 8 players allocates %v times, want 0", a)
	}
	var st State
	e.SaveState(&st)
	e.LoadState(&st)
	if a := testing.AllocsPerRun(100, func() {
		e.SaveState(&st)
		e.LoadState(&st)
	}); a != 0 {
		t.Errorf("SaveState and LoadState with 8 players allocate %v times, want 0", a)
	}
}

// A TickGate holds ticks: Frame runs no tick that is not ready (no hook
// call, no system) and runs it later with the same number; StepTick
// returns false.
func TestTickGate(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Loop.TickRate = 50 // 20 ms ticks
	e, err := New(cfg)
	must(t, err)
	h := &gateHook{ready: 2}
	e.AddTickHook(h)
	var ran []uint64
	e.AddSystem(StageScripts, "count", func(c *FixedContext) { ran = append(ran, c.Tick) })
	var alpha float32
	e.AddUpdate("alpha", func(c *FrameContext) { alpha = c.Alpha })

	e.Frame(0)
	for i := range 4 {
		e.Frame(time.Duration(i+1) * 20 * time.Millisecond)
	}
	if !slices.Equal(ran, []uint64{1, 2}) || e.World.Tick() != 2 || e.Loop.Ticks() != 2 || h.pre != 2 || alpha != 1 {
		t.Fatalf("ready up to 2: ran %v, world tick %d, loop ticks %d, PreTick %d times, alpha %v; want [1 2], 2, 2, 2, 1",
			ran, e.World.Tick(), e.Loop.Ticks(), h.pre, alpha)
	}
	if !slices.Equal(h.asked, []uint64{1, 2, 3, 3}) || e.Loop.Stats().HeldFrames != 2 {
		t.Fatalf("asked %v, held frames %d; want [1 2 3 3] and 2", h.asked, e.Loop.Stats().HeldFrames)
	}
	h.ready = 10
	if n := e.Frame(100 * time.Millisecond); n != 3 {
		t.Fatalf("once ready the frame ran %d ticks, want the 3 owed", n)
	}
	if !slices.Equal(ran, []uint64{1, 2, 3, 4, 5}) || e.Loop.Ticks() != 5 || e.Loop.SimTime() != 100*time.Millisecond {
		t.Fatalf("ran %v, loop ticks %d at %v; want [1 .. 5], 5 at 100ms", ran, e.Loop.Ticks(), e.Loop.SimTime())
	}

	h.ready = 5
	if e.StepTick(0) || e.Err() != nil || e.World.Tick() != 5 {
		t.Errorf("StepTick of a tick not ready ran (world tick %d, err %v)", e.World.Tick(), e.Err())
	}
	h.ready = 6
	if !e.StepTick(0) || e.World.Tick() != 6 {
		t.Errorf("StepTick of a ready tick: world tick %d", e.World.Tick())
	}
}

// keyWords is the number of 64-bit words of one key set in a Sample's
// binary form.
const keyWords = (int(input.KeyCount) + 63) / 64
