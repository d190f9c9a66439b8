package wire

import (
	"bytes"
	"encoding/hex"
	"io"
	"reflect"
	"testing"
	"time"

	"github.com/nebulaengine/nebula/engine/input"
)

// snap returns the snapshot of a tick that saw keys go down (the first
// tick they are down: Down and JustPressed) and the cursor at x, y.
func snap(x, y float64, keys ...input.Key) input.Sample {
	var in input.Queue
	for _, k := range keys {
		in.Push(input.Event{Kind: input.KeyDown, Key: k})
	}
	if x != 0 || y != 0 {
		in.Push(input.Event{Kind: input.CursorMove, X: x, Y: y})
	}
	return in.Advance(0)
}

// held returns the snapshot of a later tick with keys still down.
func held(keys ...input.Key) input.Sample {
	var in input.Queue
	for _, k := range keys {
		in.Push(input.Event{Kind: input.KeyDown, Key: k})
	}
	in.Advance(0)
	return in.Advance(time.Millisecond)
}

// samples returns one message of every type, with every field set.
func samples() []Message {
	return []Message{
		&Hello{Version: Version, Role: RolePlayer, Scene: "bounce", Fingerprint: 0x0123456789abcdef, Name: "ada", Token: []byte{1, 2, 3}, Salt: [SaltSize]byte{9, 8, 7}},
		&Welcome{Player: 3, TickRate: 60, Scene: "bounce", Fingerprint: 0x0123456789abcdef, Params: []byte{1, 2, 3},
			InputDelay: 2, FirstTick: 1201, SnapshotTick: 1200, JoinTick: 40},
		RefuseVersion(3),
		&Input{First: 100, Inputs: []input.Sample{held(input.KeyArrowLeft), snap(640, 360, input.KeySpace), {}}},
		&Confirmed{First: 7, Ticks: []ConfirmedTick{
			{Joins: []PlayerID{0, 1}, Inputs: []PlayerInput{{0, held(input.KeyArrowUp)}, {1, input.Sample{}}}, Early: 8500 * time.Microsecond},
			{Leaves: []PlayerID{1}, Inputs: []PlayerInput{{0, snap(12.5, 3, input.KeyA, input.KeyD)}}, Early: -1200 * time.Microsecond, Substituted: true},
		}},
		&Hash{Tick: 600, Hash: 0xfeedfacecafebeef},
		&Desync{Tick: 600, Server: 1, Client: 2},
		&Snapshot{Tick: 1200, Data: []byte("NEBSNAP1 and the rest")},
		&Ping{Time: 1500 * time.Millisecond},
		&Pong{Echo: 1500 * time.Millisecond, Time: -3 * time.Second},
		&End{Tick: 3600, Reason: EndTicks},
		&Bye{},
	}
}

// readAll reads every message of b with a Reader of cap max and returns
// the encoded messages each re-encodes to.
func readOne(t *testing.T, enc []byte, max int) Message {
	t.Helper()
	r := NewReader(bytes.NewReader(enc), max)
	m, err := r.ReadMessage()
	if err != nil {
		t.Fatalf("ReadMessage(% x): %v", enc, err)
	}
	if _, err := r.ReadMessage(); err != io.EOF {
		t.Fatalf("after the message: %v, want io.EOF", err)
	}
	return m
}

// equal compares messages, a nil slice equal to an empty one.
func equal(a, b Message) bool {
	return bytes.Equal(AppendMessage(nil, a), AppendMessage(nil, b)) && reflect.DeepEqual(normal(a), normal(b))
}

// normal returns a copy of m with empty slices nil.
func normal(m Message) Message {
	switch m := m.(type) {
	case *Welcome:
		c := *m
		if len(c.Params) == 0 {
			c.Params = nil
		}
		return &c
	case *Snapshot:
		c := *m
		if len(c.Data) == 0 {
			c.Data = nil
		}
		return &c
	case *Confirmed:
		c := Confirmed{First: m.First}
		for _, t := range m.Ticks {
			for _, s := range []*[]PlayerID{&t.Joins, &t.Leaves} {
				if len(*s) == 0 {
					*s = nil
				}
			}
			if len(t.Inputs) == 0 {
				t.Inputs = nil
			}
			c.Ticks = append(c.Ticks, t)
		}
		return &c
	}
	return m
}

func TestRoundTrip(t *testing.T) {
	seen := map[Type]bool{}
	for _, m := range samples() {
		if err := Check(m); err != nil {
			t.Fatalf("Check(%v): %v", m.Type(), err)
		}
		enc := AppendMessage([]byte("prefix"), m)[len("prefix"):]
		got := readOne(t, enc, MaxServerMessage)
		if got.Type() != m.Type() || !equal(got, m) {
			t.Errorf("%v: read back %+v, want %+v", m.Type(), got, m)
		}
		seen[m.Type()] = true
	}
	for ty := TypeHello; ty < typeCount; ty++ {
		if !seen[ty] {
			t.Errorf("no sample of %v", ty)
		}
	}
}

// The wire format of a Confirmed message, byte for byte: a change to the
// format must change this test (and Version).
func TestGoldenConfirmed(t *testing.T) {
	m := &Confirmed{First: 7, Ticks: []ConfirmedTick{{
		Joins:  []PlayerID{2},
		Inputs: []PlayerInput{{1, held(input.KeyArrowLeft)}, {2, snap(640, 0, input.KeySpace)}},
		Early:  -1200 * time.Microsecond, Substituted: true,
	}}}
	const want = "29000000" + "05" + // length 41, type Confirmed
		"0700000000000000" + "0100" + // first tick 7, one tick
		"0100" + "0200" + // joins: player 2
		"0000" + // no leaves
		"0200" + // two inputs
		"0100" + "0100" + "20" + "04" + // player 1: word 0 (keys down), its byte 5 is 0x04 (key 42, ArrowLeft)
		"0200" + "8500" + // player 2: words 0, 2 (keys pressed) and 7 (cursor x)
		"10" + "20" + "10" + "20" + // byte 4 of each is 0x20 (key 37, Space)
		"c0" + "8440" + // bytes 6 and 7 of the cursor x: 0x4084000000000000 is 640.0
		"01" + "50fbffff" // substituted, early -1200 µs
	got := hex.EncodeToString(AppendMessage(nil, m))
	if got != want {
		t.Fatalf("Confirmed encodes to\n%s\nwant\n%s", got, want)
	}
	enc, _ := hex.DecodeString(want)
	if back := readOne(t, enc, MaxClientMessage); !equal(back, m) {
		t.Fatalf("golden bytes read back as %+v", back)
	}
}

func TestPreambleGolden(t *testing.T) {
	if got := string(AppendPreamble(nil)); got != "NEBULAnp\x03\x00" {
		t.Fatalf("preamble %q", got)
	}
}
