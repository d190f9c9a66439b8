// Package loopdiagram draws docs/loop-timing.svg: a real timing.Loop with
// the default configuration (60 Hz, 250 ms clamp, 5 steps per frame),
// driven by an invented sequence of frame times, drawn as a timing
// diagram. Regenerate the file with
//
//	go test ./internal/loopdiagram -update
//
// and the package's test fails while the committed file is stale.
package loopdiagram

import (
	"bytes"
	"fmt"
	"time"

	"github.com/nebulaengine/nebula/timing"
)

// Frames are the invented frame intervals: a 144 Hz display, one slow
// frame of 40 ms, more 144 Hz frames, a 300 ms stall (clamped to 250 ms,
// then capped at 5 ticks), and 144 Hz again.
func Frames() []time.Duration {
	const f144 = time.Second / 144
	var d []time.Duration
	for range 7 {
		d = append(d, f144)
	}
	d = append(d, 40*time.Millisecond)
	for range 6 {
		d = append(d, f144)
	}
	d = append(d, 300*time.Millisecond)
	for range 8 {
		d = append(d, f144)
	}
	return d
}

type tick struct {
	n   uint64
	due time.Duration
}

type frame struct {
	now      time.Duration
	alpha    float64
	ticks    []tick
	clamped  time.Duration // time the clamp dropped in this frame
	capped   uint64        // ticks the step cap dropped in this frame
	cappedAt time.Duration // time the cap dropped
}

// run drives a default Loop through Frames and records what each frame did.
func run() []frame {
	loop := timing.MustNewLoop(timing.DefaultConfig())
	var frames []frame
	var now time.Duration
	var cur *frame
	fixed := func(s timing.Step) { cur.ticks = append(cur.ticks, tick{s.Tick, s.Due}) }
	var prev timing.Stats
	step := func() {
		frames = append(frames, frame{now: now})
		cur = &frames[len(frames)-1]
		loop.Tick(now, fixed, nil)
		s := loop.Stats()
		cur.alpha = s.Alpha
		cur.clamped = s.ClampedTime - prev.ClampedTime
		cur.capped = s.CappedTicks - prev.CappedTicks
		cur.cappedAt = s.CappedTime - prev.CappedTime
		prev = s
	}
	step()
	for _, d := range Frames() {
		now += d
		step()
	}
	return frames
}

// Layout, in pixels.
const (
	pxPerMS  = 2.4
	left     = 90.0
	top      = 40.0
	laneTick = top + 70  // baseline of the ticks lane
	laneFrm  = top + 200 // baseline of the frames lane (alpha bars grow up)
	alphaH   = 60.0      // height of an alpha bar of 1
	axisY    = top + 250
	height   = axisY + 70
)

func x(t time.Duration) float64 { return left + float64(t)/float64(time.Millisecond)*pxPerMS }

// SVG returns the diagram.
func SVG() []byte {
	frames := run()
	end := frames[len(frames)-1].now
	width := x(end) + 40
	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...); b.WriteByte('\n') }
	p(`<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="sans-serif" font-size="11">`, width, height, width, height)
	p(`<rect width="100%%" height="100%%" fill="white"/>`)
	p(`<text x="%.0f" y="20" font-size="13" font-weight="bold">timing.Loop, default configuration (60 Hz ticks, 250 ms clamp, 5 steps per frame), invented frame times</text>`, left)
	// Lanes.
	p(`<text x="10" y="%.0f" font-weight="bold">ticks</text>`, laneTick+4)
	p(`<text x="10" y="%.0f" font-weight="bold">frames</text>`, laneFrm-alphaH/2)
	p(`<text x="10" y="%.0f">bar = alpha</text>`, laneFrm-alphaH/2+14)
	p(`<line x1="%.0f" y1="%.0f" x2="%.1f" y2="%.0f" stroke="#999"/>`, left, laneTick, x(end), laneTick)
	p(`<line x1="%.0f" y1="%.0f" x2="%.1f" y2="%.0f" stroke="#999"/>`, left, laneFrm, x(end), laneFrm)
	// Real-time axis, every 50 ms; the 60 Hz tick grid as faint lines.
	p(`<line x1="%.0f" y1="%.0f" x2="%.1f" y2="%.0f" stroke="black"/>`, left, axisY, x(end), axisY)
	for ms := time.Duration(0); ms <= end; ms += 50 * time.Millisecond {
		p(`<line x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" stroke="black"/>`, x(ms), axisY, x(ms), axisY+5)
		p(`<text x="%.1f" y="%.0f" text-anchor="middle">%d ms</text>`, x(ms), axisY+18, ms/time.Millisecond)
	}
	p(`<text x="10" y="%.0f">real time</text>`, axisY+4)
	for k := int64(0); ; k++ {
		t := time.Duration(k * int64(time.Second) / 60)
		if t > end {
			break
		}
		p(`<line x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" stroke="#ddd" stroke-dasharray="2,3"/>`, x(t), laneTick-20, x(t), axisY)
	}
	for i, f := range frames {
		fx := x(f.now)
		// The clamp and the cap: what this frame did not simulate.
		if f.clamped > 0 || f.capped > 0 {
			prev := frames[i-1].now
			from := prev + time.Duration(len(f.ticks))*time.Second/60
			p(`<rect x="%.1f" y="%.0f" width="%.1f" height="14" fill="#f3c7c7"/>`, x(from), laneTick-7, fx-x(from))
			p(`<text x="%.1f" y="%.0f" text-anchor="middle" fill="#a02020">%v frame: %v clamped, %d ticks run (cap), %d dropped (%v)</text>`,
				(x(prev)+fx)/2, laneTick-26, (f.now - prev).Round(time.Millisecond), f.clamped, len(f.ticks), f.capped, f.cappedAt.Round(time.Millisecond))
		}
		// Each tick at the time it became due, joined to the frame that ran it.
		for _, t := range f.ticks {
			tx := x(t.due)
			p(`<line x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" stroke="#3a6ea5" stroke-width="0.8"/>`, tx, laneTick, fx, laneFrm-alphaH-4)
			p(`<circle cx="%.1f" cy="%.0f" r="4" fill="#3a6ea5"/>`, tx, laneTick)
			p(`<text x="%.1f" y="%.0f" text-anchor="middle" font-size="9">%d</text>`, tx, laneTick+16, t.n)
		}
		// The frame: a mark at its start and its alpha as a bar.
		colour := "#555"
		if len(f.ticks) > 1 {
			colour = "#c07000"
		}
		p(`<line x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" stroke="%s"/>`, fx, laneFrm-alphaH-4, fx, laneFrm+4, colour)
		p(`<rect x="%.1f" y="%.1f" width="5" height="%.1f" fill="%s"/>`, fx+1, laneFrm-f.alpha*alphaH, f.alpha*alphaH, colour)
		p(`<text transform="translate(%.1f %.0f) rotate(-90)" font-size="9">%.2f</text>`, fx+5, laneFrm+34, f.alpha)
	}
	p(`<text x="%.0f" y="%.0f" font-size="10">Dots: ticks, numbered, at the time each became due; the line goes to the frame that ran it. Frames with more than one tick are orange.</text>`, left, height-22)
	p(`<text x="%.0f" y="%.0f" font-size="10">Each frame renders once with alpha, the fraction of a tick left in the accumulator: entities are drawn alpha of the way from their state before the last tick to their state after it.</text>`, left, height-8)
	p(`</svg>`)
	return b.Bytes()
}
