package netplay_test

import (
	"net"
	"slices"
	"testing"
	"time"

	"github.com/nebulaengine/nebula/engine/netplay/wire"
)

// BenchmarkHandshakeRefused measures a server refusing connect tokens
// end to end over loopback TCP, client and server in this process: a
// connection, the preamble and a Hello with a forged or an expired
// token, the server's preamble and refusal read back, the connection
// closed. Run it with -cpu 1 for one core's rate (refusals/s); most of
// it is TCP's own cost (BenchmarkOpenRefused in package token measures
// the token's check alone).
func BenchmarkHandshakeRefused(b *testing.B) {
	key := testTokenKey(b, 1)
	cfg := tokenConfig(1, 0, key)
	cfg.MaxPending = 1024
	ts := startServerWith(b, testEngine(b), cfg, false)
	good := mintFor(b, key, testMatch, 0, time.Now())
	forged := slices.Clone(good.Token)
	forged[len(forged)-20] ^= 1
	expired := mintFor(b, key, testMatch, 0, time.Now().Add(-time.Hour)).Token
	for _, bc := range []struct {
		name  string
		token []byte
	}{{"forged", forged}, {"expired", expired}} {
		b.Run(bc.name, func(b *testing.B) {
			hello := wire.AppendPreamble(nil)
			hello = wire.AppendMessage(hello, &wire.Hello{Version: wire.Version, Role: wire.RolePlayer, Scene: testScene,
				Fingerprint: ts.e.World.Schema().Fingerprint(), Token: bc.token, Salt: [wire.SaltSize]byte{1}})
			b.ReportAllocs()
			for b.Loop() {
				conn, err := net.Dial("tcp", ts.addr)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := conn.Write(hello); err != nil {
					b.Fatal(err)
				}
				r := wire.NewReader(conn, wire.MaxServerMessage)
				if _, err := r.ReadServerPreamble(); err != nil {
					b.Fatal(err)
				}
				m, err := r.ReadMessage()
				if ref, ok := m.(*wire.Refuse); !ok || ref.Reason != wire.ReasonToken {
					b.Fatalf("%v, %v; want the token's refusal", m, err)
				}
				conn.Close()
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "refusals/s")
		})
	}
}
