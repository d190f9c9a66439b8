package sound

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/sound/decode"
	"github.com/nebulaengine/nebula/engine/sound/mix"
)

// A loop set by a fixed system starts once, from its start, and plays on
// through a rollback that keeps it; a restore to before it started fades
// it out, and running on to where it is set again starts it as far in as
// the time since its Start.
func TestLoopIsState(t *testing.T) {
	g := newGame(t)
	if err := g.e.AddSystem(engine.StageScripts, "engine", func(c *engine.FixedContext) {
		if c.Tick == 5 {
			g.s.Loops().Set(g.a, Loop{Sound: g.bounce, Start: c.Tick, Volume: 0.7})
		}
	}); err != nil {
		t.Fatal(err)
	}
	var at3, at8 engine.State
	g.step(t, 3)
	g.e.SaveState(&at3)
	g.step(t, 8)
	g.e.SaveState(&at8)
	g.step(t, 12)
	loops := func() (n int, last play) {
		for _, p := range g.out.plays {
			if p.p.Loop {
				n, last = n+1, p
			}
		}
		return n, last
	}
	if n, p := loops(); n != 1 || p.p.Start != 0 || p.p.Volume != 0.7 {
		t.Fatalf("%d loops started, the last %+v; want one, from its start, at volume 0.7", n, p.p)
	}
	g.e.LoadState(&at8) // the loop is in this state too
	g.resim(t, 12)
	if n, _ := loops(); n != 1 || len(g.out.stopped) != 0 {
		t.Fatalf("after a rollback that keeps the loop: %d started, %d stopped; want it left alone", n, len(g.out.stopped))
	}
	g.e.LoadState(&at3) // before it started, and before the hum (tick 5) and the bounce (tick 12)
	g.s.Reconcile(&engine.FrameContext{World: g.e.World})
	if len(g.out.stopped) != 3 {
		t.Fatalf("after a restore to before the loop: %d stopped, want it faded, and the hum and the bounce, which have not happened yet", len(g.out.stopped))
	}
	g.resim(t, 20)
	if n, p := loops(); n != 2 || p.p.Start < 15*g.dt-1e-9 || p.p.Start > 15*g.dt+1e-9 {
		t.Errorf("run on to 20: %d loops started, the last from %v s; want it again from %v s (15 ticks)", n, p.p.Start, 15*g.dt)
	}
	if st := g.s.Stats(); st.LoopsStarted != 2 || st.LoopsStopped != 1 {
		t.Errorf("Stats %+v, want 2 loops started, 1 stopped", st)
	}
}

// The music is state: a track change cross-fades over Music.Fade, and a
// restore across the change puts the earlier track back, as far in as
// the time since it started.
func TestMusicIsState(t *testing.T) {
	g := newGame(t)
	calm := g.s.Register(&decode.Sound{Name: "calm", Rate: 48000, Channels: 2, Samples: make([]float32, 2*48000*30)})
	fight := g.s.Register(&decode.Sound{Name: "fight", Rate: 48000, Channels: 2, Samples: make([]float32, 2*48000*30)})
	at8 := g.changeMusic(t, calm, fight)
	tracks := func() (names []string, last play) {
		names, plays := g.tracks()
		return names, plays[len(plays)-1]
	}
	names, last := tracks()
	if len(names) != 2 || names[1] != "fight" || last.p.FadeIn < 30*g.dt-1e-9 || last.p.FadeIn > 30*g.dt+1e-9 || last.p.Start != 0 {
		t.Fatalf("tracks %v, the last from %v s fading in over %v s; want calm then fight, from its start over 30 ticks", names, last.p.Start, last.p.FadeIn)
	}
	var calmVoice mix.Voice
	for _, p := range g.out.plays {
		if p.sound.Name == "calm" {
			calmVoice = p.voice
		}
	}
	if fade, ok := g.out.stopped[calmVoice]; !ok || fade < 30*g.dt-1e-9 {
		t.Errorf("calm stopped %v over %v s; want it faded over 30 ticks", ok, fade)
	}
	g.e.LoadState(at8) // before the change
	g.s.Reconcile(&engine.FrameContext{World: g.e.World})
	names, last = tracks()
	if len(names) != 3 || names[2] != "calm" || last.p.Start < 6*g.dt-1e-9 || last.p.Start > 6*g.dt+1e-9 {
		t.Errorf("after the restore: tracks %v, the last from %v s; want calm back, 6 ticks in", names, last.p.Start)
	}
}

// writeTrack writes a WAV file of a sine of freq Hz at amplitude 0.5,
// seconds long at 48 kHz, in a temporary folder, and returns its path.
func writeTrack(t *testing.T, name string, freq, seconds float64) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name+".wav")
	if err := os.WriteFile(p, decode.EncodeWAV(tone(name, freq, seconds)), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Streamed music is state as a sound's is: a change of track streams the
// new one fading in over Music.Fade while the old fades out, and a
// restore across the change streams the earlier track again, from the
// time since its Start. RegisterStream refuses a file that is not a
// sound, naming it.
func TestStreamedMusicIsState(t *testing.T) {
	g := newGame(t)
	calmPath, fightPath := writeTrack(t, "calm", 440, 2), writeTrack(t, "fight", 660, 2)
	calm, err := g.s.RegisterStream(calmPath)
	if err != nil {
		t.Fatal(err)
	}
	fight, err := g.s.RegisterStream(fightPath)
	if err != nil {
		t.Fatal(err)
	}
	if g.s.StreamPath(calm) != calmPath || g.s.Sound(calm) != nil || g.s.StreamPath(g.hum) != "" {
		t.Fatal("StreamPath or Sound do not tell streams and sounds apart")
	}
	bad := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(bad, []byte("not music at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := g.s.RegisterStream(bad); err == nil || !strings.Contains(err.Error(), bad) || !strings.HasPrefix(err.Error(), "sound: ") {
		t.Errorf("RegisterStream of a text file: %v; want an error naming it", err)
	}
	at8 := g.changeMusic(t, calm, fight)
	names, plays := g.tracks()
	last := plays[len(plays)-1]
	if len(names) != 2 || names[0] != calmPath || names[1] != fightPath || math.Abs(last.p.FadeIn-30*g.dt) > 1e-9 {
		t.Fatalf("tracks %v, the last fading in over %v s; want calm then fight, streamed, over 30 ticks", names, last.p.FadeIn)
	}
	if fade, ok := g.out.stopped[plays[0].voice]; !ok || fade < 30*g.dt-1e-9 {
		t.Errorf("calm stopped %v over %v s; want it faded over 30 ticks", ok, fade)
	}
	if st := g.out.m.Stats(); st.Streams != 2 {
		t.Errorf("%d streams open during the cross-fade, want both", st.Streams)
	}
	g.e.LoadState(at8)
	g.s.Reconcile(&engine.FrameContext{World: g.e.World})
	_, plays = g.tracks()
	last = plays[len(plays)-1]
	if len(plays) != 3 || last.sound.Name != calmPath || math.Abs(last.p.Start-6*g.dt) > 1e-9 {
		t.Errorf("after the restore: %s from %v s; want calm streamed again, 6 ticks in", last.sound.Name, last.p.Start)
	}
}

// StreamFrom makes a registered sound stream from a file: its ID plays
// the file, and a bad file or an unknown ID is refused, naming them.
func TestStreamFromReplacesARegisteredSound(t *testing.T) {
	g := newGame(t)
	path := writeTrack(t, "own", 550, 1)
	if err := g.s.StreamFrom(g.hum, path); err != nil {
		t.Fatal(err)
	}
	if g.s.Sound(g.hum) != nil || g.s.StreamPath(g.hum) != path {
		t.Fatal("the hum's ID still plays its samples")
	}
	if err := g.s.StreamFrom(99, path); err == nil || !strings.Contains(err.Error(), "sound 99 is not registered") {
		t.Errorf("StreamFrom(99): %v, want an error naming the ID", err)
	}
	bad := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(bad, []byte("not music"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := g.s.StreamFrom(g.bounce, bad); err == nil || !strings.Contains(err.Error(), bad) || g.s.Sound(g.bounce) == nil {
		t.Errorf("StreamFrom a text file: %v; want an error naming it, the bounce left as it was", err)
	}
	g.s.Music().Set(Music{Track: g.hum})
	g.step(t, 2)
	if n := len(g.out.plays); n == 0 || g.out.plays[n-1].sound.Name != path {
		t.Errorf("plays %+v, want the hum's ID streaming %s", g.out.plays, path)
	}
}

// changeMusic plays calm from tick 2 and cross-fades to fight over 30
// ticks from tick 10, running to tick 12; it returns the state at tick 8.
func (g *game) changeMusic(t *testing.T, calm, fight ID) *engine.State {
	t.Helper()
	if err := g.e.AddSystem(engine.StageScripts, "music", func(c *engine.FixedContext) {
		switch c.Tick {
		case 2:
			g.s.Music().Set(Music{Track: calm, Start: c.Tick})
		case 10:
			g.s.Music().Set(Music{Track: fight, Start: c.Tick, Fade: 30})
		}
	}); err != nil {
		t.Fatal(err)
	}
	g.step(t, 8)
	at8 := new(engine.State)
	g.e.SaveState(at8)
	g.step(t, 12)
	return at8
}

// tracks returns the music tracks played so far (looping, on the music
// bus), by name and play.
func (g *game) tracks() (names []string, plays []play) {
	for _, p := range g.out.plays {
		if p.p.Bus == mix.Music && p.p.Loop {
			names, plays = append(names, p.sound.Name), append(plays, p)
		}
	}
	return names, plays
}
