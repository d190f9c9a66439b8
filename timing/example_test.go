package timing_test

import (
	"fmt"
	"time"

	"github.com/nebulaengine/nebula/timing"
)

// A loop driven by invented frame times: a 144 Hz display and a 60 Hz
// simulation. A real game reads the time from a MonotonicClock and waits on
// a Pacer between frames.
func ExampleLoop() {
	loop, err := timing.NewLoop(timing.DefaultConfig()) // 60 Hz, 250 ms clamp, 5 steps
	if err != nil {
		panic(err)
	}
	var x, prevX float64 // a body moving at 2 units per second
	fixed := func(s timing.Step) {
		prevX = x // save the previous state before every tick
		x += 2 * s.DT
	}
	var drawn float64
	render := func(alpha float64) {
		drawn = prevX + (x-prevX)*alpha // draw between the last two ticks
	}

	for frame := int64(0); frame <= 144; frame++ { // one second of frames
		now := time.Duration(frame * int64(time.Second) / 144)
		loop.Tick(now, fixed, render)
	}
	s := loop.Stats()
	// Drawing between the last two ticks shows the world one tick behind
	// the simulation: at alpha 0 it is the state of tick 59, x = 59/60*2.
	fmt.Printf("ticks %d, sim time %v, x drawn at %.3f\n", loop.Ticks(), loop.SimTime(), drawn)
	fmt.Printf("%.0f FPS, %.0f UPS\n", s.FPS, s.UPS)
	// Output:
	// ticks 60, sim time 1s, x drawn at 1.967
	// 144 FPS, 60 UPS
}

// A pacer on the real clock holds frames to 144 per second.
func ExamplePacer() {
	clock := timing.NewMonotonicClock()
	pacer, err := timing.NewPacer(clock, 144)
	if err != nil {
		panic(err)
	}
	loop := timing.MustNewLoop(timing.DefaultConfig())
	now := clock.Now()
	for range 72 { // half a second
		loop.Tick(now, nil, nil)
		now = pacer.Wait()
	}
	fmt.Println(loop.Frames(), "frames")
	// Output: 72 frames
}
