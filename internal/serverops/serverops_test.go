package serverops

import (
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Health is healthy while the match waits for its players and while it
// ticks, and unhealthy once it stalls or ends, saying why.
func TestHealth(t *testing.T) {
	now := time.Unix(1000, 0)
	h := NewHealth(2 * time.Second)
	h.now = func() time.Time { return now }
	check := func(wantOK bool, wantWhy string) {
		t.Helper()
		ok, why := h.Check()
		if ok != wantOK || why != wantWhy {
			t.Errorf("Check() = %v, %q; want %v, %q", ok, why, wantOK, wantWhy)
		}
	}
	check(true, "ok: waiting for the players")
	now = now.Add(time.Hour) // waiting is not stalling
	check(true, "ok: waiting for the players")
	h.Trace().TickConfirmed(1, time.Millisecond)
	check(true, "ok: tick 1")
	now = now.Add(2 * time.Second)
	check(true, "ok: tick 1")
	now = now.Add(time.Millisecond)
	check(false, "stalled: no tick confirmed for 2.001s (last tick 1)")
	h.Ticked(2)
	check(true, "ok: tick 2")
	h.Ending()
	check(false, "ending: the match is over or ending (last tick 2)")
}

// The operator port serves /healthz (200, then 503) and /metrics, whose
// figures the trace moves, on a real socket.
func TestServe(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m := NewMetrics(MatchInfo{Match: "m1", Scene: "s"})
	h := NewHealth(time.Hour)
	srv := Serve(ln, m, h)
	base := "http://" + ln.Addr().String()
	get := func(path string) (int, string) {
		t.Helper()
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	tr := m.Trace()
	for tick := uint64(1); tick <= 3; tick++ {
		tr.TickConfirmed(tick, 300*time.Microsecond)
	}
	tr.PlayersChanged(3, 1)
	tr.BytesRead(100)
	tr.BytesWritten(250)
	tr.HandshakeRefused("full")
	tr.HandshakeRefused("full")
	tr.HandshakeRefused("token-expired")
	tr.Desync()
	tr.Resync()
	tr.LogWritten(2*time.Millisecond, true)
	tr.LogWritten(20*time.Microsecond, false)
	h.Ticked(3)

	if code, body := get("/healthz"); code != 200 || body != "ok: tick 3\n" {
		t.Errorf("/healthz: %d %q", code, body)
	}
	code, body := get("/metrics")
	if code != 200 {
		t.Fatalf("/metrics: %d", code)
	}
	for _, want := range []string{
		`nebula_server_info{match="m1",scene="s"} 1`,
		"nebula_server_ticks_total 3",
		"nebula_server_tick 3",
		"nebula_server_tick_seconds_count 3",
		`nebula_server_tick_seconds_bucket{le="0.00025"} 0`,
		`nebula_server_tick_seconds_bucket{le="0.0005"} 3`,
		"nebula_server_players 3",
		"nebula_server_spectators 1",
		"nebula_server_bytes_read_total 100",
		"nebula_server_bytes_written_total 250",
		`nebula_server_handshakes_refused_total{reason="full"} 2`,
		`nebula_server_handshakes_refused_total{reason="token-expired"} 1`,
		"nebula_server_desyncs_total 1",
		"nebula_server_resyncs_total 1",
		`nebula_server_log_write_seconds_count{synced="true"} 1`,
		`nebula_server_log_write_seconds_count{synced="false"} 1`,
		"process_resident_memory_bytes ",
		"go_goroutines ",
	} {
		if !strings.Contains(body, "\n"+want) {
			t.Errorf("/metrics has no line %q", want)
		}
	}
	if code, body := get("/debug/pprof/"); code != 200 || !strings.Contains(body, "goroutine") {
		t.Errorf("/debug/pprof/: %d", code)
	}
	h.Ending()
	if code, body := get("/healthz"); code != 503 || !strings.HasPrefix(body, "ending") {
		t.Errorf("/healthz once ending: %d %q", code, body)
	}
	srv.Close()
	if err := srv.Wait(); err != nil {
		t.Errorf("Wait after Close: %v", err)
	}
	if _, err := http.Get(base + "/healthz"); err == nil {
		t.Error("the port still answers after Close")
	}
}

// Two servers' metrics are apart: each has its own registry.
func TestMetricsRegistriesApart(t *testing.T) {
	a, b := NewMetrics(MatchInfo{Match: "a"}), NewMetrics(MatchInfo{Match: "b"})
	a.Trace().TickConfirmed(1, time.Millisecond)
	ticks := func(m *Metrics) float64 {
		t.Helper()
		fams, err := m.Registry().Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fams {
			if f.GetName() == "nebula_server_ticks_total" {
				return f.GetMetric()[0].GetCounter().GetValue()
			}
		}
		t.Fatal("no nebula_server_ticks_total")
		return 0
	}
	if ta, tb := ticks(a), ticks(b); ta != 1 || tb != 0 {
		t.Errorf("ticks: a %v, b %v; want 1 and 0", ta, tb)
	}
}
