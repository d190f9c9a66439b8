package netplay

import (
	"net"
	"net/netip"
	"sync"
)

// hostLimit counts the connections in their handshake per remote host
// (its IP address, whatever the port), so that one host cannot take
// every handshake slot and keep everyone else out. A connection whose
// address is not an IP address is not counted.
//
// Once half of the server's slots are taken, a host that has a quarter
// of them gets no more: a host alone may have half the slots (a burst of
// honest clients from one machine or one NAT), and it takes at least
// three hosts to fill every slot.
type hostLimit struct {
	mu sync.Mutex
	n  map[netip.Addr]int
}

// pendingPerHost is the connections one host may have in their handshake
// once half of the server's maxPending slots are taken: a quarter of
// them, at least 1.
func pendingPerHost(maxPending int) int { return max(1, maxPending/4) }

// hostOf returns the IP address of a, IPv4-mapped IPv6 addresses as IPv4;
// false when a is not an IP address.
func hostOf(a net.Addr) (netip.Addr, bool) {
	var ap netip.AddrPort
	switch a := a.(type) {
	case *net.TCPAddr:
		ap = a.AddrPort()
	case *net.UDPAddr:
		ap = a.AddrPort()
	default:
		var err error
		if ap, err = netip.ParseAddrPort(a.String()); err != nil {
			return netip.Addr{}, false
		}
	}
	return ap.Addr().Unmap(), ap.Addr().IsValid()
}

// acquire counts a connection from a in its handshake and reports true,
// or reports false when pending connections of the server's maxPending
// are in their handshake, at least half, and a's host has
// pendingPerHost(maxPending) of them.
func (h *hostLimit) acquire(a net.Addr, pending, maxPending int) bool {
	host, ok := hostOf(a)
	if !ok {
		return true
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if 2*pending >= maxPending && h.n[host] >= pendingPerHost(maxPending) {
		return false
	}
	if h.n == nil {
		h.n = map[netip.Addr]int{}
	}
	h.n[host]++
	return true
}

// release ends the count of a connection from a that acquire counted.
func (h *hostLimit) release(a net.Addr) {
	host, ok := hostOf(a)
	if !ok {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.n[host]--; h.n[host] <= 0 {
		delete(h.n, host)
	}
}
