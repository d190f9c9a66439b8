package timing

import (
	"fmt"
	"time"
)

// Defaults and limits of a Loop's configuration. They live here and nowhere
// else; DefaultConfig returns them as a Config.
const (
	// DefaultTickRate is the fixed simulation rate in ticks per second.
	DefaultTickRate = 60
	// MinTickRate and MaxTickRate bound the tick rate a Loop accepts.
	MinTickRate = 1
	MaxTickRate = 1000
	// DefaultMaxFrameTime is the longest frame interval fed to the
	// accumulator; longer frames (a breakpoint, a dragged window, a stall)
	// are clamped to it, so the simulation slows down instead of spiralling.
	DefaultMaxFrameTime = 250 * time.Millisecond
	// MaxMaxFrameTime bounds MaxFrameTime so that the accumulator, which
	// counts nanoseconds times the tick rate, can never overflow.
	MaxMaxFrameTime = time.Hour
	// DefaultMaxStepsPerFrame is the most fixed ticks one frame may run.
	DefaultMaxStepsPerFrame = 5
)

// Config configures a Loop. Start from DefaultConfig and change what you
// need: the zero value is not valid (a tick rate of 0 is rejected).
type Config struct {
	// TickRate is the fixed simulation rate in Hz, an integer in
	// [MinTickRate, MaxTickRate]. Default 60.
	TickRate int
	// MaxFrameTime clamps each measured frame interval before it is added
	// to the accumulator. It must be in (0, MaxMaxFrameTime]. Default 250 ms.
	MaxFrameTime time.Duration
	// MaxStepsPerFrame caps the fixed ticks run in one frame; whole ticks
	// beyond it are dropped and counted. 0 means no cap. Default 5.
	MaxStepsPerFrame int
}

// DefaultConfig returns the default loop configuration: 60 Hz ticks, frames
// clamped to 250 ms, at most 5 ticks per frame.
func DefaultConfig() Config {
	return Config{
		TickRate:         DefaultTickRate,
		MaxFrameTime:     DefaultMaxFrameTime,
		MaxStepsPerFrame: DefaultMaxStepsPerFrame,
	}
}

// Validate reports the first field that is out of range, saying what is
// accepted.
func (c Config) Validate() error {
	if err := ValidateTickRate(c.TickRate); err != nil {
		return err
	}
	if c.MaxFrameTime <= 0 || c.MaxFrameTime > MaxMaxFrameTime {
		return fmt.Errorf("timing: max frame time must be in (0, %v], got %v", MaxMaxFrameTime, c.MaxFrameTime)
	}
	if c.MaxStepsPerFrame < 0 {
		return fmt.Errorf("timing: max steps per frame must be 0 (no cap) or positive, got %d", c.MaxStepsPerFrame)
	}
	return nil
}

// ValidateTickRate reports whether hz is an accepted tick rate.
func ValidateTickRate(hz int) error {
	if hz < MinTickRate || hz > MaxTickRate {
		return fmt.Errorf("timing: tick rate must be an integer from %d to %d Hz, got %d", MinTickRate, MaxTickRate, hz)
	}
	return nil
}
