package netplay_test

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nebulaengine/nebula/engine/netplay"
	"github.com/nebulaengine/nebula/engine/netplay/wire"
)

// readTap records what a client reads from its TCP connection.
type readTap struct {
	net.Conn
	mu   sync.Mutex
	read []byte
}

func (c *readTap) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.mu.Lock()
	c.read = append(c.read, b[:n]...)
	c.mu.Unlock()
	return n, err
}

func (c *readTap) bytes() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Clone(c.read)
}

// A server that requires tokens refuses a client with a valid token for
// another scene or schema sealed, as it seals everything after a valid
// token (package wire's doc): nothing of the refusal's text, which names
// the server's scene and schema, goes over the wire in clear, and the
// client reads the refusal.
func TestRefusalAfterAValidTokenIsSealed(t *testing.T) {
	key := testTokenKey(t, 1)
	ts := startServer(t, tokenConfig(1, 0, key))
	fp := fingerprint(t, testEngine)
	for _, tc := range []struct {
		name string
		mod  func(*netplay.ClientConfig)
		text string // in the refusal, and never in clear on the wire
	}{
		{"scene", func(c *netplay.ClientConfig) { c.Scene = "another-scene" }, testScene},
		{"schema", func(c *netplay.ClientConfig) { c.Fingerprint = fp + 1 }, fmt.Sprintf("%016x", fp)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var tap *readTap
			cr := mintFor(t, key, testMatch, 0, time.Now())
			_, err := dialClient(t, ts.addr, wire.RolePlayer, withToken(cr, tc.mod, func(c *netplay.ClientConfig) {
				c.Dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
					var d net.Dialer
					conn, err := d.DialContext(ctx, network, addr)
					if err != nil {
						return nil, err
					}
					tap = &readTap{Conn: conn}
					return tap, nil
				}
			}))
			if err == nil || !strings.Contains(err.Error(), "refused") || !strings.Contains(err.Error(), tc.text) {
				t.Fatalf("Dial: %v, want the server's refusal naming %q", err, tc.text)
			}
			got := tap.bytes()
			if len(got) <= wire.PreambleSize {
				t.Fatalf("the client read %d bytes: no refusal after the preamble", len(got))
			}
			if bytes.Contains(got, []byte(tc.text)) {
				t.Errorf("the refusal went over the wire in clear: %q in the %d bytes the client read", tc.text, len(got))
			}
		})
	}
}
