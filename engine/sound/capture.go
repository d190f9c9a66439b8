package sound

import (
	"slices"
	"time"

	"github.com/nebulaengine/nebula/engine/sound/decode"
	"github.com/nebulaengine/nebula/engine/sound/mix"
)

// Capture renders a run's mix without a device, tick by tick: a headless
// run calls Tick after each tick's Reconcile, and Tick mixes that tick's
// share of frames (by tick n, exactly n·rate/tickRate frames in all). The
// mixer being exact, the same run renders the same samples, bit for bit:
// a recording's sound can be checked like its hash.
type Capture struct {
	m        *mix.Mixer
	tickRate int
	ticks    uint64
	samples  []float32 // interleaved stereo
}

// NewCapture returns a capture of m's mix at tickRate ticks a second.
func NewCapture(m *mix.Mixer, tickRate int) *Capture {
	return &Capture{m: m, tickRate: tickRate}
}

// Tick mixes the next tick's frames, after waiting for the mixer's
// streamed music to fill its rings (mix.Mixer.Buffered), so that a
// capture with streams is exact too, however fast their files are read.
func (c *Capture) Tick() {
	for !c.m.Buffered() {
		time.Sleep(100 * time.Microsecond)
	}
	rate := uint64(c.m.Rate())
	tr := uint64(c.tickRate)
	from := c.ticks * rate / tr
	c.ticks++
	to := c.ticks * rate / tr
	n, k := len(c.samples), 2*int(to-from)
	c.samples = slices.Grow(c.samples, k)[:n+k] // Mix fills it
	c.m.Mix(c.samples[n:])
}

// Sound returns the mix so far.
func (c *Capture) Sound() *decode.Sound {
	return &decode.Sound{Name: "capture", Rate: c.m.Rate(), Channels: 2, Samples: c.samples}
}

// WAV returns the mix so far as a 16-bit WAV file (decode.EncodeWAV).
func (c *Capture) WAV() []byte { return decode.EncodeWAV(c.Sound()) }
