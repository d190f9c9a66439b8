package netplay

import (
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/nebulaengine/nebula/engine/netplay/wire"
)

// A peer that does not read is dropped once its unsent bytes pass the
// outbox's limit plus the largest message queued, not when the kernel's
// buffers and 72 MiB more have filled; it is sent why once it reads again,
// and the outbox stops.
func TestOutboxDropsAPeerThatDoesNotRead(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	server, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	// Small kernel buffers: the outbox, not the kernel, holds the bytes.
	server.(*net.TCPConn).SetWriteBuffer(4096)
	client.(*net.TCPConn).SetReadBuffer(4096)

	const limit = 16 << 10
	o := newOutbox(server, limit, nil)
	o.dropWait = time.Minute // the reader below takes its time on a busy machine
	msg := &wire.Snapshot{Tick: 1, Data: make([]byte, 1000)}
	size := len(wire.AppendMessage(nil, msg))
	queued := 0
	for queued < 10000 && o.queue(msg) {
		queued++
	}
	reason := o.dropReason()
	if !errors.Is(reason, errOutboxFull) {
		t.Fatalf("after %d messages of %d bytes the outbox's drop reason is %v, want %v", queued, size, reason, errOutboxFull)
	}
	// What the kernel holds on loopback with 4 KiB buffers is well under
	// 1 MiB; the old limit was 8 MiB plus a 64 MiB snapshot.
	if b := queued * size; b > 1<<20 {
		t.Errorf("%d bytes queued before the drop, want at most the limit (%d) plus a message plus the kernel's buffers", b, limit)
	}
	t.Logf("dropped after %d messages of %d bytes (%d bytes); reason: %v", queued, size, queued*size, reason)
	if o.queue(msg) {
		t.Error("a dropped outbox accepted a message")
	}

	// The peer reads again: what was in flight, then the reason, then
	// the end of the stream.
	var last wire.Message
	done := make(chan error, 1)
	go func() {
		r := wire.NewReader(client, wire.MaxServerMessage)
		for {
			m, err := r.ReadMessage()
			if err != nil {
				done <- err
				return
			}
			if rf, ok := m.(*wire.Refuse); ok {
				c := *rf
				last = &c
			} else {
				last = m
			}
		}
	}()
	if err := o.wait(time.Minute); err != nil {
		t.Fatalf("the outbox stopped with %v, want nil (it sent the reason)", err)
	}
	server.Close()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the peer did not see the connection end")
	}
	rf, ok := last.(*wire.Refuse)
	if !ok || rf.Reason != wire.ReasonDropped || !strings.Contains(rf.Text, "reads too slowly") {
		t.Fatalf("the peer's last message is %#v, want a Refuse (dropped) saying it reads too slowly", last)
	}
}
