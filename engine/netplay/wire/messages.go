package wire

import (
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"github.com/nebulaengine/nebula/engine/input"
)

// Role is what a client joins as.
type Role uint8

// The roles. The zero Role is not one, so a forgotten Role is refused.
const (
	RolePlayer    Role = 1 // sends input and is part of the simulation
	RoleSpectator Role = 2 // receives the confirmed inputs and sends none
)

// String returns "player", "spectator", or "Role(n)".
func (r Role) String() string {
	switch r {
	case RolePlayer:
		return "player"
	case RoleSpectator:
		return "spectator"
	}
	return fmt.Sprintf("Role(%d)", uint8(r))
}

// Hello is the client's first message, after its preamble.
type Hello struct {
	Version     uint16 // the client's protocol version, as in its preamble
	Role        Role   // player or spectator
	Scene       string // the scene the client runs (at most MaxScene bytes)
	Fingerprint uint64 // the client's engine.Schema.Fingerprint
	Name        string // the client's name, for logs (at most MaxName bytes)
}

// Type returns TypeHello.
func (*Hello) Type() Type { return TypeHello }

func (m *Hello) appendBody(b []byte) []byte {
	b = binary.LittleEndian.AppendUint16(b, m.Version)
	b = append(b, byte(m.Role))
	b = appendString8(b, m.Scene)
	b = binary.LittleEndian.AppendUint64(b, m.Fingerprint)
	return appendString8(b, m.Name)
}

func (m *Hello) decode(d *decoder) {
	m.Version = d.U16("version")
	at := d.Offset()
	m.Role = Role(d.U8("role"))
	d.refuse(at, "role", checkRole(m.Role))
	m.Scene = d.string8("scene length", "scene", MaxScene, m.Scene)
	m.Fingerprint = d.U64("fingerprint")
	m.Name = d.string8("name length", "name", MaxName, m.Name)
}

func (m *Hello) check() (string, error) {
	if err := checkRole(m.Role); err != nil {
		return "role", err
	}
	if err := checkText(m.Scene, MaxScene); err != nil {
		return "scene", err
	}
	return "name", checkText(m.Name, MaxName)
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
	return binary.LittleEndian.AppendUint64(b, m.SnapshotTick)
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

// Reason says why a side refuses the other.
type Reason uint8

// The reasons. A Reader accepts any value, so that a newer peer's reason
// arrives as a number with its text.
const (
	ReasonOther    Reason = 0 // see the text
	ReasonVersion  Reason = 1 // the protocol versions differ
	ReasonScene    Reason = 2 // the scenes differ
	ReasonSchema   Reason = 3 // the schema fingerprints differ
	ReasonFull     Reason = 4 // the match has no room for another player
	ReasonShutdown Reason = 5 // the server is shutting down
	ReasonDropped  Reason = 6 // the server drops a client that broke a rule: see the text
)

var reasonNames = [...]string{
	ReasonOther:    "refused",
	ReasonVersion:  "version mismatch",
	ReasonScene:    "scene mismatch",
	ReasonSchema:   "schema mismatch",
	ReasonFull:     "match full",
	ReasonShutdown: "shutting down",
	ReasonDropped:  "dropped",
}

// String returns the reason in words ("version mismatch"), or "Reason(n)".
func (r Reason) String() string {
	if int(r) < len(reasonNames) {
		return reasonNames[r]
	}
	return fmt.Sprintf("Reason(%d)", uint8(r))
}

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

// Input is a client's input for a run of consecutive ticks, from tick
// First: Inputs[i] is for tick First+i. A client sends each tick's input
// once; a run carries the ticks it sampled since its last send.
type Input struct {
	First  uint64         // the tick of Inputs[0]
	Inputs []input.Sample // 1 to MaxInputRun ticks
}

// Type returns TypeInput.
func (*Input) Type() Type { return TypeInput }

func (m *Input) appendBody(b []byte) []byte {
	n := min(len(m.Inputs), math.MaxUint8)
	b = binary.LittleEndian.AppendUint64(b, m.First)
	b = append(b, byte(n))
	for i := range n {
		b = appendSample(b, &m.Inputs[i])
	}
	return b
}

func (m *Input) decode(d *decoder) {
	m.First = d.U64("first tick")
	n := d.count(1, "input count", 1, MaxInputRun, minSample, "ticks")
	d.refuse(headerSize, "first tick", checkLast(m.First, n))
	m.Inputs = resize(m.Inputs, n)
	for i := range m.Inputs {
		d.sample(&m.Inputs[i])
	}
}

func (m *Input) check() (string, error) {
	if err := checkCount(len(m.Inputs), 1, MaxInputRun, "ticks"); err != nil {
		return "inputs", err
	}
	return "first tick", checkLast(m.First, len(m.Inputs))
}

// Confirmed is the confirmed input of a run of consecutive ticks, from
// tick First: Ticks[i] is tick First+i. The server sends one tick as it
// confirms it, and a run to a client that catches up.
type Confirmed struct {
	First uint64          // the tick of Ticks[0]
	Ticks []ConfirmedTick // 1 to MaxConfirmedRun ticks
}

// ConfirmedTick is one tick of a Confirmed message: who joined and left
// the match at it, the input of every player in the match, and how the
// receiving client's own input fared.
type ConfirmedTick struct {
	Joins  []PlayerID    // players who join at this tick, ascending
	Leaves []PlayerID    // players who leave at this tick, ascending
	Inputs []PlayerInput // one per player in the match, by ascending Player
	// Early is how long before the tick's deadline the receiving
	// client's input for it arrived at the server; negative when it
	// arrived late or not at all. Carried in whole microseconds (cut
	// toward zero), within ±35 minutes. 0 for a spectator.
	Early time.Duration
	// Substituted reports that the server used the receiving client's
	// previous input for this tick because its own had not arrived.
	Substituted bool
}

// PlayerInput is one player's input for a tick.
type PlayerInput struct {
	Player PlayerID     // the player
	Input  input.Sample // their input for the tick
}

// Type returns TypeConfirmed.
func (*Confirmed) Type() Type { return TypeConfirmed }

// flagSubstituted is bit 0 of a confirmed tick's flags.
const flagSubstituted = 0x01

func (m *Confirmed) appendBody(b []byte) []byte {
	n := min(len(m.Ticks), math.MaxUint16)
	b = binary.LittleEndian.AppendUint64(b, m.First)
	b = binary.LittleEndian.AppendUint16(b, uint16(n))
	for i := range n {
		t := &m.Ticks[i]
		b = appendIDs(b, t.Joins)
		b = appendIDs(b, t.Leaves)
		ni := min(len(t.Inputs), math.MaxUint16)
		b = binary.LittleEndian.AppendUint16(b, uint16(ni))
		for j := range ni {
			p := &t.Inputs[j]
			b = binary.LittleEndian.AppendUint16(b, uint16(p.Player))
			b = appendSample(b, &p.Input)
		}
		var flags byte
		if t.Substituted {
			flags |= flagSubstituted
		}
		b = append(b, flags)
		us := min(max(t.Early/time.Microsecond, math.MinInt32), math.MaxInt32)
		b = binary.LittleEndian.AppendUint32(b, uint32(int32(us)))
	}
	return b
}

// minTick is the fewest bytes of a confirmed tick: three counts, the
// flags and Early.
const minTick = 2 + 2 + 2 + 1 + 4

func (m *Confirmed) decode(d *decoder) {
	m.First = d.U64("first tick")
	n := d.count(2, "tick count", 1, MaxConfirmedRun, minTick, "ticks")
	d.refuse(headerSize, "first tick", checkLast(m.First, n))
	m.Ticks = resize(m.Ticks, n)
	for i := range m.Ticks {
		t := &m.Ticks[i]
		t.Joins = d.ids("joins", t.Joins)
		t.Leaves = d.ids("leaves", t.Leaves)
		ni := d.count(2, "input count", 0, MaxPlayers, 2+minSample, "players")
		t.Inputs = resize(t.Inputs, ni)
		for j := range t.Inputs {
			p := &t.Inputs[j]
			at := d.Offset()
			p.Player = PlayerID(d.U16("input player"))
			if d.Err() == nil {
				err := checkPlayerID(p.Player)
				if err == nil && j > 0 {
					err = checkAscending(t.Inputs[j-1].Player, p.Player)
				}
				d.refuse(at, "input player", err)
			}
			d.sample(&p.Input)
		}
		at := d.Offset()
		flags := d.U8("flags")
		if d.Err() == nil && flags&^flagSubstituted != 0 {
			d.FailAt(at, "flags", fmt.Errorf("flags 0x%02x, only 0x%02x (substituted) is defined", flags, flagSubstituted))
		}
		t.Substituted = flags&flagSubstituted != 0
		t.Early = time.Duration(int32(d.U32("early"))) * time.Microsecond
	}
}

func (m *Confirmed) check() (string, error) {
	if err := checkCount(len(m.Ticks), 1, MaxConfirmedRun, "ticks"); err != nil {
		return "ticks", err
	}
	if err := checkLast(m.First, len(m.Ticks)); err != nil {
		return "first tick", err
	}
	for i := range m.Ticks {
		t := &m.Ticks[i]
		if err := checkIDs(t.Joins); err != nil {
			return fmt.Sprintf("tick %d joins", m.First+uint64(i)), err
		}
		if err := checkIDs(t.Leaves); err != nil {
			return fmt.Sprintf("tick %d leaves", m.First+uint64(i)), err
		}
		if err := checkCount(len(t.Inputs), 0, MaxPlayers, "players"); err != nil {
			return fmt.Sprintf("tick %d inputs", m.First+uint64(i)), err
		}
		for j := range t.Inputs {
			err := checkPlayerID(t.Inputs[j].Player)
			if err == nil && j > 0 {
				err = checkAscending(t.Inputs[j-1].Player, t.Inputs[j].Player)
			}
			if err != nil {
				return fmt.Sprintf("tick %d inputs", m.First+uint64(i)), err
			}
		}
		if us := t.Early / time.Microsecond; us < math.MinInt32 || us > math.MaxInt32 {
			return fmt.Sprintf("tick %d early", m.First+uint64(i)), fmt.Errorf("%v, beyond ±%v", t.Early, durationMax)
		}
	}
	return "", nil
}

// Hash is a client's state hash at a tick (engine.World.Hash at the end
// of the tick), sent every 60 ticks.
type Hash struct {
	Tick uint64 // the tick
	Hash uint64 // engine.World.Hash at its end
}

// Type returns TypeHash.
func (*Hash) Type() Type { return TypeHash }

func (m *Hash) appendBody(b []byte) []byte {
	b = binary.LittleEndian.AppendUint64(b, m.Tick)
	return binary.LittleEndian.AppendUint64(b, m.Hash)
}

func (m *Hash) decode(d *decoder) {
	m.Tick = d.U64("tick")
	m.Hash = d.U64("hash")
}

func (m *Hash) check() (string, error) { return "", nil }

// Desync tells a client that its state hash at Tick differs from the
// server's. The client writes a dump and resynchronises from a Snapshot.
type Desync struct {
	Tick   uint64 // the tick of the client's Hash
	Server uint64 // the server's hash at Tick
	Client uint64 // the client's hash at Tick, as its Hash message said
}

// Type returns TypeDesync.
func (*Desync) Type() Type { return TypeDesync }

func (m *Desync) appendBody(b []byte) []byte {
	b = binary.LittleEndian.AppendUint64(b, m.Tick)
	b = binary.LittleEndian.AppendUint64(b, m.Server)
	return binary.LittleEndian.AppendUint64(b, m.Client)
}

func (m *Desync) decode(d *decoder) {
	m.Tick = d.U64("tick")
	m.Server = d.U64("server hash")
	m.Client = d.U64("client hash")
}

func (m *Desync) check() (string, error) { return "", nil }

// Snapshot is the engine's state at the end of a confirmed tick
// (engine.Engine.Snapshot), for a late joiner or a resynchronisation.
// Confirmed messages from tick Tick+1 follow it.
type Snapshot struct {
	Tick uint64 // the tick at whose end it was taken
	Data []byte // the engine's snapshot, opaque here: at most MaxSnapshot bytes
}

// Type returns TypeSnapshot.
func (*Snapshot) Type() Type { return TypeSnapshot }

func (m *Snapshot) appendBody(b []byte) []byte {
	b = binary.LittleEndian.AppendUint64(b, m.Tick)
	data := m.Data[:min(len(m.Data), math.MaxUint32)]
	b = binary.LittleEndian.AppendUint32(b, uint32(len(data)))
	return append(b, data...)
}

func (m *Snapshot) decode(d *decoder) {
	m.Tick = d.U64("tick")
	at := d.Offset()
	n := d.U32("data length")
	if d.Err() == nil && n > MaxSnapshot {
		d.FailAt(at, "data length", fmt.Errorf("%d bytes, at most %d", n, MaxSnapshot))
	}
	m.Data = d.Take("data", int(n))
}

func (m *Snapshot) check() (string, error) {
	return "data", checkCount(len(m.Data), 0, MaxSnapshot, "bytes")
}

// Ping asks the peer for a Pong, to measure the round trip and to relate
// the two clocks.
type Ping struct {
	Time time.Duration // the sender's clock when it sent the Ping
}

// Type returns TypePing.
func (*Ping) Type() Type { return TypePing }

func (m *Ping) appendBody(b []byte) []byte {
	return binary.LittleEndian.AppendUint64(b, uint64(m.Time))
}

func (m *Ping) decode(d *decoder) { m.Time = time.Duration(d.U64("time")) }

func (m *Ping) check() (string, error) { return "", nil }

// Pong answers a Ping. The round trip is the Ping's sender's clock at
// arrival minus Echo; the responder's clock stood at Time about half of
// it earlier.
type Pong struct {
	Echo time.Duration // the Ping's Time
	Time time.Duration // the responder's clock when it answered
}

// Type returns TypePong.
func (*Pong) Type() Type { return TypePong }

func (m *Pong) appendBody(b []byte) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(m.Echo))
	return binary.LittleEndian.AppendUint64(b, uint64(m.Time))
}

func (m *Pong) decode(d *decoder) {
	m.Echo = time.Duration(d.U64("echo"))
	m.Time = time.Duration(d.U64("time"))
}

func (m *Pong) check() (string, error) { return "", nil }

// EndReason says why a match ended.
type EndReason uint8

// The reasons a match ends.
const (
	EndTicks    EndReason = 1 // the match reached its last tick (a server's -ticks N)
	EndShutdown EndReason = 2 // the server is shutting down
)

// String returns "last tick", "shutdown", or "EndReason(n)".
func (r EndReason) String() string {
	switch r {
	case EndTicks:
		return "last tick"
	case EndShutdown:
		return "shutdown"
	}
	return fmt.Sprintf("EndReason(%d)", uint8(r))
}

// End tells a client that the match is over: Tick is the last tick the
// server confirmed, and no Confirmed message follows.
type End struct {
	Tick   uint64    // the last confirmed tick
	Reason EndReason // why the match ended
}

// Type returns TypeEnd.
func (*End) Type() Type { return TypeEnd }

func (m *End) appendBody(b []byte) []byte {
	b = binary.LittleEndian.AppendUint64(b, m.Tick)
	return append(b, byte(m.Reason))
}

func (m *End) decode(d *decoder) {
	m.Tick = d.U64("tick")
	at := d.Offset()
	m.Reason = EndReason(d.U8("reason"))
	d.refuse(at, "reason", checkEndReason(m.Reason))
}

func (m *End) check() (string, error) { return "reason", checkEndReason(m.Reason) }

// Bye tells the server that the client is leaving. It has no fields.
type Bye struct{}

// Type returns TypeBye.
func (*Bye) Type() Type { return TypeBye }

func (*Bye) appendBody(b []byte) []byte { return b }
func (*Bye) decode(*decoder)            {}
func (*Bye) check() (string, error)     { return "", nil }
