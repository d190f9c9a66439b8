package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/sirupsen/logrus"

	"github.com/nebulaengine/nebula/cmd/nebula-demo/scene"
	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/engine/sound"
	"github.com/nebulaengine/nebula/engine/sound/mix"
	"github.com/nebulaengine/nebula/gfx"
	"github.com/nebulaengine/nebula/internal/app"
)

// Sound keys: M mutes and unmutes, - and = lower and raise the volume.
const (
	keyMute       = input.KeyM
	keyVolumeDown = input.KeyMinus
	keyVolumeUp   = input.KeyEqual
	volumeStep    = 10 // per cent a key press
)

// demoSound is the demo's sound: the scene's events played through a
// mixer (which a window's runner plays), the volume and its keys.
type demoSound struct {
	sc     *scene.Scene
	m      *mix.Mixer
	volume int // per cent
	muted  bool
	log    logrus.FieldLogger
}

// newDemoSound gives the scene's sound a mixer.
func newDemoSound(sc *scene.Scene, muted bool, log logrus.FieldLogger) (*demoSound, error) {
	m, err := mix.New(scene.SoundRate)
	if err != nil {
		return nil, err
	}
	d := &demoSound{sc: sc, m: m, volume: 100, muted: muted, log: log}
	sc.Sounds.SetOutput(m)
	d.apply()
	return d, nil
}

// apply sets every bus to the volume, or to silence when muted, over a
// short fade.
func (d *demoSound) apply() {
	v := float32(d.volume) / 100
	if d.muted {
		v = 0
	}
	for b := range mix.Bus(mix.NumBuses) {
		_ = d.m.SetBus(b, v, 0.05) // in range by construction
	}
}

// key handles the sound's keys and reports whether k was one.
func (d *demoSound) key(k input.Key) bool {
	switch k {
	case keyMute:
		d.muted = !d.muted
	case keyVolumeDown:
		d.volume = max(d.volume-volumeStep, 0)
	case keyVolumeUp:
		d.volume = min(d.volume+volumeStep, 100)
	default:
		return false
	}
	d.apply()
	d.log.WithFields(logrus.Fields{"volume": d.volume, "muted": d.muted}).Info("sound volume")
	return true
}

// listen puts the listener at the camera (an Update system's work: the
// camera of the frame).
func (d *demoSound) listen(cam gfx.Camera) {
	d.sc.Sounds.SetListener(sound.Listener{Pos: cam.Eye, Forward: cam.Target.Sub(cam.Eye), Up: cam.Up})
}

// overlayLine appends the overlay's sound line: the volume, the voices
// playing and the events a rollback's re-simulation reconciled, with those
// it faded out and started late:
//
//	sound 80% 12v  reconciled 135 (9 faded, 4 late)
func (d *demoSound) overlayLine(b []byte) []byte {
	b = append(b, "sound "...)
	if d.muted {
		b = append(b, "muted"...)
	} else {
		b = strconv.AppendInt(b, int64(d.volume), 10)
		b = append(b, '%')
	}
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(d.m.Stats().Playing), 10)
	st := d.sc.Sounds.Stats()
	b = append(b, "v  reconciled "...)
	b = strconv.AppendUint(b, st.Reconciled(), 10)
	b = append(b, " ("...)
	b = strconv.AppendUint(b, st.Faded, 10)
	b = append(b, " faded, "...)
	b = strconv.AppendUint(b, st.Late, 10)
	return append(b, " late)"...)
}

// headlessSound reconciles the scene's sound at the end of every new
// tick of a headless run (a tick hook: the ticks a rollback runs again
// are reconciled at the next new tick, late by the time since theirs),
// and with wavPath renders the mix, tick by tick, to that WAV file when
// the run ends (written by the returned function, which also logs the
// events' counts). Reconciled a tick at a time, the mix is the same
// however the run's frames group its ticks.
func headlessSound(s *app.Process, e *engine.Engine, sc *scene.Scene, wavPath string) (finish func() error, err error) {
	h := &soundHook{sc: sc}
	if wavPath != "" {
		if h.m, err = mix.New(scene.SoundRate); err != nil {
			return nil, err
		}
		sc.Sounds.SetOutput(h.m)
		h.capture = sound.NewCapture(h.m, e.TickRate())
	}
	if _, err := e.AddTickHook(h); err != nil {
		return nil, err
	}
	return func() error {
		// The world as the run left it: a match ends on its last
		// confirmed tick, maybe after predicting past it.
		sc.Sounds.Reconcile(&engine.FrameContext{World: e.World})
		st := sc.Sounds.Stats()
		s.Log.WithFields(logrus.Fields{"started": st.Started, "kept": st.Kept, "faded": st.Faded, "late": st.Late,
			"missed": st.Missed, "failed": st.Failed, "events": st.Started + st.Late + st.Missed - st.Faded}).Info("sound")
		if h.capture == nil {
			return nil
		}
		h.m.Close() // the streams' readers
		if err := os.WriteFile(wavPath, h.capture.WAV(), 0o644); err != nil {
			return fmt.Errorf("-sound-wav: %w", err)
		}
		return nil
	}, nil
}

// soundHook is headlessSound's tick hook.
type soundHook struct {
	sc      *scene.Scene
	m       *mix.Mixer
	capture *sound.Capture
	last    uint64 // the latest tick reconciled
}

func (h *soundHook) PreTick()                                {}
func (h *soundHook) BeginTick(*engine.TickInfo)              {}
func (h *soundHook) JobApplied(uint64, engine.JobID, []byte) {}

// EndTick reconciles at the end of a tick run for the first time, and
// mixes its share of the sound.
func (h *soundHook) EndTick(tick uint64, w *engine.World) {
	if tick <= h.last {
		return // run again by a rollback: reconciled at the next new tick
	}
	h.last = tick
	h.sc.Sounds.Reconcile(&engine.FrameContext{World: w})
	if h.capture != nil {
		h.capture.Tick()
	}
}
