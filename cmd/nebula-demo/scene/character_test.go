package scene

import (
	"math"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/input"
)

// charRun is the physics mode with no bodies and player 0's input from a
// script of key events by tick, with what each tick's scripts stage and
// the end of each tick saw of player 0's character.
type charRun struct {
	e  *engine.Engine
	s  *Scene
	at map[uint64][]input.Event // the script: the events of each tick
	// pos is the character's position at the end of each tick, grounded
	// whether it stood on the ground then.
	pos      []mgl32.Vec3
	grounded []bool
	// shots are the shots in the world during each tick's scripts stage
	// (after fire), with the character's position there.
	shots []shotSeen
}

// shotSeen is a shot seen just after it was fired.
type shotSeen struct {
	tick     uint64
	shot, at mgl32.Vec3 // the shot's and the character's positions
}

func newCharRun(t *testing.T) *charRun {
	t.Helper()
	e, err := engine.New(engine.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	s, err := SetupPhysics(e, 0)
	if err != nil {
		t.Fatal(err)
	}
	r := &charRun{e: e, s: s, at: map[uint64][]input.Event{}}
	e.Input.SetActions(NewActions())
	e.SetInputScript(func(tick uint64, due time.Duration, in *input.Queue) {
		for _, ev := range r.at[tick] {
			ev.Time = due
			in.Push(ev)
		}
	})
	// After fire (the scripts stage's systems run in the order added):
	// shots fired this tick, where they start.
	if err := e.AddSystem(engine.StageScripts, "look-shots", func(c *engine.FixedContext) {
		for _, i := range s.Shots.Indices() {
			shot, _ := c.World.EntityAt(int(i))
			if sh, _ := s.Shots.Get(shot); sh.Tick == c.Tick {
				r.shots = append(r.shots, shotSeen{c.Tick, c.World.Transform(shot).Pos, c.World.Transform(s.Player).Pos})
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	if err := e.AddSystem(StageDebug, "look", func(c *engine.FixedContext) {
		ch, _ := s.Space.Character(s.Player)
		r.pos = append(r.pos, c.World.Transform(s.Player).Pos)
		r.grounded = append(r.grounded, ch.Grounded)
	}); err != nil {
		t.Fatal(err)
	}
	return r
}

// key adds a key's press (down) or release at tick.
func (r *charRun) key(tick uint64, k input.Key, down bool) {
	kind := input.KeyUp
	if down {
		kind = input.KeyDown
	}
	r.at[tick] = append(r.at[tick], input.Event{Kind: kind, Key: k})
}

// run steps the engine to tick n.
func (r *charRun) run(t *testing.T, n uint64) {
	t.Helper()
	for r.e.World.Tick() < n {
		if !r.e.StepTick(0) {
			t.Fatal(r.e.Err())
		}
	}
}

// posAt returns the character's position at the end of tick n.
func (r *charRun) posAt(n uint64) mgl32.Vec3 { return r.pos[n-1] }

// The physics mode's player is a character with known answers: it stands
// on the floor, walks PlayerSpeed metres in a second with an arrow key or
// WASD held, and a jump (Space) rises JumpSpeed²/2g and lands where it
// left.
func TestPlayerCharacterWalksAndJumps(t *testing.T) {
	r := newCharRun(t)
	r.key(30, input.KeyArrowRight, true)
	r.key(90, input.KeyArrowRight, false) // held for ticks 30 to 89: 1 s
	r.key(120, input.KeyS, true)
	r.key(180, input.KeyS, false) // WASD: S is +z
	r.key(200, input.KeySpace, true)
	r.key(201, input.KeySpace, false)
	r.run(t, 320)

	stand := standingY()
	if p, g := r.posAt(29), r.grounded[28]; !g || abs32(p[1]-stand) > 0.006 {
		t.Errorf("at rest: at %v, grounded %v; want grounded at height %.3f (the floor, its capsule and offset)", p, g, stand)
	}
	if d := r.posAt(89).Sub(r.posAt(29)); abs32(d[0]-PlayerSpeed) > 0.01 || abs32(d[1]) > 0.001 || d[2] != 0 {
		t.Errorf("Right held 1 s: moved %v, want (%v, 0, 0)", d, PlayerSpeed)
	}
	if d := r.posAt(179).Sub(r.posAt(119)); abs32(d[2]-PlayerSpeed) > 0.01 || d[0] != 0 {
		t.Errorf("S held 1 s: moved %v, want (0, 0, %v)", d, PlayerSpeed)
	}
	for n := uint64(30); n < 199; n++ {
		if !r.grounded[n-1] {
			t.Fatalf("walking: off the ground at tick %d", n)
		}
	}
	// The jump: up at tick 200, highest JumpSpeed²/2g above where it
	// stood (within 5 mm: at rest the controller keeps between half and
	// all of its 10 mm Offset from the floor, 7.5 mm here, and the jump's
	// first move takes it out to the whole Offset), back on the floor well within the 2·JumpSpeed/g ≈ 61 ticks
	// of the flight plus a few.
	base := r.posAt(199)[1]
	top := float32(math.Inf(-1))
	landed := uint64(0)
	for n := uint64(200); n <= 320; n++ {
		top = max(top, r.posAt(n)[1])
		if landed == 0 && n > 201 && r.grounded[n-1] {
			landed = n
		}
	}
	want := float32(JumpSpeed * JumpSpeed / (2 * 9.81))
	t.Logf("the jump rose %.4f m (want %.4f), landed at tick %d", top-base, want, landed)
	if d := top - base; abs32(d-want) > 0.005 {
		t.Errorf("the jump rose %.4f m, want %.4f (JumpSpeed²/2g) within 5 mm", d, want)
	}
	if landed < 255 || landed > 265 {
		t.Errorf("landed at tick %d, want about 260 (a flight of 2·JumpSpeed/g)", landed)
	}
	if p := r.posAt(320); abs32(p[1]-stand) > 0.006 {
		t.Errorf("after landing at height %.4f, want %.4f", p[1], stand)
	}
}

// A shot leaves the character at its centre height, just outside its
// capsule, towards the middle of the arena: from where a character stands
// its shots can hit what lies on the floor.
func TestShotLeavesTheCharacter(t *testing.T) {
	r := newCharRun(t)
	r.key(10, input.KeyArrowLeft, true)
	r.key(40, input.KeyArrowLeft, false) // 3 m left of the middle
	r.key(60, KeyFire, true)
	r.key(61, KeyFire, false)
	r.run(t, 61)
	if len(r.shots) != 1 {
		t.Fatalf("%d shots fired, want 1: %+v", len(r.shots), r.shots)
	}
	sh := r.shots[0]
	d := sh.shot.Sub(sh.at)
	want := mgl32.Vec3{CharacterRadius + ShotRadius + shotGap, 0, 0} // towards the middle: +x
	if sh.tick != 60 || d.Sub(want).Len() > 1e-5 {
		t.Errorf("the shot fired at tick %d left from %v, the character at %v: offset %v, want tick 60 and %v", sh.tick, sh.shot, sh.at, d, want)
	}
}

func abs32(x float32) float32 { return float32(math.Abs(float64(x))) }

// The headless script's Space taps make the physics mode's player jump,
// and a jump is simulated state: loaded back mid-flight (as rollback
// does), the run goes on to the same bits.
func TestScriptJumpsAndRollsBack(t *testing.T) {
	e, err := engine.New(engine.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	s, err := SetupPhysics(e, 20)
	if err != nil {
		t.Fatal(err)
	}
	e.Input.SetActions(NewActions())
	e.SetInputScript(PhysicsPlayerScript(0))
	step := func(to uint64) {
		for e.World.Tick() < to {
			if !e.StepTick(0) {
				t.Fatal(e.Err())
			}
		}
	}
	step(160) // Space at tick 150: in the air
	if y := e.World.Transform(s.Player).Pos[1] - standingY(); y < 0.5 {
		t.Fatalf("10 ticks after the script's Space: %.3f m above the floor, want a jump", y)
	}
	if vy, _ := s.VSpeed.Get(s.Player); vy <= 0 || vy >= JumpSpeed {
		t.Fatalf("vertical speed %v mid-jump, want between 0 and %v", vy, JumpSpeed)
	}
	var st engine.State
	e.SaveState(&st)
	step(400)
	want := e.World.Hash()
	e.LoadState(&st)
	if e.World.Tick() != 160 {
		t.Fatalf("loaded at tick %d, want 160", e.World.Tick())
	}
	step(400)
	if h := e.World.Hash(); h != want {
		t.Errorf("after LoadState mid-jump: hash at tick 400 %016x, want %016x", h, want)
	}
}
