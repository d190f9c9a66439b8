package wire

import (
	"encoding/binary"
	"fmt"
	"math"
)

// The preamble, the version and the limits of the protocol.
const (
	// Magic starts the preamble each side sends first.
	Magic = "NEBULAnp"
	// Version is the protocol version this package speaks. Version 2
	// added the gamepads and actions to the inputs (the input mask's
	// extension); version 3 the connect token and salt to the Hello and
	// the join tick of a rejoin to the Welcome.
	Version = 3
	// PreambleSize is the bytes of a preamble: Magic and a uint16 version.
	PreambleSize = len(Magic) + 2

	// MaxClientMessage is the default cap on a message a server reads
	// from a client (its length field: type byte and body): 64 KiB, far
	// above the largest valid one (an Input run of MaxInputRun ticks is
	// under 7 KiB).
	MaxClientMessage = 64 << 10
	// MaxServerMessage is the default cap on a message a client reads from
	// a server: room for a Snapshot of MaxSnapshot bytes (a Confirmed
	// run at its limits, 1024 ticks of 256 players, is under 27 MiB).
	MaxServerMessage = 1 + 8 + 4 + MaxSnapshot

	MaxScene        = 64       // bytes of a scene id
	MaxName         = 32       // bytes of a client's name
	MaxRefuseText   = 256      // bytes of a refusal's text
	MaxParams       = 4 << 10  // bytes of a Welcome's scene parameters
	MaxToken        = 255      // bytes of a Hello's connect token
	SaltSize        = 16       // bytes of a Hello's salt
	MaxSnapshot     = 64 << 20 // bytes of a Snapshot's data
	MaxInputRun     = 64       // ticks of one Input message
	MaxConfirmedRun = 1024     // ticks of one Confirmed message
	// MaxPlayers is the most players a match has (the engine's limit,
	// engine.MaxPlayers; package netplay's tests check they agree):
	// player IDs run from 0 to MaxPlayers-1.
	MaxPlayers = 256
)

// PlayerID identifies a player in a match, as the messages carry it: the
// number of the engine's player (engine.PlayerID), converted at the edge
// by package netplay so that the wire imports no simulation.
type PlayerID uint16

// NoPlayer is Welcome.Player for a spectator.
const NoPlayer PlayerID = math.MaxUint16

// Type is a message's type, the byte after its length. Its String is the
// type's name ("Confirmed"), or "Type(n)" for a byte that is not a type.
type Type uint8

//go:generate go run golang.org/x/tools/cmd/stringer@v0.52.0 -type=Type -trimprefix=Type

// The message types. Refuse is 3 in every version of the protocol.
const (
	TypeHello     Type = 1  // *Hello, client to server
	TypeWelcome   Type = 2  // *Welcome, server to client
	TypeRefuse    Type = 3  // *Refuse, either way
	TypeInput     Type = 4  // *Input, client to server
	TypeConfirmed Type = 5  // *Confirmed, server to client
	TypeHash      Type = 6  // *Hash, client to server
	TypeDesync    Type = 7  // *Desync, server to client
	TypeSnapshot  Type = 8  // *Snapshot, server to client
	TypePing      Type = 9  // *Ping, either way
	TypePong      Type = 10 // *Pong, either way
	TypeEnd       Type = 11 // *End, server to client
	TypeBye       Type = 12 // *Bye, client to server
	typeCount          = 13
)

func (t Type) known() bool { return t >= TypeHello && t < typeCount }

// Message is one of this package's messages: *Hello, *Welcome, *Refuse,
// *Input, *Confirmed, *Hash, *Desync, *Snapshot, *Ping, *Pong, *End or
// *Bye. The set is closed; other types cannot implement it.
type Message interface {
	// Type returns the message's type.
	Type() Type

	appendBody(b []byte) []byte
	decode(r *decoder)
	check() (field string, err error)
}

// headerSize is the bytes before a message's body: length and type.
const headerSize = 5

// AppendMessage appends m, encoded, to b and returns the extended slice: a
// uint32 little-endian length (of the type byte and the body), the type
// byte, then the body. It does not allocate when b has room for the message.
//
// m should pass Check: a field beyond its limit is encoded as it is (or
// cut to what its length field can say) and the peer's Reader refuses the
// message. Writer.WriteMessage checks before it sends.
func AppendMessage(b []byte, m Message) []byte {
	start := len(b)
	b = append(b, 0, 0, 0, 0, byte(m.Type()))
	b = m.appendBody(b)
	binary.LittleEndian.PutUint32(b[start:], uint32(len(b)-start-4))
	return b
}

// Check returns nil when a Reader accepts m once encoded, or an error
// naming the first field that is beyond its limit or invalid, and what is
// accepted.
func Check(m Message) error {
	if m == nil {
		return fmt.Errorf("wire: Check: a nil Message")
	}
	if field, err := m.check(); err != nil {
		return fmt.Errorf("wire: invalid %v message, %s: %w", m.Type(), field, err)
	}
	return nil
}

// AppendPreamble appends the preamble to b: Magic and Version as a uint16
// little-endian.
func AppendPreamble(b []byte) []byte {
	b = append(b, Magic...)
	return binary.LittleEndian.AppendUint16(b, Version)
}
