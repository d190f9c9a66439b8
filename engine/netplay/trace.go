package netplay

import "time"

// ServerTrace receives a server's events as they happen, for an
// operator's metrics (package net/http/httptrace has the same shape).
// Every field is optional: a nil function is not called. The functions
// are called from the server's goroutines, several at once, so they must
// be safe for concurrent use, and quick: the match waits for them.
type ServerTrace struct {
	// TickConfirmed is called once a tick has been confirmed, simulated
	// and queued to every client; took is the server's time for it (the
	// time Report.TickTime measures).
	TickConfirmed func(tick uint64, took time.Duration)
	// PlayersChanged is called when a player or spectator is let in or
	// leaves, with the counts after the change; at the match's end, once
	// every connection is closed, with 0 and 0.
	PlayersChanged func(players, spectators int)
	// Resumed is called once, by ResumeServer as it makes a server that
	// continues a match, with the tick it continues from: the last tick
	// confirmed, by the server before it. TickConfirmed follows from the
	// next tick, once the server serves.
	Resumed func(tick uint64)
	// BytesRead and BytesWritten are called with the bytes of each read
	// from and each write to a client's connection (messages with their
	// framing; over UDP, the stream the packets carry).
	BytesRead, BytesWritten func(n int)
	// HandshakeRefused is called when a connection is refused before it
	// joins the match, with a short fixed reason ("full", "token-expired",
	// ...) fit for a metric's label. It is called before the refusal
	// goes out: a client that has its refusal finds the call made.
	HandshakeRefused func(reason string)
	// Resync is called when the server sends a client a snapshot after
	// the client's hash differed from the server's.
	Resync func()
	// Desync is called for every client hash that differs from the
	// server's.
	Desync func()
	// LogWritten is called after each write of the match log, with the
	// time the write (and its fsync, when it had one) took.
	LogWritten func(took time.Duration, synced bool)
}

// The server calls its trace through these, which do nothing for a nil
// trace or a nil field.

func (t *ServerTrace) tickConfirmed(tick uint64, took time.Duration) {
	if t != nil && t.TickConfirmed != nil {
		t.TickConfirmed(tick, took)
	}
}

func (t *ServerTrace) resumed(tick uint64) {
	if t != nil && t.Resumed != nil {
		t.Resumed(tick)
	}
}

// bytesRead and bytesWritten return the trace's function, or nil.
func (t *ServerTrace) bytesRead() func(int) {
	if t == nil {
		return nil
	}
	return t.BytesRead
}

func (t *ServerTrace) bytesWritten() func(int) {
	if t == nil {
		return nil
	}
	return t.BytesWritten
}

func (t *ServerTrace) resync() {
	if t != nil && t.Resync != nil {
		t.Resync()
	}
}

func (t *ServerTrace) desync() {
	if t != nil && t.Desync != nil {
		t.Desync()
	}
}
