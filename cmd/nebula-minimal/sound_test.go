package main

import (
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/engine/ragdoll"
	"github.com/nebulaengine/nebula/engine/sound"
	"github.com/nebulaengine/nebula/engine/sound/mix"
	"github.com/nebulaengine/nebula/internal/soundtest"
)

// The game sounds what happens, and nothing else: the player jumps
// (Space at tick 30) and lands, then, set down in front of the dummy,
// walks up to it (W) and knocks it down. Each tick's events
// (sound.Sounds.Events) are the jump's at the tick the character leaves
// the ground, the landing's (as loud as a jump's landing) just after it
// is back on the ground, and the knock's, at the dummy, at the tick it
// falls; no tick has another. The run's mix, captured tick by tick as
// the program's frames would play it, is silent before the jump and has
// each sound's first note, heard (Goertzel), as its tick begins.
func TestTheGameSoundsWhatHappens(t *testing.T) {
	g := newHeadlessWorld(t)
	m, err := mix.New(soundRate)
	if err != nil {
		t.Fatal(err)
	}
	g.sounds.SetOutput(m)
	capture := sound.NewCapture(m, g.e.TickRate())
	phase := func() ragdoll.Phase { p, _ := g.ragdolls.Phase(g.dummy); return p }
	const jumpAt, walkAt = 30, 150
	held := false // W, from walkAt until the dummy falls
	g.e.SetInputScript(func(tick uint64, due time.Duration, in *input.Queue) {
		switch {
		case tick == jumpAt:
			in.Push(input.Event{Time: due, Kind: input.KeyDown, Key: input.KeySpace})
		case tick == jumpAt+1:
			in.Push(input.Event{Time: due, Kind: input.KeyUp, Key: input.KeySpace})
		case tick == walkAt:
			held = true
			in.Push(input.Event{Time: due, Kind: input.KeyDown, Key: input.KeyW})
		case held && phase() == ragdoll.Falling:
			held = false
			in.Push(input.Event{Time: due, Kind: input.KeyUp, Key: input.KeyW})
		}
	})
	// What happened, and at which tick (0: not yet): the character left
	// the ground, was on it again at the end of a tick, the dummy fell.
	var jumped, grounded, fell uint64
	type heard struct {
		tick uint64
		ev   sound.Event
	}
	var events []heard
	for g.e.World.Tick() < walkAt+120 {
		tick := g.e.World.Tick() + 1
		if tick == walkAt-10 { // set down 2.5 m in front of the dummy (+z)
			if err := g.space.Teleport(g.player, mgl32.Vec3{4, 0.91, -1.5}, mgl32.QuatIdent()); err != nil {
				t.Fatal(err)
			}
		}
		if !g.e.StepTick(engine.TickTime(tick, g.e.TickRate())) {
			t.Fatal(g.e.Err())
		}
		g.sounds.Reconcile(&engine.FrameContext{World: g.e.World}) // the Render system a frame runs
		capture.Tick()
		ch, _ := g.space.Character(g.player)
		switch {
		case jumped == 0 && g.vy.Get() > 0:
			jumped = tick
		case jumped != 0 && grounded == 0 && tick > jumped+1 && ch.Grounded:
			grounded = tick
		}
		if fell == 0 && phase() == ragdoll.Falling {
			fell = tick
		}
		for _, ev := range g.sounds.Events(tick) {
			events = append(events, heard{tick, ev})
		}
	}
	t.Logf("jumped at tick %d, on the ground at %d, the dummy fell at %d; events %+v", jumped, grounded, fell, events)
	if jumped != jumpAt || grounded == 0 || fell < walkAt {
		t.Fatalf("jumped at tick %d (want %d), back on the ground at %d, the dummy fell at %d (want after %d)", jumped, jumpAt, grounded, fell, walkAt)
	}
	if len(events) != 3 {
		t.Fatalf("%d sound events, want 3 (jump, landing, knock): %+v", len(events), events)
	}
	jump, land, knock := events[0], events[1], events[2]
	if jump.tick != jumped || jump.ev.Sound != g.sfx.jump || jump.ev.Entity != g.player {
		t.Errorf("the first event %+v, want the jump's sound by the player at tick %d", jump, jumped)
	}
	// The move system sees the ground the tick after the physics step
	// that put the character there.
	if land.tick != grounded+1 || land.ev.Sound != g.sfx.land || land.ev.Entity != g.player || land.ev.Volume != 1 {
		t.Errorf("the second event %+v, want the landing's sound by the player at tick %d, at volume 1", land, grounded+1)
	}
	if knock.tick != fell || knock.ev.Sound != g.sfx.knock || knock.ev.Entity != g.dummy || !knock.ev.Spatial {
		t.Errorf("the third event %+v, want the knock's sound at the dummy (spatial) at tick %d", knock, fell)
	}
	if st := g.sounds.Stats(); st.Started != 3 || st.Failed != 0 {
		t.Errorf("sound stats %+v, want 3 started and none failed", st)
	}

	// The mix: stereo frames, the events of tick n starting at frame
	// (n-1)·rate/tickRate.
	mixed := capture.Sound()
	left := make([]float32, mixed.Frames())
	for i := range left {
		left[i] = mixed.Samples[2*i]
	}
	perTick := soundRate / uint64(g.e.TickRate())
	at := func(tick uint64) []float32 { // the 40 ms from the tick's start
		start := (tick - 1) * perTick
		return left[start : start+soundRate/25]
	}
	for i, v := range left[:(jumped-1)*perTick] {
		if v != 0 {
			t.Fatalf("frame %d, before the jump: %v, want silence", i, v)
		}
	}
	for _, c := range []struct {
		what      string
		tick      uint64
		tone, not float64
	}{
		{"jump", jumped, jumpLow, knockTone},
		{"landing", land.tick, thudTone, jumpLow},
		{"knock", fell, knockTone, jumpLow},
	} {
		a, other := soundtest.Amplitude(at(c.tick), soundRate, c.tone), soundtest.Amplitude(at(c.tick), soundRate, c.not)
		t.Logf("%s at tick %d: %.3f at %v Hz, %.3f at %v Hz", c.what, c.tick, a, c.tone, other, c.not)
		if a < 0.05 || a < 4*other {
			t.Errorf("the %s's 40 ms from tick %d: amplitude %.3f at its %v Hz and %.3f at %v Hz, want its tone heard (0.05 or more), 4 times the other", c.what, c.tick, a, c.tone, other, c.not)
		}
	}
}
