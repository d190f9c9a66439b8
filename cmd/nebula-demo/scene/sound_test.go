package scene

import (
	"testing"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/sound"
)

// soundLog runs the physics mode with the player's script for ticks and
// returns the events of every tick, by tick.
func soundLog(t *testing.T, bodies int, ticks uint64) (*engine.Engine, *Scene, map[uint64][]sound.Event, []sound.Music) {
	t.Helper()
	e, s := newPhysics(t, bodies)
	log := map[uint64][]sound.Event{}
	music := []sound.Music{s.Sounds.Music().Get()}
	stepTo(t, e, ticks, func(tick uint64) {
		if ev := s.Sounds.Events(tick); len(ev) > 0 {
			log[tick] = ev
		}
		music = append(music, s.Sounds.Music().Get())
	})
	return e, s, log, music
}

// The physics mode sounds its bounces, louder the harder, at most
// MaxBounceSounds a tick, and every shot at the tick it is fired; two runs
// sound the same events.
func TestPhysicsModeSoundsBouncesAndShots(t *testing.T) {
	_, s, log, music := soundLog(t, 200, 900)
	var bounces, shots, goals int
	var quiet, loud int
	for tick, evs := range log {
		n := 0
		for _, ev := range evs {
			switch ev.Sound {
			case s.Sound.Bounce:
				bounces++
				n++
				if !ev.Spatial || ev.Volume <= 0 || ev.Volume > 1 {
					t.Errorf("tick %d: bounce %+v, want spatial with a volume in (0, 1]", tick, ev)
				}
				if ev.Volume < 0.3 {
					quiet++
				}
				if ev.Volume == 1 {
					loud++
				}
			case s.Sound.Shot:
				shots++
				if tick%FireEvery != 0 {
					t.Errorf("a shot sounded at tick %d, not a multiple of %d", tick, FireEvery)
				}
			case s.Sound.Goal:
				goals++
				// The fanfare plays from the goal's tick for FanfareTicks,
				// then the music comes back, cross-faded.
				if m := music[tick]; m.Track != s.Sound.Fanfare || m.Start != tick {
					t.Errorf("tick %d, a goal: music %+v, want the fanfare from this tick", tick, m)
				}
				if end := tick + FanfareTicks; end < uint64(len(music)) {
					if m := music[end]; m.Track != s.Sound.Music || m.Start != end || m.Fade == 0 {
						t.Errorf("tick %d, %d after a goal: music %+v, want the music back, faded in, from this tick", end, FanfareTicks, m)
					}
				}
			}
		}
		if n > MaxBounceSounds {
			t.Errorf("tick %d: %d bounces, want at most %d", tick, n, MaxBounceSounds)
		}
	}
	t.Logf("%d bounces (%d quiet, %d at full volume), %d shots, %d goals over 900 ticks", bounces, quiet, loud, shots, goals)
	if want := 900 / FireEvery; shots != want {
		t.Errorf("%d shots sounded, want %d", shots, want)
	}
	if m := music[0]; m.Track != s.Sound.Music || m.Start != 0 {
		t.Errorf("music before the first tick %+v, want the music from tick 0", m)
	}
	if goals == 0 {
		t.Error("no goal sounded: the script's shots used to score 2 in 900 ticks")
	}
	if bounces < 50 || quiet == 0 || quiet == bounces {
		t.Errorf("%d bounces, %d of them quiet: want many, of several volumes", bounces, quiet)
	}
	_, _, again, _ := soundLog(t, 200, 900)
	for tick, evs := range log {
		if len(again[tick]) != len(evs) {
			t.Fatalf("tick %d: %d events, then %d in a second run", tick, len(evs), len(again[tick]))
		}
		for i := range evs {
			if evs[i] != again[tick][i] {
				t.Fatalf("tick %d event %d: %+v, then %+v", tick, i, evs[i], again[tick][i])
			}
		}
	}
}
