package prof

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/pprof"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	rtpprof "runtime/pprof"
	"runtime/trace"
	"strconv"
	"time"

	"github.com/sirupsen/logrus"
)

// Options are the profiling switches. An empty field leaves that switch
// off.
type Options struct {
	CPUProfile string // -cpuprofile: write a CPU profile to this file
	MemProfile string // -memprofile: write a heap profile to this file at Stop
	Trace      string // -trace: write an execution trace to this file
	PprofAddr  string // -pprof: serve net/http/pprof on this address (see ParseAddr)
}

// AddrAccepted says what ParseAddr accepts; it ends the message of a
// malformed address.
const AddrAccepted = "must be port, :port or host:port, with host an IP address or localhost (none = 127.0.0.1) and port from 0 to 65535"

// ParseAddr checks a -pprof address and returns the address to listen on:
// host:port, :port or port, where an empty host means 127.0.0.1 and an
// explicit host (localhost or an IP address, IPv6 in brackets) is kept. The
// error of a malformed address is one line naming the flag and saying what
// is accepted.
func ParseAddr(s string) (string, error) {
	bad := fmt.Errorf("-pprof %s: %s", s, AddrAccepted)
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		// A bare port.
		host, port = "", s
	}
	n, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return "", bad
	}
	switch {
	case host == "":
		host = "127.0.0.1"
	case host == "localhost":
	default:
		ip, err := netip.ParseAddr(host)
		if err != nil {
			return "", bad
		}
		host = ip.String()
	}
	return net.JoinHostPort(host, strconv.FormatUint(n, 10)), nil
}

// A Profiler is the profiling Start turned on. Stop turns it off.
type Profiler struct {
	opts Options
	log  logrus.FieldLogger

	cpu, mem, trace *os.File
	srv             *http.Server
	ln              net.Listener
	served          chan error // the server's result
	stopped         bool
}

// Start checks and opens everything first — creates or truncates the
// files and listens on the pprof address — and only then starts the CPU
// profile, the execution trace and the pprof server. If anything fails it
// undoes what it did (removing the files it created) and returns an error
// whose text is one line naming the flag and, where there is one, the
// path or address. A nil log discards messages.
func Start(opts Options, log logrus.FieldLogger) (s *Profiler, err error) {
	if log == nil {
		l := logrus.New()
		l.SetOutput(io.Discard)
		log = l
	}
	var addr string
	if opts.PprofAddr != "" {
		if addr, err = ParseAddr(opts.PprofAddr); err != nil {
			return nil, err
		}
	}
	if err := distinctFiles(opts); err != nil {
		return nil, err
	}

	s = &Profiler{opts: opts, log: log}
	defer func() {
		if err != nil {
			s.abort()
			s = nil
		}
	}()
	if s.cpu, err = create("cpuprofile", opts.CPUProfile); err != nil {
		return s, err
	}
	if s.mem, err = create("memprofile", opts.MemProfile); err != nil {
		return s, err
	}
	if s.trace, err = create("trace", opts.Trace); err != nil {
		return s, err
	}
	if addr != "" {
		if s.ln, err = net.Listen("tcp", addr); err != nil {
			return s, fmt.Errorf("-pprof %s: cannot listen: %w", opts.PprofAddr, netCause(err))
		}
	}

	if s.cpu != nil {
		if err = rtpprof.StartCPUProfile(s.cpu); err != nil {
			return s, fmt.Errorf("-cpuprofile %s: cannot start: %w", opts.CPUProfile, err)
		}
	}
	if s.trace != nil {
		if err = trace.Start(s.trace); err != nil {
			if s.cpu != nil {
				rtpprof.StopCPUProfile()
			}
			return s, fmt.Errorf("-trace %s: cannot start: %w", opts.Trace, err)
		}
	}
	if s.ln != nil {
		s.serve()
	}
	if s.cpu != nil || s.mem != nil || s.trace != nil {
		log.WithFields(logrus.Fields{
			"cpuprofile": opts.CPUProfile,
			"memprofile": opts.MemProfile,
			"trace":      opts.Trace,
		}).Info("profiling on")
	}
	return s, nil
}

// distinctFiles reports two switches naming the same file, which would
// write over each other.
func distinctFiles(opts Options) error {
	files := []struct{ flag, path string }{
		{"cpuprofile", opts.CPUProfile},
		{"memprofile", opts.MemProfile},
		{"trace", opts.Trace},
	}
	for i, a := range files {
		for _, b := range files[:i] {
			if a.path != "" && b.path != "" && samePath(a.path, b.path) {
				return fmt.Errorf("-%s %s: same file as -%s", a.flag, a.path, b.flag)
			}
		}
	}
	return nil
}

// samePath reports whether a and b name the same file (lexically, or as
// one existing file).
func samePath(a, b string) bool {
	if absA, err := filepath.Abs(a); err == nil {
		if absB, err := filepath.Abs(b); err == nil && absA == absB {
			return true
		}
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// create creates or truncates the file for a flag; an empty path is no
// file.
func create(flag, path string) (*os.File, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("-%s %s: cannot create file: %w", flag, path, pathCause(err))
	}
	return f, nil
}

// pathCause strips the operation and path from a *fs.PathError, which the
// caller's message already names.
func pathCause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// netCause strips the operation and address from a *net.OpError and the
// system call's name from what it wraps, leaving the reason, such as
// "address already in use".
func netCause(err error) error {
	var oe *net.OpError
	if errors.As(err, &oe) {
		err = oe.Err
	}
	var se *os.SyscallError
	if errors.As(err, &se) {
		err = se.Err
	}
	return err
}

// serve serves net/http/pprof on the session's listener with a mux of its
// own.
func (s *Profiler) serve() {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	s.served = make(chan error, 1)
	go func() { s.served <- s.srv.Serve(s.ln) }()
	s.log.WithField("url", s.URL()).Info("pprof serving")
}

// URL returns the address of the pprof index, such as
// http://127.0.0.1:6060/debug/pprof/, with the port actually listened on;
// it is empty when there is no server.
func (s *Profiler) URL() string {
	if s.ln == nil {
		return ""
	}
	return "http://" + s.ln.Addr().String() + "/debug/pprof/"
}

// Stop stops the CPU profile and the trace, writes the heap profile after a
// garbage collection (so it shows live memory as of now), closes the files
// and the server (cutting off requests in progress, such as a 30-second
// /debug/pprof/profile). Everything is attempted; the first failure is
// returned as one line naming the flag and path, and any later ones are
// logged. Calling Stop again does nothing and returns nil.
func (s *Profiler) Stop() error {
	if s.stopped {
		return nil
	}
	s.stopped = true
	var first error
	fail := func(err error) {
		if first == nil {
			first = err
		} else {
			s.log.WithError(err).Error("profiling")
		}
	}
	if s.cpu != nil {
		rtpprof.StopCPUProfile()
		if err := s.cpu.Close(); err != nil {
			fail(fmt.Errorf("-cpuprofile %s: cannot write: %w", s.opts.CPUProfile, pathCause(err)))
		}
	}
	if s.trace != nil {
		trace.Stop()
		if err := s.trace.Close(); err != nil {
			fail(fmt.Errorf("-trace %s: cannot write: %w", s.opts.Trace, pathCause(err)))
		}
	}
	if s.mem != nil {
		runtime.GC()
		err := rtpprof.Lookup("heap").WriteTo(s.mem, 0)
		if cerr := s.mem.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			fail(fmt.Errorf("-memprofile %s: cannot write: %w", s.opts.MemProfile, pathCause(err)))
		}
	}
	if s.srv != nil {
		if err := s.srv.Close(); err != nil {
			fail(fmt.Errorf("-pprof %s: cannot close the server: %w", s.opts.PprofAddr, netCause(err)))
		}
		if err := <-s.served; err != nil && !errors.Is(err, http.ErrServerClosed) {
			fail(fmt.Errorf("-pprof %s: the server failed: %w", s.opts.PprofAddr, netCause(err)))
		}
	}
	if first == nil && (s.cpu != nil || s.mem != nil || s.trace != nil) {
		s.log.WithFields(logrus.Fields{
			"cpuprofile": s.opts.CPUProfile,
			"memprofile": s.opts.MemProfile,
			"trace":      s.opts.Trace,
		}).Info("profiles written")
	}
	return first
}

// abort undoes a Start that failed before anything was started: it closes
// the listener and closes and removes the files.
func (s *Profiler) abort() {
	if s.ln != nil {
		s.ln.Close()
	}
	for _, f := range []*os.File{s.cpu, s.mem, s.trace} {
		if f != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}
}
