package diag

import (
	"time"

	"github.com/nebulaengine/nebula/timing"
)

// Figures is one frame's figures. The windowed runner fills one Figures every
// frame (it is a plain value: filling it does not allocate) and hands it to
// Monitor.Observe, CSV.Write and AppendText.
type Figures struct {
	// Loop is the loop's statistics after this frame's Loop.Tick: interval,
	// steps, alpha, rolling FPS and UPS, debt, and the running counts of
	// clamped and capped frames and of dropped time.
	Loop timing.Stats

	// FixedCPU, UpdateCPU and RenderCPU are the time this frame spent in the
	// fixed systems (all of its ticks together), the update systems and
	// rendering (interpolation, render systems and submitting the draw).
	FixedCPU, UpdateCPU, RenderCPU time.Duration

	// GPU is the GPU time of a recent frame: GPU timer queries answer a few
	// frames late. GPUValid reports whether GPU holds a measurement at all.
	GPU      time.Duration
	GPUValid bool // whether GPU holds a measurement

	// Snaps is the number of entities drawn at their new place this frame
	// instead of interpolated (teleports), and TotalSnaps the running count.
	Snaps      int
	TotalSnaps int // teleport snaps so far

	// Entities is the number of live entities (World.Len).
	Entities int

	// DrawCalls is the number of draw calls the frame's scene took and
	// Triangles the triangles they submitted: the windowed runner's
	// gfx.Renderer's figures (gfx.Stats) for its last Draw of the frame.
	// The overlay, the game's text and lines a Drawer draws itself are
	// not counted. Drawn reports whether they were counted: true in a
	// windowed run with the diagnostics on, false in a headless run, which
	// draws nothing (the CSV then leaves both empty).
	DrawCalls, Triangles int
	Drawn                bool // DrawCalls and Triangles were counted

	// Instances is the number of instances the frame's scene drew, and
	// Culled the number it left out as out of view or wholly transparent
	// (gfx.Stats.Instances and Culled); counted when Drawn is.
	Instances, Culled int

	// GPUMemory is the GPU memory in use: the driver's figures where it
	// offers a memory extension, and always the bytes the engine's own
	// buffers and textures hold. A windowed run with the diagnostics on
	// fills it; elsewhere its Source is GPUMemoryNone.
	GPUMemory GPUMemory

	// HeapInUse is the bytes in in-use heap spans (runtime.MemStats.HeapInuse)
	// and GCCycles the number of completed GC cycles. Monitor.Observe fills
	// both.
	HeapInUse uint64
	GCCycles  uint64 // completed GC cycles

	// Sound is what the game's mixer and audio device did: a windowed
	// runner with a mixer (desktop.Config.Sound) fills it.
	Sound Sound
}

// Sound is the figures of a game's sound.
type Sound struct {
	// On reports whether the game has a mixer; the other fields are
	// counted only then.
	On bool
	// Device reports whether an audio device plays the mix. Without one
	// (no audio output, or none asked for) the mix runs silently, in time
	// with the frames, so that sounds still start and end.
	Device bool
	// Voices is the number of voices playing.
	Voices int
	// Underruns counts, so far, the times the device ran dry (heard as a
	// gap) and the times a streamed voice's decoding fell behind (heard
	// as silence in that voice).
	Underruns uint64
}
