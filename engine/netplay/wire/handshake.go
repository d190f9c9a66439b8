package wire

import (
	"encoding/binary"
	"fmt"
)

// Role is what a client joins as. Its String is "player", "spectator",
// or "Role(n)".
type Role uint8

//go:generate go run golang.org/x/tools/cmd/stringer@v0.52.0 -type=Role,Reason,EndReason -linecomment -output=enum_string.go

// The roles. The zero Role is not one, so a forgotten Role is refused.
const (
	// RolePlayer sends input and is part of the simulation.
	RolePlayer Role = 1 // player
	// RoleSpectator receives the confirmed inputs and sends none.
	RoleSpectator Role = 2 // spectator
)

// Hello is the client's first message, after its preamble.
type Hello struct {
	Version     uint16 // the client's protocol version, as in its preamble
	Role        Role   // player or spectator
	Scene       string // the scene the client runs (at most MaxScene bytes)
	Fingerprint uint64 // the client's engine.Schema.Fingerprint
	Name        string // the client's name, for logs (at most MaxName bytes)
	// Token is the client's connect token (package token), opaque to it:
	// at most MaxToken bytes; empty without one.
	Token []byte
	// Salt is the client's random salt, drawn anew for each connection:
	// with the token's keys it makes the connection's own session keys
	// (package seal), so a token that connects again (a rejoin) never
	// seals under the same keys twice. Zero without a token.
	Salt [SaltSize]byte
}

// Type returns TypeHello.
func (*Hello) Type() Type { return TypeHello }

func (m *Hello) appendBody(b []byte) []byte {
	b = binary.LittleEndian.AppendUint16(b, m.Version)
	b = append(b, byte(m.Role))
	b = appendString8(b, m.Scene)
	b = binary.LittleEndian.AppendUint64(b, m.Fingerprint)
	b = appendString8(b, m.Name)
	b = append(b, byte(len(m.Token)))
	b = append(b, m.Token...)
	return append(b, m.Salt[:]...)
}

func (m *Hello) decode(d *decoder) {
	m.Version = d.U16("version")
	at := d.Offset()
	m.Role = Role(d.U8("role"))
	d.refuse(at, "role", checkRole(m.Role))
	m.Scene = d.string8("scene length", "scene", MaxScene, m.Scene)
	m.Fingerprint = d.U64("fingerprint")
	m.Name = d.string8("name length", "name", MaxName, m.Name)
	n := d.count(1, "token length", 0, MaxToken, 1, "bytes")
	m.Token = append(m.Token[:0], d.Take("token", n)...)
	copy(m.Salt[:], d.Take("salt", SaltSize))
}

func (m *Hello) check() (string, error) {
	if err := checkRole(m.Role); err != nil {
		return "role", err
	}
	if err := checkText(m.Scene, MaxScene); err != nil {
		return "scene", err
	}
	if err := checkText(m.Name, MaxName); err != nil {
		return "name", err
	}
	return "token", checkCount(len(m.Token), 0, MaxToken, "bytes")
}

// Welcome is the server's answer to a Hello it accepts: the match the
// client joins. For a late join, a Snapshot of tick SnapshotTick follows,
// then Confirmed messages from the tick after it.
type Welcome struct {
	Player      PlayerID // the client's player ID, or NoPlayer for a spectator
	TickRate    uint16   // ticks per second (at least 1)
	Scene       string   // the scene the server runs (at most MaxScene bytes)
	Fingerprint uint64   // the server's engine.Schema.Fingerprint
	// Params are the scene's parameters, defined by the game (a seed, an
	// entity count, flags): at most MaxParams bytes.
	Params     []byte
	InputDelay uint8  // ticks between the tick a client samples input at and the tick it is for
	FirstTick  uint64 // the first tick the client simulates
	// SnapshotTick is, for a late join, the tick of the Snapshot that
	// follows: the client starts from its state. 0: no snapshot, the
	// client starts from the scene's initial state.
	SnapshotTick uint64
	// JoinTick is, for a player taking its seat back (a rejoin), the tick
	// its player joined the match at: the snapshot's world has it, and
	// no Confirmed tick will name it among its joins. 0 otherwise.
	JoinTick uint64
}

// Type returns TypeWelcome.
func (*Welcome) Type() Type { return TypeWelcome }

func (m *Welcome) appendBody(b []byte) []byte {
	b = binary.LittleEndian.AppendUint16(b, uint16(m.Player))
	b = binary.LittleEndian.AppendUint16(b, m.TickRate)
	b = appendString8(b, m.Scene)
	b = binary.LittleEndian.AppendUint64(b, m.Fingerprint)
	b = appendBytes16(b, m.Params)
	b = append(b, m.InputDelay)
	b = binary.LittleEndian.AppendUint64(b, m.FirstTick)
	b = binary.LittleEndian.AppendUint64(b, m.SnapshotTick)
	return binary.LittleEndian.AppendUint64(b, m.JoinTick)
}

func (m *Welcome) decode(d *decoder) {
	at := d.Offset()
	m.Player = PlayerID(d.U16("player"))
	d.refuse(at, "player", checkPlayer(m.Player))
	at = d.Offset()
	m.TickRate = d.U16("tick rate")
	d.refuse(at, "tick rate", checkTickRate(m.TickRate))
	m.Scene = d.string8("scene length", "scene", MaxScene, m.Scene)
	m.Fingerprint = d.U64("fingerprint")
	m.Params = d.bytes16("params length", "params", MaxParams)
	m.InputDelay = d.U8("input delay")
	m.FirstTick = d.U64("first tick")
	m.SnapshotTick = d.U64("snapshot tick")
	m.JoinTick = d.U64("join tick")
}

func (m *Welcome) check() (string, error) {
	if err := checkPlayer(m.Player); err != nil {
		return "player", err
	}
	if err := checkTickRate(m.TickRate); err != nil {
		return "tick rate", err
	}
	if err := checkText(m.Scene, MaxScene); err != nil {
		return "scene", err
	}
	return "params", checkCount(len(m.Params), 0, MaxParams, "bytes")
}

// Reason says why a side refuses the other. Its String is the reason in
// words ("version mismatch"), or "Reason(n)".
type Reason uint8

// The reasons. A Reader accepts any value, so that a newer peer's reason
// arrives as a number with its text.
const (
	// ReasonOther: see the text.
	ReasonOther Reason = 0 // refused
	// ReasonVersion: the protocol versions differ.
	ReasonVersion Reason = 1 // version mismatch
	// ReasonScene: the scenes differ.
	ReasonScene Reason = 2 // scene mismatch
	// ReasonSchema: the schema fingerprints differ.
	ReasonSchema Reason = 3 // schema mismatch
	// ReasonFull: the match has no room for another player.
	ReasonFull Reason = 4 // match full
	// ReasonShutdown: the server is shutting down.
	ReasonShutdown Reason = 5 // shutting down
	// ReasonDropped: the server drops a client that broke a rule: see
	// the text.
	ReasonDropped Reason = 6 // dropped
	// ReasonToken: the server refuses the client's connect token (none,
	// forged, expired, for another match, in use or used, its seat
	// taken): see the text.
	ReasonToken Reason = 7 // token refused
)

// Refuse ends a handshake: the server refuses a Hello, or a client refuses
// a Welcome. After the handshake it is the server's last message to a
// client it drops (ReasonDropped: silent too long, flooding, a bad
// message, reading too slowly). Its layout and type byte are the same in every version of the
// protocol, so that a peer of another version can read why.
type Refuse struct {
	Reason Reason // why, for a program
	Text   string // why, for a person: one line (at most MaxRefuseText bytes)
}

// Type returns TypeRefuse.
func (*Refuse) Type() Type { return TypeRefuse }

func (m *Refuse) appendBody(b []byte) []byte {
	b = append(b, byte(m.Reason))
	return appendString16(b, m.Text)
}

func (m *Refuse) decode(d *decoder) {
	m.Reason = Reason(d.U8("reason"))
	m.Text = d.string16("text length", "text", MaxRefuseText, m.Text)
}

func (m *Refuse) check() (string, error) { return "text", checkText(m.Text, MaxRefuseText) }

// String returns the reason and the text: "version mismatch: protocol
// version 3, this server speaks 1".
func (m *Refuse) String() string { return m.Reason.String() + ": " + m.Text }

// RefuseVersion is the server's refusal of a client whose preamble has
// another protocol version: "protocol version 3, this server speaks 1".
func RefuseVersion(client uint16) *Refuse {
	return refuse(ReasonVersion, fmt.Sprintf("protocol version %d, this server speaks %d", client, Version))
}

// RefuseScene is the server's refusal of a client that runs another
// scene: `scene "lobby", this server runs "arena"`.
func RefuseScene(client, server string) *Refuse {
	return refuse(ReasonScene, fmt.Sprintf("scene %q, this server runs %q", client, server))
}

// RefuseSchema is the server's refusal of a client whose components and
// resources differ from the server's.
func RefuseSchema(client, server uint64) *Refuse {
	return refuse(ReasonSchema, fmt.Sprintf("schema fingerprint %016x, this server's is %016x (the programs register different components or resources)", client, server))
}

// RefuseFull is the server's refusal of a player when the match already
// has players players.
func RefuseFull(players int) *Refuse {
	return refuse(ReasonFull, fmt.Sprintf("the match is full (%d players)", players))
}

// RefuseShutdown is the server's refusal while it shuts down.
func RefuseShutdown() *Refuse {
	return refuse(ReasonShutdown, "the server is shutting down")
}

// RefuseDropped is the server's last message to a client it drops, after
// the handshake: why says which rule the client broke ("this client sent
// nothing for 10s").
func RefuseDropped(why string) *Refuse {
	return refuse(ReasonDropped, why)
}

// RefuseToken is the server's refusal of a client's connect token; why
// says what is wrong with it ("token: expired: ...").
func RefuseToken(why string) *Refuse {
	return refuse(ReasonToken, why)
}

// refuse makes a Refuse whose text passes Check: control characters
// become spaces and the text is cut to MaxRefuseText bytes at a character
// boundary.
func refuse(r Reason, text string) *Refuse {
	b := []byte(text)
	for i, c := range b {
		if c < 0x20 || c == 0x7f {
			b[i] = ' '
		}
	}
	if len(b) > MaxRefuseText {
		n := MaxRefuseText
		for n > 0 && b[n]&0xc0 == 0x80 { // b[n] continues a character
			n--
		}
		b = b[:n]
	}
	return &Refuse{Reason: r, Text: string(b)}
}
