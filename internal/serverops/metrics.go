package serverops

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/nebulaengine/nebula/engine/netplay"
)

// MatchInfo names what a server runs, for the nebula_server_info metric.
type MatchInfo struct {
	Match string // the match id
	Scene string // the game's scene id
}

// Metrics are a match server's Prometheus metrics, in a registry of their
// own (never the default global one): fed by the server's
// netplay.ServerTrace (Trace), served by Serve on /metrics.
//
//	nebula_server_info{match,scene}               1
//	nebula_server_ticks_total                      ticks confirmed
//	nebula_server_tick                             the last tick confirmed (by the server before, until a resumed server confirms one)
//	nebula_server_tick_seconds                     histogram: the server's time per tick
//	nebula_server_players, nebula_server_spectators connected now (0 once the match is over)
//	nebula_server_bytes_read_total, nebula_server_bytes_written_total
//	nebula_server_handshakes_refused_total{reason}
//	nebula_server_resyncs_total, nebula_server_desyncs_total
//	nebula_server_log_write_seconds{synced}        histogram: the match log's writes
//
// and the Go runtime's and the process's own (go_*, process_*: memory,
// CPU time, open files).
type Metrics struct {
	reg *prometheus.Registry

	ticks                 prometheus.Counter
	tick                  prometheus.Gauge
	tickTime              prometheus.Histogram
	players, spectators   prometheus.Gauge
	bytesRead, bytesWrite prometheus.Counter
	refused               *prometheus.CounterVec
	resyncs, desyncs      prometheus.Counter
	logWrite              *prometheus.HistogramVec
}

// NewMetrics returns the metrics of the match info names, registered in a
// new registry.
func NewMetrics(info MatchInfo) *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry()}
	const ns = "nebula_server"
	info0 := prometheus.NewGauge(prometheus.GaugeOpts{Namespace: ns, Name: "info", Help: "The match this server runs (always 1).",
		ConstLabels: prometheus.Labels{"match": info.Match, "scene": info.Scene}})
	info0.Set(1)
	m.ticks = prometheus.NewCounter(prometheus.CounterOpts{Namespace: ns, Name: "ticks_total", Help: "Ticks confirmed, simulated and sent to the clients."})
	m.tick = prometheus.NewGauge(prometheus.GaugeOpts{Namespace: ns, Name: "tick", Help: "The last tick confirmed."})
	m.tickTime = prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: ns, Name: "tick_seconds",
		Help:    "The server's time per tick: from the moment it began to confirm the tick to the moment the tick had been simulated and queued to every client.",
		Buckets: tickBuckets})
	m.players = prometheus.NewGauge(prometheus.GaugeOpts{Namespace: ns, Name: "players", Help: "Players connected."})
	m.spectators = prometheus.NewGauge(prometheus.GaugeOpts{Namespace: ns, Name: "spectators", Help: "Spectators connected."})
	m.bytesRead = prometheus.NewCounter(prometheus.CounterOpts{Namespace: ns, Name: "bytes_read_total", Help: "Bytes read from the clients' connections (the protocol's, without TCP/IP or UDP headers)."})
	m.bytesWrite = prometheus.NewCounter(prometheus.CounterOpts{Namespace: ns, Name: "bytes_written_total", Help: "Bytes written to the clients' connections (the protocol's, without TCP/IP or UDP headers)."})
	m.refused = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: "handshakes_refused_total", Help: "Connections refused before they joined the match, by reason."}, []string{"reason"})
	m.resyncs = prometheus.NewCounter(prometheus.CounterOpts{Namespace: ns, Name: "resyncs_total", Help: "Snapshots sent to resynchronise a client whose state hash differed."})
	m.desyncs = prometheus.NewCounter(prometheus.CounterOpts{Namespace: ns, Name: "desyncs_total", Help: "Client state hashes that differed from the server's."})
	m.logWrite = prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: ns, Name: "log_write_seconds",
		Help: "Time of each write of the match log, its fsync included when synced is true.", Buckets: logBuckets}, []string{"synced"})
	m.reg.MustRegister(info0, m.ticks, m.tick, m.tickTime, m.players, m.spectators, m.bytesRead, m.bytesWrite,
		m.refused, m.resyncs, m.desyncs, m.logWrite,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// tickBuckets bound the tick times: 50 µs to 50 ms (a 60 Hz tick is
// 16.7 ms long).
var tickBuckets = []float64{50e-6, 100e-6, 250e-6, 500e-6, 1e-3, 2e-3, 4e-3, 8e-3, 16e-3, 32e-3, 50e-3}

// logBuckets bound the match log's writes: 10 µs (a buffered write) to
// 100 ms (an fsync on a slow disk).
var logBuckets = []float64{10e-6, 50e-6, 100e-6, 500e-6, 1e-3, 5e-3, 10e-3, 50e-3, 100e-3}

// Registry returns the registry the metrics are in.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Trace returns the server trace that feeds the metrics
// (netplay.ServerConfig.Trace).
func (m *Metrics) Trace() *netplay.ServerTrace {
	return &netplay.ServerTrace{
		TickConfirmed: func(tick uint64, took time.Duration) {
			m.ticks.Inc()
			m.tick.Set(float64(tick))
			m.tickTime.Observe(took.Seconds())
		},
		Resumed: func(tick uint64) { m.tick.Set(float64(tick)) },
		PlayersChanged: func(players, spectators int) {
			m.players.Set(float64(players))
			m.spectators.Set(float64(spectators))
		},
		BytesRead:        func(n int) { m.bytesRead.Add(float64(n)) },
		BytesWritten:     func(n int) { m.bytesWrite.Add(float64(n)) },
		HandshakeRefused: func(reason string) { m.refused.WithLabelValues(reason).Inc() },
		Resync:           m.resyncs.Inc,
		Desync:           m.desyncs.Inc,
		LogWritten: func(took time.Duration, synced bool) {
			m.logWrite.WithLabelValues(strconv.FormatBool(synced)).Observe(took.Seconds())
		},
	}
}
