// Package input turns what a player's devices did into what one fixed tick
// sees, exactly, so that replays, rollback and the network carry input as
// plain values.
//
// The platform layer (internal/platform, for a window) translates device
// codes into Events (Key, MouseButton, cursor and wheel) stamped with the
// loop's clock and pushes them into a Queue; each fixed tick takes one
// Sample from the Queue with Advance, holding what was down at the end of
// the tick and what went down or up during it. A Sample is a fixed-size
// value with no pointers: it is copied, compared with ==, and written as
// SampleWords 64-bit words (Sample.Words) by recordings and the wire.
//
// A game reads Samples in its fixed systems (engine.FixedContext.Input,
// engine.Players.Input) and never the devices themselves: that is what
// makes a run a pure function of its inputs.
package input
