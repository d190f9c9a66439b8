package netplay

import (
	"net"
	"testing"
)

// A host's count is its IP address's whatever the port and the family
// (an IPv4-mapped IPv6 address is its IPv4 one); a host with a quarter of
// the slots gets no more once half of them are taken, and released counts
// free the slots; an address that is not an IP address is not limited.
func TestHostLimit(t *testing.T) {
	var h hostLimit
	const slots = 8 // a quarter: 2
	a := &net.TCPAddr{IP: net.IPv4(10, 0, 0, 1), Port: 1}
	b := &net.UDPAddr{IP: net.ParseIP("::ffff:10.0.0.1"), Port: 2}
	other := &net.TCPAddr{IP: net.IPv4(10, 0, 0, 2), Port: 1}
	if !h.acquire(a, 0, slots) || !h.acquire(b, 1, slots) {
		t.Fatal("a host's first two connections were refused")
	}
	if !h.acquire(a, 3, slots) {
		t.Error("a host's third connection was refused while fewer than half the slots are taken")
	}
	if h.acquire(b, 4, slots) {
		t.Error("a host's fourth connection was counted with half the slots taken")
	}
	if !h.acquire(other, 4, slots) {
		t.Error("another host's connection was refused")
	}
	h.release(b)
	h.release(a)
	if !h.acquire(a, 3, slots) {
		t.Error("a released slot was not free again")
	}
	for range 3 {
		if !h.acquire(pipeAddr{}, slots, slots) {
			t.Error("a connection without an IP address was refused")
		}
	}
	h.release(a)
	h.release(a)
	h.release(other)
	if len(h.n) != 0 {
		t.Errorf("after every release, counts remain: %v", h.n)
	}
}

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "pipe" }
