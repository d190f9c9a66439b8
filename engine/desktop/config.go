package desktop

import (
	"fmt"
	"math"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/sirupsen/logrus"

	"github.com/nebulaengine/nebula/engine/desktop/internal/pause"
	"github.com/nebulaengine/nebula/engine/diag"
	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/engine/sound/mix"
	"github.com/nebulaengine/nebula/gfx"
	"github.com/nebulaengine/nebula/internal/platform"
	"github.com/nebulaengine/nebula/timing"
)

// Defaults and fixed intervals of the runner, in one place.
const (
	// DefaultFPS is the default render rate cap, in frames per second.
	DefaultFPS = timing.DefaultRenderRate
	// SuspendedWait is how long the loop sleeps in the window system's
	// event wait, at most, while the window is minimised or 0x0, before it
	// looks at Quit, Duration and the window again. Events (a restore, a
	// close, Quit) end the wait early.
	SuspendedWait = 100 * time.Millisecond
	// OverlayRefresh is how often the diagnostics overlay's figures and
	// graphs are laid out anew, at most; the frames between draw the last
	// panel again. Thirty times a second keeps the figures readable and the
	// graph moving, and spares a software rasteriser an upload per frame.
	OverlayRefresh = time.Second / 30
)

// DefaultClearColor is the background colour of DefaultConfig: a dark
// blue-grey.
var DefaultClearColor = [4]float32{0.08, 0.09, 0.12, 1}

// DefaultCamera returns the camera of DefaultConfig: 60 degrees of vertical
// field of view, 25 units from the origin, slightly above it, looking at
// it.
func DefaultCamera() gfx.Camera {
	return gfx.Camera{
		Eye:    mgl32.Vec3{0, 8, 24},
		Target: mgl32.Vec3{0, 0, 0},
		Up:     mgl32.Vec3{0, 1, 0},
		FovY:   math.Pi / 3,
		Near:   0.1,
		Far:    500,
	}
}

// Config configures a Runner. Start from DefaultConfig.
type Config struct {
	// Window is the window to open (size, title, fullscreen, vsync).
	Window platform.Config
	// FPS caps the render rate in frames per second, with or without
	// vsync; 0 means uncapped. Default 144.
	FPS float64
	// PauseWhenUnfocused pauses the simulation while the window does not
	// have the input focus. A minimised window always pauses it. Default
	// off: a window that is watched but not typed into keeps running, as it
	// must under a test display without a window manager, where windows
	// often never get the focus.
	PauseWhenUnfocused bool
	// Frames stops Run after this many rendered frames (0 = no limit).
	Frames uint64
	// Duration stops Run after this much wall time (0 = no limit).
	Duration time.Duration
	// Logger receives the runner's log entries, with fields; nil discards
	// them.
	Logger logrus.FieldLogger
	// OnFrame, if set, is called after every rendered frame (after the
	// swap, before the pacer's wait) with the loop's statistics, for
	// example to write a -stats CSV.
	OnFrame func(timing.Stats)
	// Camera and ClearColor are the Runner's initial Camera and ClearColor.
	Camera     gfx.Camera
	ClearColor [4]float32 // the background colour, RGBA in [0, 1]
	// Overlay shows the diagnostics overlay from the first frame
	// (SetOverlay toggles it). Default off.
	Overlay bool
	// Input, if set, receives the window's device events (keys, buttons,
	// cursor, scroll, and the releases when the focus is lost) instead of
	// the engine's Input: a networked client sends its player's input to
	// the server, and the simulation sees it in the confirmed ticks.
	Input InputSink
	// Drawer draws each frame (see Drawer); nil draws the instances as
	// their meshes with the runner's gfx.Renderer.
	Drawer Drawer
	// InterpolateOnGPU places the entities between ticks on the GPU
	// (engine.Engine.SetInterpolationOnGPU, gfx.Renderer.DrawTicks): a
	// frame between ticks then costs the CPU nothing per entity. Default
	// off: the CPU places them (engine.World.Interpolate), the reference.
	// The GPU path poses animated models once a tick (package anim's and
	// package ragdoll's Render systems) and draws without render
	// corrections (see engine.World.InterpolateOnGPU).
	InterpolateOnGPU bool
	// OverlayText, if set, appends the game's own line to the overlay's
	// text, after the diagnostics (for example a score): it is called
	// with the text so far, which ends with a newline, whenever the
	// overlay is laid out, and returns it extended. Lines past gfx.OverlayTextLines, and characters past
	// gfx.OverlayTextColumns, are cut off; the diagnostics take 9 lines.
	OverlayText func(text []byte) []byte
	// Diagnostics holds the thresholds of the frame-time warnings; the
	// zero value means diag.DefaultConfig at the engine's tick rate,
	// rescaled whenever the tick rate changes.
	Diagnostics diag.Config
	// Sound, if set, is the game's mixer (the Output of package sound's
	// Sounds): the runner plays it through the machine's audio output
	// (package device) from New to Close. Where no output opens (no
	// audio server, or SoundDevice off) the runner logs why and mixes in
	// time with its frames, silently, so sounds still start and end and
	// the game goes on. The figures' Sound (diag.Figures) counts its
	// voices and underruns; the overlay and the statistics CSV show them.
	Sound *mix.Mixer
	// SoundDevice opens the audio output for Sound. DefaultConfig turns
	// it on; off, Sound runs silently (a test, a recording).
	SoundDevice bool
	// DiagnosticsOff starts the runner without its diagnostics layer (no
	// phase timing, GPU timer, monitor or overlay; see
	// Runner.SetDiagnostics). Default off: the diagnostics are on.
	DiagnosticsOff bool
}

// DefaultConfig returns a visible 1280x720 window without vsync, frames
// capped at 144 per second, the simulation paused only while the window is
// minimised, no frame or time limit, DefaultCamera and DefaultClearColor,
// and the audio output opened for a Sound mixer.
func DefaultConfig() Config {
	return Config{
		Window:      platform.DefaultConfig(),
		FPS:         DefaultFPS,
		Camera:      DefaultCamera(),
		ClearColor:  DefaultClearColor,
		SoundDevice: true,
	}
}

// Validate reports the first field out of range, saying what is accepted.
// The window's fields are checked when it is opened.
func (c Config) Validate() error {
	if err := timing.ValidateRenderRate(c.FPS); err != nil {
		return fmt.Errorf("desktop: %w", err)
	}
	if c.Duration < 0 {
		return fmt.Errorf("desktop: duration must be 0 (no limit) or positive, got %v", c.Duration)
	}
	if err := validateCamera(c.Camera); err != nil {
		return err
	}
	if c.Diagnostics != (diag.Config{}) {
		if err := c.Diagnostics.Validate(); err != nil {
			return fmt.Errorf("desktop: %w", err)
		}
	}
	return nil
}

// validateCamera checks what gfx would otherwise panic on in the middle of
// a frame.
func validateCamera(c gfx.Camera) error {
	if !(c.FovY > 0 && c.FovY < math.Pi) {
		return fmt.Errorf("desktop: camera FovY must be in (0, π) radians, got %v", c.FovY)
	}
	if !(c.Near > 0 && c.Far > c.Near) {
		return fmt.Errorf("desktop: camera planes must satisfy 0 < Near < Far, got Near %v, Far %v", c.Near, c.Far)
	}
	if c.Eye == c.Target {
		return fmt.Errorf("desktop: camera Eye and Target are the same point %v", c.Eye)
	}
	return nil
}

// keyHook is the type of SetOnKey's hook, named for the fields that hold it.
type keyHook = func(key input.Key, pressed, repeat bool)

// InputSink receives a window's device events (Config.Input). An
// *input.Queue is one; so is a networked client's local input.
type InputSink = pause.InputSink
