package desktop

import (
	"fmt"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/diag"
	"github.com/nebulaengine/nebula/gfx"
	"github.com/nebulaengine/nebula/timing"
)

// diagnostics is the runner's diagnostics layer: the monitor that keeps and
// judges each frame's figures, the GPU timer, and the overlay with the
// buffers it is laid out from. It exists only while the diagnostics are on
// (the Runner holds nil otherwise), and its overlay only once it has been
// shown. It owns GL objects: it is made and deleted with the runner's
// context current.
type diagnostics struct {
	monitor *diag.Monitor
	// rate is the tick rate the default thresholds were scaled to; 0 when
	// the caller chose the thresholds (Config.Diagnostics).
	rate int
	gpu  *gfx.GPUTimer // nil when the driver has no usable timer query
	// counter is the context's GPU memory count, which the overlay adds
	// to and mem reads.
	counter *gfx.MemoryCounter
	mem     *gfx.MemoryMeter

	overlay     *gfx.Overlay // nil until the overlay is first shown
	overlayText func([]byte) []byte
	overlayAt   time.Duration // when the panel was last laid out; -1 = never
	panel       gfx.OverlayPanel
	marks       [2]float32
	hist        [diag.StepsBuckets]uint64

	start time.Duration // when the frame's drawing began (begin)
}

// newDiagnostics makes the layer for a runner of e: cfg's thresholds, or
// the defaults at e's tick rate when cfg is the zero Config; counter is
// the runner's context's GPU memory count.
func newDiagnostics(e *engine.Engine, cfg diag.Config, counter *gfx.MemoryCounter, overlayText func([]byte) []byte, log logrus.FieldLogger) (*diagnostics, error) {
	rate := 0
	if cfg == (diag.Config{}) {
		rate = e.Loop.TickRate()
		cfg = diag.DefaultConfig(rate)
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("desktop: %w", err)
	}
	// A driver without a usable GL_TIME_ELAPSED counter only loses the
	// GPU figure.
	gpu, err := gfx.NewGPUTimer()
	if err != nil {
		log.WithError(err).Warn("no GPU timing")
		gpu = nil
	}
	d := &diagnostics{
		monitor:     diag.NewMonitor(cfg, log),
		rate:        rate,
		gpu:         gpu,
		counter:     counter,
		mem:         gfx.NewMemoryMeter(counter),
		overlayText: overlayText,
		overlayAt:   -1,
	}
	d.panel.Text = make([]byte, 0, 512)
	d.panel.Graph = make([]float32, 0, diag.RecentFrames)
	d.panel.Marks = d.marks[:0]
	return d, nil
}

// showOverlay makes the overlay the first time it is shown, and lays it out
// afresh on the next frame.
func (d *diagnostics) showOverlay() error {
	d.overlayAt = -1
	if d.overlay != nil {
		return nil
	}
	o, err := gfx.NewOverlay(d.counter)
	if err != nil {
		return fmt.Errorf("desktop: %w", err)
	}
	d.overlay = o
	return nil
}

// begin starts timing the frame's drawing, on the CPU at now and on the GPU.
func (d *diagnostics) begin(now time.Duration) {
	d.start = now
	if d.gpu != nil {
		d.gpu.Begin()
	}
}

// end stops the GPU timer; call it after the last draw, before the swap.
func (d *diagnostics) end() {
	if d.gpu != nil {
		d.gpu.End()
	}
}

// observe completes the frame's figures f (whose Loop is set) once the
// frame is swapped at now, drawn with the renderer's statistics drawn,
// and hands them to the monitor. The default thresholds follow the tick
// rate when it changes.
func (d *diagnostics) observe(e *engine.Engine, drawn gfx.Stats, f *diag.Figures, frameStart, now time.Duration) {
	ph := e.PhaseTimes()
	f.FixedCPU, f.UpdateCPU = ph.Fixed, ph.Update
	f.RenderCPU = ph.Render + (now - d.start)
	f.GPU, f.GPUValid = 0, false
	if d.gpu != nil {
		f.GPU, f.GPUValid = d.gpu.Latest()
	}
	f.Snaps, f.TotalSnaps = e.Render.Snaps, int(e.Render.TotalSnaps)
	f.Entities = e.World.Len()
	f.DrawCalls, f.Triangles, f.Drawn = drawn.DrawCalls, drawn.Triangles, true
	f.Instances, f.Culled = drawn.Instances, drawn.Culled
	m := d.mem.Read()
	f.GPUMemory = diag.GPUMemory{Source: memorySource[m.Source], Own: uint64(max(m.Own, 0)), Used: uint64(m.Used), Free: uint64(m.Free)}
	if rate := e.Loop.TickRate(); d.rate != 0 && rate != d.rate {
		d.rate = rate
		_ = d.monitor.SetConfig(diag.DefaultConfig(rate)) // valid for any rate the loop accepts
	}
	d.monitor.Observe(frameStart, f)
}

// drawOverlay draws the overlay over the frame of size w x h started at
// now: the previous frame's figures (this frame's are not complete before
// the swap), the last frame intervals against the render target (fps, 0
// when uncapped) and the tick, and the steps-per-frame histogram. It lays
// the panel out at most every OverlayRefresh and draws the last one again
// in between.
func (d *diagnostics) drawOverlay(w, h int, now time.Duration, fps float64, tickRate int) {
	if d.overlayAt >= 0 && now-d.overlayAt < OverlayRefresh {
		d.overlay.Redraw(w, h)
		return
	}
	d.overlayAt = now
	last := d.monitor.Last()
	p := &d.panel
	p.Text = diag.AppendText(p.Text[:0], &last)
	if d.overlayText != nil {
		p.Text = d.overlayText(append(p.Text, '\n'))
	}
	p.Graph = d.monitor.Intervals(p.Graph[:0])
	p.Marks = p.Marks[:0]
	if fps > 0 {
		p.Marks = append(p.Marks, float32(1000/fps))
	}
	p.Marks = append(p.Marks, float32(1000/float64(tickRate)))
	d.hist = d.monitor.StepsHistogram()
	p.Histogram = d.hist[:]
	d.overlay.Draw(w, h, p)
}

// memorySource is diag's name for each gfx.MemorySource.
var memorySource = [...]diag.GPUMemorySource{
	gfx.MemoryOwn: diag.GPUMemoryOwn,
	gfx.MemoryNVX: diag.GPUMemoryNVX,
	gfx.MemoryATI: diag.GPUMemoryATI,
}

// delete deletes the layer's GL objects.
func (d *diagnostics) delete() {
	if d.gpu != nil {
		d.gpu.Delete()
	}
	if d.overlay != nil {
		d.overlay.Delete()
	}
}

// loopOnly sets f to the loop's statistics alone, as a frame without
// diagnostics has them.
func loopOnly(f *diag.Figures, s timing.Stats) { *f = diag.Figures{Loop: s} }
