package timing

import "fmt"

// Power is a power mode: a preset of the tick rate and the render rate cap.
// Games and their command lines (-power) pick one; explicit rates given
// alongside a preset are the caller's to honour (Nebula's -tick-rate and
// -fps flags win over -power).
//
// PowerLow follows the "Mobile Optimization" of the fixed-timestep design
// this loop comes from: half the updates (30 Hz ticks, still under 34 ms of
// input latency) and half the drawing. Of its two ways to halve the
// drawing, "render every second frame" and "cap at 30 FPS", PowerLow caps:
// "every second frame" only means something against a display's refresh,
// and Nebula's frames are paced by its own clock (vsync is off by default,
// and a virtual display has no refresh at all), while a 30 Hz cap gives
// the same picture on a 60 Hz display with vsync and sleeps, rather than
// loops, between frames everywhere else.
//
// Its String is the mode's name, as ParsePower accepts it: "normal" or
// "low".
type Power uint8

//go:generate go run golang.org/x/tools/cmd/stringer@v0.52.0 -type=Power -linecomment

const (
	// PowerNormal is the default: DefaultTickRate (60 Hz) and
	// DefaultRenderRate (144 FPS).
	PowerNormal Power = iota // normal
	// PowerLow is LowPowerTickRate (30 Hz) and LowPowerRenderRate (30 FPS).
	PowerLow // low
)

// The rates of PowerLow, in one place.
const (
	// LowPowerTickRate is PowerLow's fixed simulation rate, in Hz.
	LowPowerTickRate = 30
	// LowPowerRenderRate is PowerLow's render rate cap, in frames per
	// second.
	LowPowerRenderRate = 30.0
)

// TickRate returns the mode's fixed simulation rate in Hz.
func (p Power) TickRate() int {
	if p == PowerLow {
		return LowPowerTickRate
	}
	return DefaultTickRate
}

// RenderRate returns the mode's render rate cap in frames per second.
func (p Power) RenderRate() float64 {
	if p == PowerLow {
		return LowPowerRenderRate
	}
	return DefaultRenderRate
}

// ParsePower returns the mode named s: "normal" or "low".
func ParsePower(s string) (Power, error) {
	switch s {
	case "normal":
		return PowerNormal, nil
	case "low":
		return PowerLow, nil
	}
	return PowerNormal, fmt.Errorf("timing: power mode must be normal or low, got %q", s)
}
