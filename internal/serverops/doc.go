// Package serverops is a dedicated match server's operator port: its
// health (Health: /healthz answers 200 while the match waits for its
// players or confirms ticks, 503 once it stalls or ends) and its
// Prometheus metrics (Metrics, on /metrics: ticks, tick time, players,
// bytes, refused handshakes, resyncs, desyncs, the match log's writes,
// and the process's memory and CPU), in a registry of their own. Both
// are fed by the server's netplay.ServerTrace, so nothing here reaches
// into the match:
//
//	m := serverops.NewMetrics(serverops.MatchInfo{Match: id, Scene: scene})
//	h := serverops.NewHealth(5 * time.Second)
//	cfg.Trace = ... // m.Trace() and h.Trace(), merged (package gameserver does)
//	ops := serverops.Serve(ln, m, h) // ln: the operator port's listener
//	defer ops.Close()
//
// Package gameserver serves them on -ops; docs/server.md lists the
// metrics.
package serverops
