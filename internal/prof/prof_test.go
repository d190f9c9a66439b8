package prof

import (
	"errors"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/sirupsen/logrus"
	logtest "github.com/sirupsen/logrus/hooks/test"
	"golang.org/x/exp/trace"
)

// The CPU profile and the execution trace are one per process, so these
// tests do not run in parallel.

func TestParseAddr(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{":6060", "127.0.0.1:6060"},
		{"6060", "127.0.0.1:6060"},
		{":0", "127.0.0.1:0"},
		{"06060", "127.0.0.1:6060"},
		{"localhost:6060", "localhost:6060"},
		{"127.0.0.1:6060", "127.0.0.1:6060"},
		{"0.0.0.0:6060", "0.0.0.0:6060"},
		{"192.168.1.20:8080", "192.168.1.20:8080"},
		{"[::1]:6060", "[::1]:6060"},
		{"[::]:6060", "[::]:6060"},
		{"[fe80::1%eth0]:6060", "[fe80::1%eth0]:6060"},
		{":65535", "127.0.0.1:65535"},
	} {
		got, err := ParseAddr(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseAddr(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{
		"", ":", "localhost", "localhost:notaport", "1.2.3.4.5:80", "example.com:80",
		":65536", ":-1", "+80", "-1", "0x50", ":http", "::1", "[::1]", "1.2.3.4:", "1.2.3.4",
		"256.0.0.1:80", "host:6060", " :6060",
	} {
		got, err := ParseAddr(in)
		want := "-pprof " + in + ": " + AddrAccepted
		if err == nil || err.Error() != want {
			t.Errorf("ParseAddr(%q) = %q, %v; want error %q", in, got, err, want)
		}
	}
}

func TestStartFails(t *testing.T) {
	tmp := t.TempDir()
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	missing := filepath.Join(tmp, "missing", "cpu.prof")
	good := filepath.Join(tmp, "good.prof")
	sameGood := tmp + "/./good.prof"

	for _, tc := range []struct {
		name string
		opts Options
		want string
	}{
		{"unwritable cpuprofile", Options{CPUProfile: missing},
			"-cpuprofile " + missing + ": cannot create file: no such file or directory"},
		{"directory as memprofile", Options{CPUProfile: good, MemProfile: tmp},
			"-memprofile " + tmp + ": cannot create file: is a directory"},
		{"directory as trace", Options{Trace: tmp},
			"-trace " + tmp + ": cannot create file: is a directory"},
		{"taken port", Options{CPUProfile: good, PprofAddr: taken.Addr().String()},
			"-pprof " + taken.Addr().String() + ": cannot listen: address already in use"},
		{"name not a port", Options{PprofAddr: "localhost:notaport"},
			"-pprof localhost:notaport: " + AddrAccepted},
		{"five-part address", Options{CPUProfile: good, PprofAddr: "1.2.3.4.5:80"},
			"-pprof 1.2.3.4.5:80: " + AddrAccepted},
		{"same file twice", Options{CPUProfile: good, Trace: sameGood},
			"-trace " + sameGood + ": same file as -cpuprofile"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Start(tc.opts, nil)
			if err == nil {
				s.Stop()
				t.Fatalf("Start(%+v) succeeded, want %q", tc.opts, tc.want)
			}
			if s != nil {
				t.Errorf("Start returned a session with the error")
			}
			if err.Error() != tc.want {
				t.Fatalf("error %q, want %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q is more than one line", err)
			}
			if _, err := os.Stat(good); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("a failed Start left %s behind (%v)", good, err)
			}
		})
	}
	// Nothing was left running: a good session starts.
	s, err := Start(Options{CPUProfile: good, Trace: filepath.Join(tmp, "trace.out")}, nil)
	if err != nil {
		t.Fatalf("Start after the failures: %v", err)
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
}

func TestStartWhileProfiling(t *testing.T) {
	tmp := t.TempDir()
	first, err := Start(Options{CPUProfile: filepath.Join(tmp, "a.prof")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Stop()
	path := filepath.Join(tmp, "b.prof")
	_, err = Start(Options{CPUProfile: path}, nil)
	want := "-cpuprofile " + path + ": cannot start: cpu profiling already in use"
	if err == nil || err.Error() != want {
		t.Fatalf("error %v, want %q", err, want)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a failed Start left %s behind (%v)", path, err)
	}
}

// work keeps the CPU busy and allocates, so the profiles have something in
// them.
func work() []byte {
	var keep []byte
	x := uint64(1)
	for i := range 3_000_000 {
		x = x*6364136223846793005 + 1442695040888963407
		if i%1000 == 0 {
			keep = append(keep, byte(x>>56))
		}
	}
	return keep
}

// get fetches url and returns the status and body.
func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

func TestSession(t *testing.T) {
	tmp := t.TempDir()
	opts := Options{
		CPUProfile: filepath.Join(tmp, "cpu.prof"),
		MemProfile: filepath.Join(tmp, "mem.prof"),
		Trace:      filepath.Join(tmp, "trace.out"),
		PprofAddr:  ":0",
	}
	log, hook := logtest.NewNullLogger()
	s, err := Start(opts, log)
	if err != nil {
		t.Fatal(err)
	}
	host, _, err := net.SplitHostPort(s.ln.Addr().String())
	if err != nil || host != "127.0.0.1" {
		t.Fatalf("pprof listens on %s, want 127.0.0.1", s.ln.Addr())
	}
	url := s.URL()
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/debug/pprof/") {
		t.Fatalf("URL() = %q", url)
	}
	logged := false
	for _, e := range hook.AllEntries() {
		logged = logged || (e.Message == "pprof serving" && e.Data["url"] == url)
	}
	if !logged {
		t.Errorf("the pprof URL %s was not logged", url)
	}

	sink := work()
	for _, tc := range []struct {
		path   string
		status int
		body   string
	}{
		{"", http.StatusOK, "goroutine"},
		{"heap?debug=1", http.StatusOK, "heap profile"},
		{"cmdline", http.StatusOK, ""},
		// One CPU profile and one trace at a time: -cpuprofile and -trace
		// hold them.
		{"profile?seconds=1", http.StatusInternalServerError, "cpu profiling already in use"},
		{"trace?seconds=1", http.StatusInternalServerError, "already enabled"},
	} {
		status, body := get(t, url+tc.path)
		if status != tc.status || !strings.Contains(body, tc.body) {
			t.Errorf("GET %s: %d %.80q, want %d and %q", tc.path, status, body, tc.status, tc.body)
		}
	}
	if status, _ := get(t, strings.TrimSuffix(url, "debug/pprof/")); status != http.StatusNotFound {
		t.Errorf("GET / = %d, want 404: only /debug/pprof/ is served", status)
	}
	_ = sink

	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := s.Stop(); err != nil {
		t.Fatalf("second Stop: %v", err)
	}
	if _, err := http.Get(url); err == nil {
		t.Errorf("the pprof server still answers after Stop")
	}

	for _, path := range []string{opts.CPUProfile, opts.MemProfile} {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		p, err := profile.Parse(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if len(p.SampleType) == 0 {
			t.Errorf("%s has no sample types", path)
		}
	}
	f, err := os.Open(opts.Trace)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := trace.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	events := 0
	for {
		_, err := r.ReadEvent()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("trace: after %d events: %v", events, err)
		}
		events++
	}
	if events == 0 {
		t.Fatal("the trace has no events")
	}
}

func TestNothingOn(t *testing.T) {
	s, err := Start(Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.URL() != "" {
		t.Errorf("URL() = %q without a server", s.URL())
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
}

func ExampleStart() {
	log := logrus.New()
	sess, err := Start(Options{CPUProfile: "cpu.prof", PprofAddr: ":6060"}, log)
	if err != nil {
		log.Error(err) // -cpuprofile cpu.prof: cannot create file: permission denied
		return
	}
	defer sess.Stop()
	// ... the program's work ...

	// No output: it writes cpu.prof in the working directory and serves
	// pprof on port 6060 of every interface, which tests must not.
}
