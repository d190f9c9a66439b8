package netplay

import (
	"net"
	"testing"
)

// A host's count is its IP address's whatever the port and the family
// (an IPv4-mapped IPv6 address is its IPv4 one), up to the limit, and
// released counts free the slots; an address that is not an IP address
// is not limited.
func TestHostLimit(t *testing.T) {
	var h hostLimit
	a := &net.TCPAddr{IP: net.IPv4(10, 0, 0, 1), Port: 1}
	b := &net.UDPAddr{IP: net.ParseIP("::ffff:10.0.0.1"), Port: 2}
	other := &net.TCPAddr{IP: net.IPv4(10, 0, 0, 2), Port: 1}
	if !h.acquire(a, 2) || !h.acquire(b, 2) {
		t.Fatal("two connections of a host under a limit of 2 were refused")
	}
	if h.acquire(a, 2) {
		t.Error("a third connection of a host under a limit of 2 was counted")
	}
	if !h.acquire(other, 2) {
		t.Error("another host's connection was refused")
	}
	h.release(b)
	if !h.acquire(a, 2) {
		t.Error("a released slot was not free again")
	}
	for range 3 {
		if !h.acquire(pipeAddr{}, 1) {
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
