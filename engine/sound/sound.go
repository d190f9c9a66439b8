// Package sound makes a game's sound part of its deterministic world, so
// that it survives rollback: fixed systems emit sound events, stamped with
// their tick, and never touch the audio device; once a frame the events of
// the ticks that ran are reconciled with what is playing.
//
// A tick that runs for the first time starts its events. A tick that runs
// again (a rollback's re-simulation, a restored state) is compared with
// what it emitted before, event by event, by Key: an event that happened
// again keeps playing, untouched (no restart, no double); one that no
// longer happened fades out within Config.FadeOut; one that is new starts
// part-way through, as far in as the time since its tick, or not at all
// when that is past its end. This is what GGPO's authors describe for
// sound after a rollback.
//
//	out, _ := mix.New(48000)
//	sounds, _ := sound.New(e, out, sound.DefaultConfig())
//	hit := sounds.Register(hitSound) // decode.File("hit.wav")
//	e.AddSystem(engine.StageCollision, "bounce", func(c *engine.FixedContext) {
//		sounds.Emit(c, sound.Event{Sound: hit, Entity: ball, Volume: 0.8})
//	})
package sound

import (
	"fmt"
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/sound/decode"
	"github.com/nebulaengine/nebula/engine/sound/mix"
)

// ID names a sound registered with Sounds.Register, from 1.
type ID uint16

// Event is one sound a fixed system emits.
type Event struct {
	// Sound is what plays.
	Sound ID
	// Entity is what makes the sound (the zero Entity: nothing). It is
	// part of the event's Key.
	Entity engine.Entity
	// Volume is the gain, 0 to 4; 0 means 1.
	Volume float32
	// Pitch is the speed, 1/16 to 16; 0 means 1.
	Pitch float32
	// Bus is the mixer bus it plays on.
	Bus mix.Bus
	// Spatial places the sound in the world: where Entity is drawn each
	// frame (at Pos when Entity is zero or dies), attenuated with distance
	// and panned from the Listener (Config.Rolloff, Spatial).
	Spatial bool
	// Pos is where a spatial sound without an Entity is.
	Pos mgl32.Vec3
}

// Key is how an event is matched between two runs of its tick: the tick,
// the emitting entity, the sound, and the event's order among the events
// of that tick with the same entity and sound (from 0). Other events of
// the tick, emitted before or after, do not change an event's key, so a
// re-simulation that adds a bounce elsewhere leaves this one playing.
type Key struct {
	// Tick is the tick that emitted the event.
	Tick uint64
	// Entity is the event's Entity.
	Entity engine.Entity
	// Sound is the event's Sound.
	Sound ID
	// Order counts the events of Tick with this Entity and Sound emitted
	// before it.
	Order uint16
}

// Output is what plays the sounds: a *mix.Mixer.
type Output interface {
	// Play starts s (mix.Mixer.Play).
	Play(s *decode.Sound, p mix.Params) (mix.Voice, error)
	// PlayStream starts st, streamed from its file; the voice owns st
	// (mix.Mixer.PlayStream).
	PlayStream(st *decode.Stream, p mix.Params) (mix.Voice, error)
	// Stop fades v out over fade seconds (mix.Mixer.Stop).
	Stop(v mix.Voice, fade float64)
	// Playing reports whether v has not ended (mix.Mixer.Playing).
	Playing(v mix.Voice) bool
	// Set changes v's volume and pan (mix.Mixer.Set).
	Set(v mix.Voice, volume, pan float32) error
}

// Config says how events are reconciled.
type Config struct {
	// FadeOut is how long, seconds, a sound whose event no longer
	// happened takes to fade out: above 0 (a cut clicks), at most 1.
	FadeOut float64
	// Rolloff is how spatial sounds fade with distance.
	Rolloff Rolloff
}

// DefaultConfig returns a fade-out of 50 ms and DefaultRolloff.
func DefaultConfig() Config { return Config{FadeOut: 0.05, Rolloff: DefaultRolloff()} }

// Stats count what reconciling did, since New.
type Stats struct {
	// Started counts events started as their tick first ran.
	Started uint64
	// Kept counts events that happened again when their tick ran again,
	// left playing.
	Kept uint64
	// Faded counts events that no longer happened when their tick ran
	// again, faded out.
	Faded uint64
	// Late counts events new in a tick that ran again, started part-way.
	Late uint64
	// Missed counts such events not started: the time since their tick
	// was past their sound's end.
	Missed uint64
	// Failed counts sounds the output refused (every voice taken, a full
	// queue).
	Failed uint64
	// LoopsStarted and LoopsStopped count the loops (Loop) started and
	// faded out as the world's loops changed, rollbacks included.
	LoopsStarted, LoopsStopped uint64
	// TracksStarted counts the music tracks started (Music).
	TracksStarted uint64
}

// Reconciled is the number of events a re-simulation touched: kept,
// faded, started late or missed.
func (s Stats) Reconciled() uint64 { return s.Kept + s.Faded + s.Late + s.Missed }

// Window is the number of the latest ticks whose events are kept: a
// rollback deeper than this starts the re-simulated ticks' events as new.
const Window = 256

// StageSound is the stage Sounds adds before engine.StageInput, where each
// tick's list of events begins.
const StageSound engine.Stage = "sound"

// keyed is an emitted event with its key.
type keyed struct {
	key Key
	ev  Event
}

// acted is an event started (or found past its end) and its voice.
type acted struct {
	key   Key
	voice mix.Voice
}

// tickEvents is one tick's events: those its last run emitted, and those
// acted on.
type tickEvents struct {
	tick       uint64
	emitted    []keyed
	acted      []acted
	reconciled bool // its events were acted on: a later run is a re-run
}

// Sounds holds a world's sound: the registered sounds, the events of the
// latest ticks and what was started for them. Make one with New.
type Sounds struct {
	e      *engine.Engine
	out    Output
	cfg    Config
	sounds []*decode.Sound // by ID-1; nil for a stream
	paths  []string        // by ID-1: a stream's file, "" for a sound
	ticks  [Window]tickEvents
	ran    []uint64 // the ticks run since the last reconcile, in order
	latest uint64   // the latest tick reconciled
	stats  Stats
	seen   []bool // scratch: the acted events a re-run matched

	loops        *engine.Component[Loop]
	music        *engine.Resource[Music]
	playingLoops []playingLoop
	playingMusic Music
	musicVoice   mix.Voice

	listener     Listener
	haveListener bool
	spatial      []spatialVoice // the spatial voices playing
}

// New returns the sound of e, played through out (nil: nothing plays,
// as on a server, until SetOutput): it registers the Loop
// component ("sound.loop") and the Music resource ("sound.music") with
// e's world (call it at set-up, before the first tick, as every
// component's registration), adds StageSound before engine.StageInput,
// and the Render system "sound" that reconciles the events, the loops and
// the music each frame. It returns an error for a bad cfg, or when e has
// a stage named StageSound already.
func New(e *engine.Engine, out Output, cfg Config) (*Sounds, error) {
	if !(cfg.FadeOut > 0 && cfg.FadeOut <= 1) {
		return nil, fmt.Errorf("sound: a fade-out of %v s, want above 0 and at most 1", cfg.FadeOut)
	}
	if err := cfg.Rolloff.Validate(); err != nil {
		return nil, err
	}
	s := &Sounds{e: e, out: out, cfg: cfg}
	s.loops = engine.NewComponent[Loop](e.World, "sound.loop")
	s.music = engine.NewResource(e.World, "sound.music", Music{})
	if err := e.AddStage(StageSound, engine.Before(engine.StageInput)); err != nil {
		return nil, fmt.Errorf("sound: %w", err)
	}
	if err := e.AddSystem(StageSound, "sound.begin", s.begin); err != nil {
		return nil, fmt.Errorf("sound: %w", err)
	}
	e.AddRender("sound", s.Reconcile)
	return s, nil
}

// SetOutput makes out play the sounds from the next Reconcile on (nil:
// nothing). The world's loops and music start on it as far in as the
// time since their Start; events already started stay where they were.
func (s *Sounds) SetOutput(out Output) {
	if s.out != nil {
		for _, p := range s.playingLoops {
			s.out.Stop(p.voice, s.cfg.FadeOut)
		}
		if s.playingMusic.Track != 0 {
			s.out.Stop(s.musicVoice, s.cfg.FadeOut)
		}
	}
	s.out = out
	s.playingLoops, s.playingMusic, s.musicVoice, s.spatial = s.playingLoops[:0], Music{}, mix.Voice{}, s.spatial[:0]
}

// Register adds snd and returns its ID. Every peer of a match registers
// the same sounds in the same order.
func (s *Sounds) Register(snd *decode.Sound) ID {
	if snd == nil || len(s.sounds) >= math.MaxUint16 {
		panic("sound: Register: a nil sound, or more than 65,535")
	}
	s.sounds = append(s.sounds, snd)
	s.paths = append(s.paths, "")
	return ID(len(s.sounds))
}

// RegisterStream adds the sound file at path (WAV or Ogg Vorbis), to be
// streamed from the file each time it plays rather than held decoded,
// and returns its ID: music, for Music.Track (or a Loop's Sound; an Event
// cannot name it). It opens the file and reads its headers to check it,
// returning the error when that fails. Every peer of a match registers
// the same sounds and streams in the same order.
func (s *Sounds) RegisterStream(path string) (ID, error) {
	if len(s.sounds) >= math.MaxUint16 {
		return 0, fmt.Errorf("sound: RegisterStream %s: 65,535 sounds are registered", path)
	}
	if err := checkStream(path); err != nil {
		return 0, fmt.Errorf("sound: RegisterStream: %w", err)
	}
	s.sounds = append(s.sounds, nil)
	s.paths = append(s.paths, path)
	return ID(len(s.sounds)), nil
}

// StreamFrom makes the registered sound id stream from the file at path
// each time it plays, in place of what it was registered with: a player
// hears a track of their own from disk while the match's peers, which
// registered the same IDs, keep theirs. It checks the file as
// RegisterStream does. Events that name id still need its samples: use it
// for music and loops.
func (s *Sounds) StreamFrom(id ID, path string) error {
	if id == 0 || int(id) > len(s.sounds) {
		return fmt.Errorf("sound: StreamFrom %s: sound %d is not registered (%d are)", path, id, len(s.sounds))
	}
	if err := checkStream(path); err != nil {
		return fmt.Errorf("sound: StreamFrom: %w", err)
	}
	s.sounds[id-1], s.paths[id-1] = nil, path
	return nil
}

// checkStream opens the file at path as a stream, reading its headers,
// and closes it again.
func checkStream(path string) error {
	st, err := decode.OpenStream(path)
	if err != nil {
		return err
	}
	return st.Close()
}

// StreamPath returns the file of the stream registered as id, or "".
func (s *Sounds) StreamPath(id ID) string {
	if id == 0 || int(id) > len(s.paths) {
		return ""
	}
	return s.paths[id-1]
}

// playID plays the sound or the stream registered as id with p; ok is
// false when id names neither (nothing is played).
func (s *Sounds) playID(id ID, p mix.Params) (v mix.Voice, ok bool, err error) {
	if snd := s.Sound(id); snd != nil {
		v, err := s.out.Play(snd, p)
		return v, true, err
	}
	path := s.StreamPath(id)
	if path == "" {
		return mix.Voice{}, false, nil
	}
	st, err := decode.OpenStream(path)
	if err != nil {
		return mix.Voice{}, true, err
	}
	v, err = s.out.PlayStream(st, p)
	return v, true, err
}

// Sound returns the sound registered as id, or nil (for a stream too).
func (s *Sounds) Sound(id ID) *decode.Sound {
	if id == 0 || int(id) > len(s.sounds) {
		return nil
	}
	return s.sounds[id-1]
}

// Stats returns what reconciling did.
func (s *Sounds) Stats() Stats { return s.stats }

// begin is StageSound's system: the tick's list of events starts empty.
func (s *Sounds) begin(c *engine.FixedContext) {
	t := &s.ticks[c.Tick%Window]
	if t.tick != c.Tick {
		*t = tickEvents{tick: c.Tick, emitted: t.emitted[:0], acted: t.acted[:0]}
	}
	t.emitted = t.emitted[:0]
	s.ran = append(s.ran, c.Tick)
}

// Emit records ev as happening at c's tick. Call it from fixed systems
// only (at StageSound or later); it never touches the output. It panics
// on a sound that is not registered.
func (s *Sounds) Emit(c *engine.FixedContext, ev Event) {
	if s.Sound(ev.Sound) == nil {
		panic(fmt.Sprintf("sound: Emit: sound %d is not registered (%d are), or is a stream (RegisterStream: for Music and Loop only)", ev.Sound, len(s.sounds)))
	}
	t := &s.ticks[c.Tick%Window]
	if t.tick != c.Tick {
		panic(fmt.Sprintf("sound: Emit at tick %d from a stage before %q", c.Tick, StageSound))
	}
	k := Key{Tick: c.Tick, Entity: ev.Entity, Sound: ev.Sound}
	for _, e := range t.emitted {
		if e.key.Entity == ev.Entity && e.key.Sound == ev.Sound {
			k.Order++
		}
	}
	t.emitted = append(t.emitted, keyed{key: k, ev: ev})
}

// Events returns the events the last run of tick emitted (nil when the
// tick is not among the latest Window), in the order emitted.
func (s *Sounds) Events(tick uint64) []Event {
	t := &s.ticks[tick%Window]
	if t.tick != tick {
		return nil
	}
	out := make([]Event, len(t.emitted))
	for i, e := range t.emitted {
		out[i] = e.ev
	}
	return out
}

// Reconcile acts on the events of the ticks run since it last ran (the
// Render system New adds; call it yourself only for an engine stepped by
// hand). The world's current tick dates the late events: an event of
// tick T found in a re-run starts (current tick − T) ticks into its sound.
//
// It also places the spatial sounds playing where their entities are
// drawn in c.Render (SetListener).
func (s *Sounds) Reconcile(c *engine.FrameContext) {
	now := c.World.Tick()
	dt := 1 / float64(s.e.TickRate())
	for k, tick := range s.ran {
		s.latest = max(s.latest, tick)
		if slices.Contains(s.ran[:k], tick) {
			continue // ran twice since the last reconcile: its last run counts
		}
		t := &s.ticks[tick%Window]
		if t.tick != tick {
			continue // overwritten by a tick Window later
		}
		if !t.reconciled {
			for _, e := range t.emitted {
				s.start(c, t, e, 0, false)
			}
			t.reconciled = true
			continue
		}
		s.rerun(c, t, float64(now-min(now, tick))*dt)
	}
	s.ran = s.ran[:0]
	if now < s.latest {
		s.undo(now)
	}
	s.reconcileState(c)
	s.placeVoices(c.World, c.Render)
}

// undo fades out the events of the ticks after now: the world went back
// to now (a state restored, a match ending on its last confirmed tick)
// and they have not happened, or not yet. Should they run again, their
// events start as new ones of a re-run, late by the time since their
// tick.
func (s *Sounds) undo(now uint64) {
	for tick := s.latest; tick > now && s.latest-tick < Window; tick-- {
		t := &s.ticks[tick%Window]
		if t.tick != tick {
			continue
		}
		for _, a := range t.acted {
			s.fade(a)
		}
		t.acted = t.acted[:0]
	}
	s.latest = now
}

// rerun reconciles a tick that ran again with what its earlier runs
// started; late is the time since the tick, seconds.
func (s *Sounds) rerun(c *engine.FrameContext, t *tickEvents, late float64) {
	s.seen = s.seen[:0]
	for range t.acted {
		s.seen = append(s.seen, false)
	}
	for _, e := range t.emitted {
		found := -1
		for i, a := range t.acted {
			if !s.seen[i] && a.key == e.key {
				found = i
				break
			}
		}
		if found >= 0 {
			s.seen[found] = true
			s.stats.Kept++
			continue
		}
		s.start(c, t, e, late, true)
		s.seen = append(s.seen, true)
	}
	kept := t.acted[:0]
	for i, a := range t.acted {
		if s.seen[i] {
			kept = append(kept, a)
			continue
		}
		s.fade(a)
	}
	t.acted = kept
}

// fade fades out the voice of an event that no longer happened.
func (s *Sounds) fade(a acted) {
	if s.out != nil && s.out.Playing(a.voice) {
		s.out.Stop(a.voice, s.cfg.FadeOut)
	}
	s.stats.Faded++
}

// start plays e (of tick t) from offset seconds in, placed as drawn in
// c's frame; late says it is new in a re-run.
func (s *Sounds) start(c *engine.FrameContext, t *tickEvents, e keyed, offset float64, late bool) {
	snd := s.Sound(e.ev.Sound)
	vol, pitch := e.ev.Volume, e.ev.Pitch
	if vol == 0 {
		vol = 1
	}
	if pitch == 0 {
		pitch = 1
	}
	start := offset * float64(pitch)
	if start >= snd.Duration().Seconds() {
		s.stats.Missed++
		t.acted = append(t.acted, acted{key: e.key}) // known, nothing to play
		return
	}
	gain, pan := float32(1), float32(0)
	if e.ev.Spatial {
		gain, pan = s.place(e.ev.Entity, e.ev.Pos, c.World, c.Render)
	}
	var v mix.Voice
	var err error
	if s.out != nil {
		v, err = s.out.Play(snd, mix.Params{Bus: e.ev.Bus, Volume: min(vol*gain, 4), Pan: pan, Pitch: pitch, Start: start})
	}
	if err != nil {
		s.stats.Failed++
	} else if e.ev.Spatial && s.out != nil {
		s.spatial = append(s.spatial, spatialVoice{voice: v, entity: e.ev.Entity, pos: e.ev.Pos, volume: vol})
	}
	t.acted = append(t.acted, acted{key: e.key, voice: v})
	if late {
		s.stats.Late++
	} else {
		s.stats.Started++
	}
}
