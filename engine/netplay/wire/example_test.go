package wire_test

import (
	"bytes"
	"fmt"
	"time"

	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/engine/netplay/wire"
)

// Encode the confirmed inputs of a tick, as a server sends them, and read
// them back, as a client does.
func Example() {
	var in input.Queue
	in.Push(input.Event{Kind: input.KeyDown, Key: input.KeyArrowRight})
	right := in.Advance(0)

	m := &wire.Confirmed{First: 120, Ticks: []wire.ConfirmedTick{{
		Joins:  []wire.PlayerID{1},
		Inputs: []wire.PlayerInput{{Player: 0, Input: right}, {Player: 1}},
		Early:  6 * time.Millisecond, // the receiver's input came 6 ms before the deadline
	}}}
	var conn bytes.Buffer // a TCP connection in a real program
	w := wire.NewWriter(&conn)
	if err := w.WriteMessage(m); err != nil {
		panic(err)
	}
	fmt.Println(conn.Len(), "bytes")

	r := wire.NewReader(&conn, wire.MaxServerMessage)
	msg, err := r.ReadMessage()
	if err != nil {
		panic(err)
	}
	switch msg := msg.(type) {
	case *wire.Confirmed:
		for i, t := range msg.Ticks {
			fmt.Printf("tick %d: joins %v, early %v\n", msg.First+uint64(i), t.Joins, t.Early)
			for _, p := range t.Inputs {
				fmt.Printf("  player %d: right %v\n", p.Player, p.Input.Down(input.KeyArrowRight))
			}
		}
	}
	// Output:
	// 40 bytes
	// tick 120: joins [1], early 6ms
	//   player 0: right true
	//   player 1: right false
}
