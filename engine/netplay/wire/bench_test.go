package wire

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/nebulaengine/nebula/engine/input"
)

// typicalTick returns a confirmed tick of n players, each holding one or
// two keys; every fourth has also just pressed Space, and every other has
// its cursor in the window.
func typicalTick(n int) ConfirmedTick {
	keys := []input.Key{input.KeyArrowLeft, input.KeyArrowRight, input.KeyArrowUp, input.KeyW, input.KeyA, input.KeyD}
	t := ConfirmedTick{Early: 4200 * time.Microsecond}
	for i := range n {
		var in input.Queue
		in.Push(input.Event{Kind: input.KeyDown, Key: keys[i%len(keys)]})
		if i%3 == 0 {
			in.Push(input.Event{Kind: input.KeyDown, Key: keys[(i+1)%len(keys)]})
		}
		if i%2 == 0 {
			in.Push(input.Event{Kind: input.CursorMove, X: float64(100 + 7*i), Y: 360.5})
		}
		in.Advance(0)
		if i%4 == 0 {
			in.Push(input.Event{Time: time.Millisecond, Kind: input.KeyDown, Key: input.KeySpace})
		}
		t.Inputs = append(t.Inputs, PlayerInput{Player: PlayerID(i), Input: in.Advance(time.Millisecond)})
	}
	return t
}

func BenchmarkConfirmed(b *testing.B) {
	for _, players := range []int{8, 64} {
		m := &Confirmed{First: 1000, Ticks: []ConfirmedTick{typicalTick(players)}}
		buf := AppendMessage(nil, m)
		b.Run(fmt.Sprintf("encode/%dplayers", players), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(buf)))
			for b.Loop() {
				buf = AppendMessage(buf[:0], m)
			}
		})
		b.Run(fmt.Sprintf("decode/%dplayers", players), func(b *testing.B) {
			src := bytes.NewReader(buf)
			r := NewReader(src, MaxServerMessage)
			b.ReportAllocs()
			b.SetBytes(int64(len(buf)))
			for b.Loop() {
				src.Reset(buf)
				r.err = nil // the end of the last loop's stream
				if _, err := r.ReadMessage(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestSizes logs the bytes of typical messages (go test -v -run Sizes).
func TestSizes(t *testing.T) {
	one := held(input.KeyArrowLeft)
	two := held(input.KeyArrowLeft, input.KeyArrowUp)
	press := snap(0, 0, input.KeySpace)
	var in input.Queue
	in.Push(input.Event{Kind: input.CursorMove, X: 812.25, Y: 407.5})
	in.Push(input.Event{Kind: input.KeyDown, Key: input.KeyArrowLeft})
	in.Advance(0)
	cursor := in.Advance(time.Millisecond)
	for _, tc := range []struct {
		name string
		s    input.Sample
	}{{"nothing", input.Sample{}}, {"one key held", one}, {"two keys held", two}, {"Space pressed", press}, {"one key held, cursor at 812.25, 407.5", cursor}} {
		n := len(appendSample(nil, &tc.s))
		msg := len(AppendMessage(nil, &Input{First: 1, Inputs: []input.Sample{tc.s}}))
		t.Logf("input %-38s %2d bytes; an Input message of one tick %d bytes", tc.name+":", n, msg)
	}
	if n := len(appendSample(nil, &one)); n != 4 {
		t.Errorf("one key held: %d bytes, want 4", n)
	}
	for _, players := range []int{4, 8, 64} {
		tick := typicalTick(players)
		n := len(AppendMessage(nil, &Confirmed{First: 1, Ticks: []ConfirmedTick{tick}}))
		keys := ConfirmedTick{Early: tick.Early}
		for i := range players {
			keys.Inputs = append(keys.Inputs, PlayerInput{PlayerID(i), held(input.KeyArrowLeft + input.Key(i%4))})
		}
		nk := len(AppendMessage(nil, &Confirmed{First: 1, Ticks: []ConfirmedTick{keys}}))
		t.Logf("Confirmed, one tick of %2d players: %4d bytes (typical mix), %4d bytes (one key held each)", players, n, nk)
	}
}
