package wire

import (
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"github.com/nebulaengine/nebula/engine/input"
)

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

//srccheck:wrapped by Check and the Reader, as "wire: ... byte N (<field>): ..."
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
	data := m.Data[:min(len(m.Data), MaxSnapshot)] // the Writer refuses a larger one before it comes here
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

// EndReason says why a match ended. Its String is "last tick",
// "shutdown", "failed", or "EndReason(n)".
type EndReason uint8

// The reasons a match ends.
const (
	// EndTicks: the match reached its last tick (a server's -ticks N).
	EndTicks EndReason = 1 // last tick
	// EndShutdown: the server is shutting down.
	EndShutdown EndReason = 2 // shutdown
	// EndFailed: the match failed on the server (a panic in the
	// simulation): its state past Tick is lost, and a client reports the
	// failure rather than a match played to its end.
	EndFailed EndReason = 3 // failed
)

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
