package serverops

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Handler returns the operator port's handler: /healthz (200 and "ok: ..."
// while h says healthy, 503 and why not otherwise) and /metrics (m's
// registry in Prometheus's text format).
func Handler(m *Metrics, h *Health) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		ok, why := h.Check()
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		if !ok {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		w.Write([]byte(why + "\n"))
	})
	mux.Handle("GET /metrics", promhttp.HandlerFor(m.Registry(), promhttp.HandlerOpts{Registry: m.Registry()}))
	return mux
}

// Server is the operator port's HTTP server.
type Server struct {
	hs   *http.Server
	done chan error
}

// Serve serves Handler(m, h) on ln until Close.
func Serve(ln net.Listener, m *Metrics, h *Health) *Server {
	s := &Server{
		hs:   &http.Server{Handler: Handler(m, h), ReadHeaderTimeout: 5 * time.Second, WriteTimeout: 10 * time.Second},
		done: make(chan error, 1),
	}
	go func() {
		err := s.hs.Serve(ln)
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		s.done <- err
	}()
	return s
}

// Close stops the server, letting the requests in flight finish (for at
// most a second).
func (s *Server) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if s.hs.Shutdown(ctx) != nil {
		s.hs.Close()
	}
}

// Wait returns once the server has stopped, with the error it failed
// with (nil after Close).
func (s *Server) Wait() error { return <-s.done }
