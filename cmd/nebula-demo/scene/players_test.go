package scene

import (
	"slices"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/input"
)

// held returns an input sample with keys held down (not just pressed),
// and one with Space just pressed besides.
func held(keys ...input.Key) (hold, tap input.Sample) {
	var in input.Queue
	for _, k := range keys {
		in.Push(input.Event{Time: 0, Kind: input.KeyDown, Key: k})
	}
	in.Advance(0)
	hold = in.Advance(1)
	in.Push(input.Event{Time: 2, Kind: input.KeyDown, Key: input.KeySpace})
	tap = in.Advance(2)
	return hold, tap
}

// matchDirs is the direction each player of the test match holds, as an
// arrow key and the unit vector the scene moves its cube along.
var matchDirs = [...]struct {
	key input.Key
	dir mgl32.Vec3
}{
	{input.KeyArrowRight, mgl32.Vec3{1, 0, 0}},
	{input.KeyArrowLeft, mgl32.Vec3{-1, 0, 0}},
	{input.KeyArrowUp, mgl32.Vec3{0, 0, -1}},
	{input.KeyArrowDown, mgl32.Vec3{0, 0, 1}},
}

// Ticks of the test match: players 0, 1 and 2 join at matchStart, 1
// leaves at matchLeave, 3 joins at matchJoin.
const (
	matchStart = 1
	matchLeave = 100
	matchJoin  = 150
	matchEnd   = 400
)

// matchHook is a TickHook and PlayerOwner that plays the test match: each
// player holds its arrow key of matchDirs, and taps Space at a tick of its
// own every 60 ticks. It is a pure function of the tick, so a run restored
// from a snapshot sees the same match.
type matchHook struct {
	t          testing.TB
	hold, taps [len(matchDirs)]input.Sample
}

func newMatchHook(t testing.TB) *matchHook {
	h := &matchHook{t: t}
	for i, d := range matchDirs {
		h.hold[i], h.taps[i] = held(d.key)
	}
	return h
}

func (h *matchHook) OwnsPlayers() bool { return true }
func (h *matchHook) PreTick()          {}
func (h *matchHook) BeginTick(ti *engine.TickInfo) {
	p := ti.Players
	must := func(err error) {
		if err != nil {
			h.t.Fatalf("tick %d: %v", ti.Tick, err)
		}
	}
	switch ti.Tick {
	case matchStart:
		must(p.Join(0))
		must(p.Join(1))
		must(p.Join(2))
	case matchLeave:
		must(p.Leave(1))
	case matchJoin:
		must(p.Join(3))
	}
	for i := range p.Len() {
		id, _ := p.At(i)
		in := h.hold[id]
		if ti.Tick%60 == uint64(7*id+3) {
			in = h.taps[id]
		}
		must(p.SetInput(id, in))
	}
}
func (h *matchHook) JobApplied(uint64, engine.JobID, []byte) {}
func (h *matchHook) EndTick(uint64, *engine.World)           {}

// newMatch returns an engine with the scene (cubes bouncing cubes) and the
// test match's hook.
func newMatch(t testing.TB, cubes int) (*engine.Engine, *Scene) {
	t.Helper()
	e, err := engine.New(engine.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	s := Setup(e, cubes)
	e.AddTickHook(newMatchHook(t))
	return e, s
}

// stepTo runs e's ticks up to tick n, and after each the check, if any.
func stepTo(t testing.TB, e *engine.Engine, n uint64, check func(tick uint64)) {
	t.Helper()
	for e.World.Tick() < n {
		tick := e.World.Tick() + 1
		if !e.StepTick(time.Duration(tick) * time.Second / 60) {
			t.Fatalf("tick %d did not run: %v", tick, e.Err())
		}
		if check != nil {
			check(tick)
		}
	}
}

// owners returns the owners of the live player cubes, in slot order.
func owners(s *Scene) []engine.PlayerID {
	var ids []engine.PlayerID
	for _, id := range s.Owner.All() {
		ids = append(ids, id)
	}
	return ids
}

// In a match, a cube exists for exactly the players in the match at every
// tick; a player's cube appears at its spot in its colour on the tick it
// joins, moves in its own input's direction, and is gone from the tick the
// player leaves; Space recolours only the cube of the player who pressed
// it.
func TestOneCubePerPlayer(t *testing.T) {
	e, s := newMatch(t, 200)
	w := e.World
	var left engine.Entity // player 1's cube, while it is in
	joined := map[engine.PlayerID]uint64{}
	stepTo(t, e, matchEnd, func(tick uint64) {
		players := w.Players()
		var want []engine.PlayerID
		for i := range players.Len() {
			id, _ := players.At(i)
			want = append(want, id)
		}
		got := owners(s)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("tick %d: cubes of players %v, want %v (the players in the match)", tick, got, want)
		}
		for _, id := range players.Joined() {
			joined[id] = tick
		}
		for _, id := range want {
			cube, ok := s.PlayerCube(w, id)
			if !ok || !w.Alive(cube) {
				t.Fatalf("tick %d: PlayerCube(%d) = %v, %v; want a live cube", tick, id, cube, ok)
			}
			if id == 0 && cube != s.Player {
				t.Fatalf("tick %d: player 0's cube is %v, want Scene.Player %v", tick, cube, s.Player)
			}
			// The cube starts at its spot and moves PlayerSpeed along its
			// direction every tick from the one it joins in; 20 ticks
			// keep every cube of the match clear of the walls.
			steps := tick - joined[id] + 1
			if steps > 20 {
				continue
			}
			start := PlayerSpot(id)
			if id == 0 {
				start = mgl32.Vec3{0, -Box[1] + 1, 0}
			}
			dir := matchDirs[id].dir
			wantPos := start.Add(dir.Mul(float32(PlayerSpeed * float64(steps) / 60)))
			if pos := w.Transform(cube).Pos; !near(pos, wantPos) {
				t.Fatalf("tick %d: player %d's cube at %v, want %v (%d ticks along %v from %v)", tick, id, pos, wantPos, steps, dir, start)
			}
			if v, _ := w.DrawVelocity(cube); v != dir.Mul(PlayerSpeed) {
				t.Fatalf("tick %d: player %d's cube has velocity %v, want %v", tick, id, v, dir.Mul(PlayerSpeed))
			}
			if steps == 1 && w.Bodies().Color[cube.Index()] != playerColors[int(id)%len(playerColors)] {
				t.Fatalf("tick %d: player %d's new cube has colour %v, want %v", tick, id, w.Bodies().Color[cube.Index()], playerColors[id])
			}
		}
		switch tick {
		case matchLeave - 1:
			left, _ = s.PlayerCube(w, 1)
		case matchLeave:
			if w.Alive(left) {
				t.Fatalf("tick %d: player 1 left, its cube %v is alive", tick, left)
			}
			if cube, ok := s.PlayerCube(w, 1); ok {
				t.Fatalf("tick %d: player 1 left, PlayerCube finds %v", tick, cube)
			}
		}
	})
	if _, ok := s.PlayerCube(w, 4); ok {
		t.Error("PlayerCube finds a cube for player 4, who never joined")
	}
}

// near reports whether a and b are within 1e-4 of each other on every
// axis.
func near(a, b mgl32.Vec3) bool {
	for i := range 3 {
		if d := a[i] - b[i]; d > 1e-4 || d < -1e-4 {
			return false
		}
	}
	return true
}

// Space recolours the cube of the player who pressed it, and no other.
func TestSpaceRecoloursItsPlayersCube(t *testing.T) {
	e, s := newMatch(t, 0)
	w := e.World
	stepTo(t, e, 70, nil) // players 0, 1 and 2 tap Space at ticks 3, 10 and 17 of every 60
	colours := func() map[engine.PlayerID][4]uint8 {
		m := map[engine.PlayerID][4]uint8{}
		for cube, id := range s.Owner.All() {
			m[id] = w.Bodies().Color[cube.Index()]
		}
		return m
	}
	before := colours()
	stepTo(t, e, 60+7*2+3, nil)
	after := colours()
	for id := range before {
		if changed := after[id] != before[id]; changed != (id == 2) {
			t.Errorf("player %d's cube went from colour %v to %v; only player 2 pressed Space", id, before[id], after[id])
		}
	}
}

// Player 0's cube stays when player 0 leaves, at rest until it comes back.
func TestPlayerZeroRestsWhileOut(t *testing.T) {
	e, err := engine.New(engine.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	s := Setup(e, 0)
	hold, _ := held(input.KeyArrowRight)
	e.AddTickHook(&funcHook{begin: func(ti *engine.TickInfo) {
		var err error
		switch ti.Tick {
		case 1:
			err = ti.Players.Join(0)
		case 10:
			err = ti.Players.Leave(0)
		case 20:
			err = ti.Players.Join(0)
		}
		if err == nil && ti.Players.Has(0) {
			err = ti.Players.SetInput(0, hold)
		}
		if err != nil {
			t.Fatalf("tick %d: %v", ti.Tick, err)
		}
	}})
	stepTo(t, e, 9, nil)
	at := e.World.Transform(s.Player).Pos
	stepTo(t, e, 19, func(tick uint64) {
		if v, _ := e.World.DrawVelocity(s.Player); v != (mgl32.Vec3{}) {
			t.Fatalf("tick %d: player 0 is out, its cube has velocity %v", tick, v)
		}
		if pos := e.World.Transform(s.Player).Pos; pos != at {
			t.Fatalf("tick %d: player 0 is out, its cube moved from %v to %v", tick, at, pos)
		}
		if got := owners(s); !slices.Equal(got, []engine.PlayerID{0}) {
			t.Fatalf("tick %d: cubes of players %v, want [0]", tick, got)
		}
	})
	stepTo(t, e, 20, nil)
	if v, _ := e.World.DrawVelocity(s.Player); v != (mgl32.Vec3{PlayerSpeed, 0, 0}) {
		t.Errorf("player 0 is back, its cube has velocity %v, want %v", v, mgl32.Vec3{PlayerSpeed, 0, 0})
	}
}

// funcHook is a TickHook and PlayerOwner whose BeginTick runs begin.
type funcHook struct{ begin func(*engine.TickInfo) }

func (h *funcHook) OwnsPlayers() bool                       { return true }
func (h *funcHook) PreTick()                                {}
func (h *funcHook) BeginTick(ti *engine.TickInfo)           { h.begin(ti) }
func (h *funcHook) JobApplied(uint64, engine.JobID, []byte) {}
func (h *funcHook) EndTick(uint64, *engine.World)           {}

// A match is a pure function of its players' inputs: two runs agree on
// every tick's hash, and so does a run restored from a snapshot taken
// midway (before and after a player leaves and joins) into a fresh engine.
func TestMatchIsDeterministic(t *testing.T) {
	run := func() []uint64 {
		e, _ := newMatch(t, 1000)
		var hashes []uint64
		stepTo(t, e, matchEnd, func(uint64) { hashes = append(hashes, e.World.Hash()) })
		return hashes
	}
	first, second := run(), run()
	if !slices.Equal(first, second) {
		t.Fatal("two runs of the match disagree")
	}
	for _, at := range []uint64{matchLeave - 1, matchLeave, matchLeave + 20, matchJoin, matchJoin + 1} {
		e, _ := newMatch(t, 1000)
		stepTo(t, e, at, nil)
		snap := e.Snapshot()
		restored, _ := newMatch(t, 1000)
		if err := restored.Restore(snap); err != nil {
			t.Fatal(err)
		}
		stepTo(t, restored, matchEnd, func(tick uint64) {
			if h := restored.World.Hash(); h != first[tick-1] {
				t.Fatalf("restored at tick %d: tick %d hash %016x, want %016x", at, tick, h, first[tick-1])
			}
		})
	}
}

// In single-player, player 0 is the only player: its cube, Scene.Player,
// is the only player cube.
func TestSinglePlayerHasOneCube(t *testing.T) {
	e, err := engine.New(engine.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	s := Setup(e, 10)
	e.SetInputScript(Script)
	stepTo(t, e, 300, func(tick uint64) {
		if got := owners(s); !slices.Equal(got, []engine.PlayerID{0}) {
			t.Fatalf("tick %d: cubes of players %v, want [0]", tick, got)
		}
	})
	if cube, ok := s.PlayerCube(e.World, 0); !ok || cube != s.Player {
		t.Errorf("PlayerCube(0) = %v, %v; want Scene.Player %v", cube, ok, s.Player)
	}
}

// A bouncing cube touching two player cubes counts once, in Touches and
// in Points.
func TestTouchCountsACubeOnce(t *testing.T) {
	e, err := engine.New(engine.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	s := Setup(e, 1)
	e.AddTickHook(&funcHook{begin: func(ti *engine.TickInfo) {
		if ti.Tick == 1 {
			if err := ti.Players.Join(0); err != nil {
				t.Fatal(err)
			}
			if err := ti.Players.Join(1); err != nil {
				t.Fatal(err)
			}
		}
	}})
	stepTo(t, e, 1, nil)
	w := e.World
	one, ok := s.PlayerCube(w, 1)
	if !ok {
		t.Fatal("player 1 has no cube")
	}
	cube, _ := w.EntityAt(0) // the bouncing cube
	place := func(ent engine.Entity, x float32) {
		tr := w.Transform(ent)
		tr.Pos = mgl32.Vec3{x, 0, 0}
		w.SetTransform(ent, tr)
	}
	place(s.Player, -0.5)
	place(one, 0.5)
	touch := func(x float32) Score {
		place(cube, x)
		s.touch(&engine.FixedContext{World: w, Players: w.Players(), DT: 1.0 / 60, Tick: w.Tick()})
		return s.Score.Get()
	}
	start := s.Score.Get().Points
	steps := []struct {
		x    float32
		want Score
	}{
		{0, Score{Points: start + 1, Touches: 1}},  // touches both
		{0, Score{Points: start + 1, Touches: 1}},  // still touching
		{-1, Score{Points: start + 1, Touches: 1}}, // touches player 0's only
		{20, Score{Points: start + 1, Touches: 0}}, // touches none
		{1, Score{Points: start + 2, Touches: 1}},  // comes to touch player 1's
	}
	for i, st := range steps {
		if got := touch(st.x); got != st.want {
			t.Errorf("step %d, cube at x %v: score %+v, want %+v", i, st.x, got, st.want)
		}
	}
}

// The spots of players 1 to MaxPlayers-1 lie on the floor, clear of the
// walls, each its own and none at player 0's.
func TestPlayerSpots(t *testing.T) {
	seen := map[mgl32.Vec3]engine.PlayerID{{0, -Box[1] + 1, 0}: 0}
	for id := engine.PlayerID(1); id < engine.MaxPlayers; id++ {
		p := PlayerSpot(id)
		if p[1] != -Box[1]+1 {
			t.Errorf("player %d's spot %v is not on the floor (y %v)", id, p, -Box[1]+1)
		}
		for _, a := range []int{0, 2} {
			if p[a] < -Box[a]+2 || p[a] > Box[a]-2 {
				t.Errorf("player %d's spot %v is within 2 of a wall", id, p)
			}
		}
		if other, ok := seen[p]; ok {
			t.Errorf("players %d and %d share the spot %v", other, id, p)
		}
		seen[p] = id
	}
}

// crowdHook joins players 0 to n-1 at tick 1, each holding an arrow key
// of its own, so that the player cubes spread and cross the floor.
type crowdHook struct {
	t testing.TB
	n int
}

func (h *crowdHook) OwnsPlayers() bool { return true }
func (h *crowdHook) PreTick()          {}
func (h *crowdHook) BeginTick(ti *engine.TickInfo) {
	p := ti.Players
	for id := range engine.PlayerID(h.n) {
		if ti.Tick == 1 {
			if err := p.Join(id); err != nil {
				h.t.Fatal(err)
			}
		}
		key := input.KeyArrowLeft + input.Key((uint64(id)+ti.Tick/90)%4)
		hold, _ := held(key)
		if err := p.SetInput(id, hold); err != nil {
			h.t.Fatal(err)
		}
	}
}
func (h *crowdHook) JobApplied(uint64, engine.JobID, []byte) {}
func (h *crowdHook) EndTick(uint64, *engine.World)           {}

// touchingByEveryPair is touch's answer for bouncing cube i, found by
// testing every player cube.
func touchingByEveryPair(s *Scene, w *engine.World, i int) bool {
	b := w.Bodies()
	for _, j := range s.Owner.Indices() {
		if overlap(b.Pos[j], b.Scale[j], b.Pos[i], b.Scale[i]) {
			return true
		}
	}
	return false
}

// With 64 players, touch (which tests only the player cubes near each
// cube on x) marks exactly the cubes that testing every pair marks, tick
// after tick, and many cubes touch.
func TestTouchMatchesEveryPairWithManyPlayers(t *testing.T) {
	e, err := engine.New(engine.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	s := Setup(e, 1000)
	e.AddTickHook(&crowdHook{t: t, n: 64})
	touches := 0
	stepTo(t, e, 300, func(tick uint64) {
		w := e.World
		touching, has := s.Touching.Slices()
		n := uint32(0)
		for i, ok := range has {
			if !ok {
				continue
			}
			if want := touchingByEveryPair(s, w, i); touching[i] != want {
				t.Fatalf("tick %d: cube in slot %d: touching %v, testing every pair says %v", tick, i, touching[i], want)
			}
			if touching[i] {
				n++
			}
		}
		if got := s.Score.Get().Touches; got != n {
			t.Fatalf("tick %d: Touches %d, %d cubes touching", tick, got, n)
		}
		touches += int(n)
	})
	if touches < 300 {
		t.Errorf("%d touches in 300 ticks: too few for the test to mean much", touches)
	}
}
