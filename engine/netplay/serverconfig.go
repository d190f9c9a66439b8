package netplay

import (
	"fmt"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nebulaengine/nebula/engine/netplay/token"
	"github.com/nebulaengine/nebula/engine/netplay/wire"
)

// ServerConfig describes a match and the limits of the server that runs
// it.
type ServerConfig struct {
	// Scene is the scene's id: a client running another is refused.
	Scene string
	// Params are the scene's parameters, sent to every client in its
	// Welcome (at most wire.MaxParams bytes), so that every peer builds
	// the identical world.
	Params []byte
	// Players is how many players must be in before the match starts at
	// tick 1 (at least 1). Later players join the running match.
	Players int
	// MaxPlayers caps the players in the match at once (Players to
	// wire.MaxPlayers).
	MaxPlayers int
	// MaxSpectators caps the spectators (0 or more).
	MaxSpectators int
	// Ticks ends the match at that tick (0: it runs until Close).
	Ticks uint64
	// InputDelay is the input delay, in ticks, the server advises its
	// clients in their Welcome (0 to 255): a client stamps the input it
	// samples for the tick its clock is at plus the delay.
	InputDelay int
	// Tolerance is how long past a tick's deadline the server waits for
	// a missing input before it substitutes the player's previous one.
	Tolerance time.Duration
	// StartDelay is the time between the moment the match starts (or a
	// player is let in) and the deadline of its first tick: the time a
	// client has to synchronise its clock before its inputs count.
	StartDelay time.Duration
	// SnapshotEvery, when above 0, makes the server keep a snapshot of
	// every SnapshotEvery-th tick and the confirmed ticks since: a late
	// joiner starts from the latest such snapshot and catches up through
	// the ticks since. 0: a joiner gets a snapshot of the tick it joins at.
	SnapshotEvery uint64
	// HandshakeTimeout bounds a connection's handshake: its preamble and
	// Hello must arrive within it.
	HandshakeTimeout time.Duration
	// IdleTimeout drops a connection that sends nothing for that long
	// (clients ping twice a second).
	IdleTimeout time.Duration
	// MaxPending caps the connections in their handshake at once; once
	// half of them are, one host (IP address) may have at most a quarter
	// of them (at least 1). More are closed at once.
	MaxPending int
	// MaxMessage caps a client's message (wire.MaxClientMessage if 0).
	MaxMessage int
	// OutboxLimit is the bytes a client may leave unread, beyond the
	// largest message queued to it (a snapshot), before it is dropped
	// (0: DefaultOutboxLimit).
	OutboxLimit int
	// ResyncEvery is the least time between two resynchronisations of a
	// client (a Desync and a snapshot) after hashes that differ from the
	// server's (0: DefaultResyncEvery). A wrong hash within it is counted
	// and logged (rate-limited), and answered with nothing.
	ResyncEvery time.Duration
	// DumpDir is the directory where the server writes its state dump
	// when a client's hash differs from its own ("" = no dumps).
	DumpDir string
	// MaxDumps caps the state dumps the server writes in a match, one per
	// desynchronised tick (0: DefaultMaxDumps).
	MaxDumps int
	// Log receives the server's log lines (nil: logrus's standard logger).
	Log logrus.FieldLogger
	// Trace, when not nil, receives the server's events for metrics.
	Trace *ServerTrace

	// TokenKey, when not nil, makes the server require a connect token
	// (package token) of MatchID sealed under it from every client: the
	// token's seat is the player's, and everything after the handshake
	// is sealed with the token's session keys (package seal). See
	// docs/multiplayer.md, "Connect tokens". Nil: anyone who reaches the
	// server may play, in clear.
	TokenKey *token.Key
	// MatchID is the match the server runs: a token for another is
	// refused (1 to token.MaxMatchID bytes; with TokenKey).
	MatchID string
	// SpectatorsWithoutToken, with TokenKey, lets a spectator in without
	// a token; its traffic is then in clear.
	SpectatorsWithoutToken bool
	// RejoinGrace is how long a player whose connection ended keeps its
	// seat: reconnecting with a token for that seat within it, it takes
	// its seat back, with a snapshot, as a late joiner does. Meanwhile
	// its input is the substitute of a missing input (its last one,
	// repeated). 0: a player leaves as soon as its connection ends.
	// It needs TokenKey: tokens are what tell a player's return from a
	// newcomer.
	RejoinGrace time.Duration
}

// DefaultServerConfig returns a one-player match of up to 8 players and
// the server's default limits; set Scene and Params.
func DefaultServerConfig() ServerConfig {
	return ServerConfig{
		Players:          1,
		MaxPlayers:       8,
		MaxSpectators:    16,
		InputDelay:       DefaultInputDelay,
		Tolerance:        4 * time.Millisecond,
		StartDelay:       250 * time.Millisecond,
		HandshakeTimeout: 5 * time.Second,
		IdleTimeout:      10 * time.Second,
		MaxPending:       32,
	}
}

// The server's defaults for the limits whose zero value in ServerConfig
// means "the default".
const (
	// DefaultOutboxLimit: a client that leaves 1 MiB unread beyond the
	// largest message queued to it is dropped (a match's live ticks are a
	// few KiB a second).
	DefaultOutboxLimit = 1 << 20
	// DefaultResyncEvery: a client is resynchronised at most once every
	// 5 s (its hash comes once a second).
	DefaultResyncEvery = 5 * time.Second
	// DefaultMaxDumps: at most 8 state dumps per match.
	DefaultMaxDumps = 8
)

// DefaultInputDelay is the input delay the server advises when not told
// otherwise: 0 ticks. In lockstep a client's input shows only once the
// server has confirmed it, whatever the delay, so a delay only adds to
// the time from a key press to the screen; the clock synchronisation
// already makes inputs arrive just before they are needed, with a margin
// that grows with the measured jitter.
const DefaultInputDelay = 0

// Validate reports the first field out of range, saying what is accepted
// ("netplay: server: ...").
func (c *ServerConfig) Validate() error {
	if err := c.validate(); err != nil {
		return fmt.Errorf("netplay: server: %w", err)
	}
	return nil
}

//srccheck:wrapped by Validate, as "netplay: server: ..."
func (c *ServerConfig) validate() error {
	switch {
	case c.Scene == "" || len(c.Scene) > wire.MaxScene:
		return fmt.Errorf("scene id %q: must be 1 to %d bytes", c.Scene, wire.MaxScene)
	case len(c.Params) > wire.MaxParams:
		return fmt.Errorf("scene params: %d bytes, at most %d", len(c.Params), wire.MaxParams)
	case c.MaxPlayers < 1 || c.MaxPlayers > wire.MaxPlayers:
		return fmt.Errorf("max players %d: must be from 1 to %d", c.MaxPlayers, wire.MaxPlayers)
	case c.Players < 1 || c.Players > c.MaxPlayers:
		return fmt.Errorf("players %d: must be from 1 to the max players, %d", c.Players, c.MaxPlayers)
	case c.MaxSpectators < 0:
		return fmt.Errorf("max spectators %d: must be 0 or more", c.MaxSpectators)
	case c.InputDelay < 0 || c.InputDelay > 255:
		return fmt.Errorf("input delay %d: must be from 0 to 255 ticks", c.InputDelay)
	case c.Tolerance < 0 || c.Tolerance > time.Second:
		return fmt.Errorf("tolerance %v: must be from 0 to 1s", c.Tolerance)
	case c.StartDelay < 0 || c.StartDelay > 10*time.Second:
		return fmt.Errorf("start delay %v: must be from 0 to 10s", c.StartDelay)
	case c.HandshakeTimeout <= 0:
		return fmt.Errorf("handshake timeout %v: must be above 0", c.HandshakeTimeout)
	case c.IdleTimeout <= 0:
		return fmt.Errorf("idle timeout %v: must be above 0", c.IdleTimeout)
	case c.MaxPending < 1:
		return fmt.Errorf("max pending connections %d: must be 1 or more", c.MaxPending)
	case c.MaxMessage < 0:
		return fmt.Errorf("max message %d: must be 0 (the default) or more", c.MaxMessage)
	case c.OutboxLimit < 0:
		return fmt.Errorf("outbox limit %d: must be 0 (the default) or more", c.OutboxLimit)
	case c.ResyncEvery < 0:
		return fmt.Errorf("resync interval %v: must be 0 (the default) or more", c.ResyncEvery)
	case c.MaxDumps < 0:
		return fmt.Errorf("max dumps %d: must be 0 (the default) or more", c.MaxDumps)
	case c.TokenKey != nil && (c.MatchID == "" || len(c.MatchID) > token.MaxMatchID):
		return fmt.Errorf("match id %q: must be 1 to %d bytes with a token key", c.MatchID, token.MaxMatchID)
	case c.RejoinGrace < 0:
		return fmt.Errorf("rejoin grace %v: must be 0 or more", c.RejoinGrace)
	case c.RejoinGrace > 0 && c.TokenKey == nil:
		return fmt.Errorf("rejoin grace %v: needs a token key (tokens tell a player's return from a newcomer)", c.RejoinGrace)
	}
	return nil
}
