package diag

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	rtpprof "runtime/pprof"
	rttrace "runtime/trace"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/pprof/profile"
	"github.com/sirupsen/logrus"
	logtest "github.com/sirupsen/logrus/hooks/test"
	"golang.org/x/exp/trace"
)

// The flight recorder is one per process, so these tests do not run in
// parallel.

// newTestHitchRecorder opens a recorder on a fresh directory with the
// given limits and closes it at the end of the test.
func newTestHitchRecorder(t *testing.T, minGap time.Duration, maxFiles int) (*HitchRecorder, *logtest.Hook) {
	t.Helper()
	log, hook := logtest.NewNullLogger()
	cfg := DefaultHitchConfig()
	cfg.Dir = t.TempDir()
	cfg.MinGap, cfg.MaxFiles = minGap, maxFiles
	h, err := NewHitchRecorder(cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h, hook
}

// stall does real goroutine work (goroutines handing values over channels,
// allocation, a user log the trace must show) for about d, and until the
// process has had d of CPU time since it began (up to 30 s): a loaded
// machine gives it less CPU than wall time, and the tests look for the
// CPU profiler's samples of it.
func stall(d time.Duration, note string) {
	rttrace.Log(context.Background(), "hitch-test", note)
	cpu0 := cpuTime()
	deadline, giveUp := time.Now().Add(d), time.Now().Add(30*time.Second)
	var busy atomic.Bool
	busy.Store(true)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ch := make(chan []byte)
			go func() {
				for b := range ch {
					_ = b
				}
			}()
			for busy.Load() {
				ch <- make([]byte, 1024)
			}
			close(ch)
		}()
	}
	for {
		time.Sleep(time.Millisecond)
		if now := time.Now(); !now.Before(deadline) && (cpuTime()-cpu0 >= d || now.After(giveUp)) {
			break
		}
	}
	busy.Store(false)
	wg.Wait()
}

// cpuTime returns the CPU time the process has had, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// readTrace reads a whole trace with x/exp/trace and returns how many
// events it holds, the messages of the user logs in category "hitch-test"
// and how many CPU samples it holds.
func readTrace(t *testing.T, r io.Reader) (events int, notes []string, samples int) {
	t.Helper()
	tr, err := trace.NewReader(r)
	if err != nil {
		t.Fatalf("trace.NewReader: %v", err)
	}
	for {
		ev, err := tr.ReadEvent()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("ReadEvent after %d events: %v", events, err)
		}
		events++
		switch ev.Kind() {
		case trace.EventLog:
			if l := ev.Log(); l.Category == "hitch-test" {
				notes = append(notes, l.Message)
			}
		case trace.EventStackSample:
			samples++
		}
	}
	return events, notes, samples
}

// readTraceFile is readTrace on a file.
func readTraceFile(t *testing.T, path string) (events int, notes []string, samples int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return readTrace(t, f)
}

// dirNames lists the names in dir.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestHitchStallGivesOneFile(t *testing.T) {
	h, hook := newTestHitchRecorder(t, 10*time.Second, 20)
	dir := h.cfg.Dir
	const frame = 16 * time.Millisecond
	now := time.Second
	for range 10 {
		h.Observe(now, frame)
		now += frame
	}
	stall(120*time.Millisecond, "stall")
	now += 120 * time.Millisecond
	h.Observe(now, 120*time.Millisecond)
	// More slow frames within MinGap: no more files.
	for _, d := range []time.Duration{80, 200, 51, 300} {
		now += d * time.Millisecond
		h.Observe(now, d*time.Millisecond)
	}
	h.Observe(now+9*time.Second, 90*time.Millisecond)
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}

	want := filepath.Join(dir, "hitch-0001-120ms.trace")
	if got := h.Files(); !slices.Equal(got, []string{want}) {
		t.Fatalf("Files() = %q, want %q", got, want)
	}
	if got := dirNames(t, dir); !slices.Equal(got, []string{"hitch-0001-120ms.trace"}) {
		t.Fatalf("directory holds %q, want only hitch-0001-120ms.trace", got)
	}
	events, notes, _ := readTraceFile(t, want)
	if events == 0 {
		t.Fatal("the hitch trace has no events")
	}
	if !slices.Contains(notes, "stall") {
		t.Errorf("the hitch trace does not show the stall (user logs %q)", notes)
	}

	var saved, done *logrus.Entry
	for _, e := range hook.AllEntries() {
		switch e.Message {
		case "hitch trace saved":
			saved = e
		case "hitch capture done":
			done = e
		}
	}
	if saved == nil || saved.Data["path"] != want || saved.Data["frame_ms"] != 120.0 {
		t.Errorf("saved log entry = %v, want path %s and frame_ms 120", saved, want)
	}
	if done == nil || done.Data["hitches"] != 6 || done.Data["saved"] != 1 {
		t.Errorf("closing log entry = %v, want hitches 6 and saved 1", done)
	}
}

func TestHitchMinGap(t *testing.T) {
	h, _ := newTestHitchRecorder(t, 10*time.Second, 20)
	for _, now := range []time.Duration{
		0,                  // saved
		5 * time.Second,    // within 10s: skipped
		10*time.Second - 1, // just within: skipped
		10 * time.Second,   // 10s after the first: saved
		19 * time.Second,   // skipped
		20*time.Second + 1, // saved
		30*time.Second + 1, // saved
	} {
		h.Observe(now, 60*time.Millisecond)
		h.wg.Wait() // let each capture finish, so only the gap decides
	}
	h.Close()
	if got := len(h.Files()); got != 4 {
		t.Fatalf("%d files, want 4: %q", got, h.Files())
	}
	want := []string{"hitch-0001-60ms.trace", "hitch-0002-60ms.trace", "hitch-0003-60ms.trace", "hitch-0004-60ms.trace"}
	if got := dirNames(t, h.cfg.Dir); !slices.Equal(got, want) {
		t.Fatalf("directory holds %q, want %q", got, want)
	}
}

func TestHitchMaxFiles(t *testing.T) {
	h, hook := newTestHitchRecorder(t, time.Second, 3)
	for i := range 10 {
		h.Observe(time.Duration(i)*time.Second, time.Duration(51+i)*time.Millisecond)
		h.wg.Wait()
	}
	h.Close()
	want := []string{"hitch-0001-51ms.trace", "hitch-0002-52ms.trace", "hitch-0003-53ms.trace"}
	if got := dirNames(t, h.cfg.Dir); !slices.Equal(got, want) {
		t.Fatalf("directory holds %q, want %q", got, want)
	}
	warnings := 0
	for _, e := range hook.AllEntries() {
		if e.Level == logrus.WarnLevel {
			warnings++
			if e.Data["max_files"] != 3 {
				t.Errorf("limit warning %v, want max_files 3", e.Data)
			}
		}
	}
	if warnings != 1 {
		t.Errorf("%d warnings, want exactly one about the file limit", warnings)
	}
}

func TestHitchThreshold(t *testing.T) {
	log, _ := logtest.NewNullLogger()
	cfg := HitchConfig{Dir: t.TempDir(), Threshold: 30 * time.Millisecond}
	h, err := NewHitchRecorder(cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	h.Observe(time.Second, 30*time.Millisecond) // not over the threshold
	h.wg.Wait()
	if got := h.Files(); len(got) != 0 {
		t.Fatalf("a frame at the threshold was saved: %q", got)
	}
	h.Observe(2*time.Second, 30*time.Millisecond+1)
	h.Close()
	if got := dirNames(t, cfg.Dir); !slices.Equal(got, []string{"hitch-0001-30ms.trace"}) {
		t.Fatalf("directory holds %q, want hitch-0001-30ms.trace", got)
	}
}

func TestHitchContinuesNumbering(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"hitch-0007-80ms.trace", "hitch-0003-51ms.trace", "notes.txt", "hitch-x-1ms.trace"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	h, err := NewHitchRecorder(HitchConfig{Dir: dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	h.Observe(time.Second, 75*time.Millisecond)
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, "hitch-0008-75ms.trace")
	if got := h.Files(); !slices.Equal(got, []string{want}) {
		t.Fatalf("Files() = %q, want %q", got, want)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "hitch-0007-80ms.trace")); string(b) != "old" {
		t.Error("an older hitch file was overwritten")
	}
}

func TestHitchCreatesDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	h, err := NewHitchRecorder(HitchConfig{Dir: dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	h.Close()
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Fatalf("the hitch directory was not created: %v", err)
	}
	if got := dirNames(t, dir); len(got) != 0 {
		t.Fatalf("the new directory holds %q, want nothing", got)
	}
}

func TestHitchBadConfig(t *testing.T) {
	tmp := t.TempDir()
	file := filepath.Join(tmp, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		cfg  HitchConfig
		want string
	}{
		{"file as dir", HitchConfig{Dir: file}, "diag: hitch directory " + file + ": not a directory"},
		{"dir under a file", HitchConfig{Dir: filepath.Join(file, "sub")}, "diag: hitch directory " + filepath.Join(file, "sub") + ": not a directory"},
		{"negative threshold", HitchConfig{Dir: tmp, Threshold: -time.Millisecond}, "diag: hitch threshold -1ms: must be positive (0 = default 50ms)"},
		{"negative gap", HitchConfig{Dir: tmp, MinGap: -time.Second}, "diag: hitch minimum gap -1s: must be positive (0 = default 10s)"},
		{"negative files", HitchConfig{Dir: tmp, MaxFiles: -1}, "diag: hitch file limit -1: must be positive (0 = default 20)"},
		{"negative window", HitchConfig{Dir: tmp, Window: -time.Second}, "diag: hitch window -1s: must be positive (0 = default 5s)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := NewHitchRecorder(tc.cfg, nil)
			if err == nil {
				h.Close()
				t.Fatalf("NewHitchRecorder(%+v) succeeded, want %q", tc.cfg, tc.want)
			}
			if err.Error() != tc.want {
				t.Fatalf("error %q, want %q", err, tc.want)
			}
		})
	}
}

func TestHitchOneAtATime(t *testing.T) {
	h, _ := newTestHitchRecorder(t, time.Second, 5)
	_, err := NewHitchRecorder(HitchConfig{Dir: t.TempDir()}, nil)
	if err == nil || !strings.HasPrefix(err.Error(), "diag: cannot start the flight recorder for hitch capture: ") {
		t.Fatalf("second recorder: error %v, want one about the flight recorder", err)
	}
	// The first still works.
	h.Observe(time.Second, time.Second)
	h.Close()
	if len(h.Files()) != 1 {
		t.Fatalf("Files() = %q, want one file", h.Files())
	}
}

func TestHitchDefaults(t *testing.T) {
	cfg, err := HitchConfig{}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if cfg != DefaultHitchConfig() {
		t.Fatalf("zero config became %+v, want %+v", cfg, DefaultHitchConfig())
	}
	if want := filepath.Join(os.TempDir(), "nebula-hitches"); cfg.Dir != want {
		t.Fatalf("default dir %s, want %s", cfg.Dir, want)
	}
}

func TestHitchObserveDoesNotAllocate(t *testing.T) {
	h, _ := newTestHitchRecorder(t, time.Second, 5)
	now := time.Duration(0)
	allocs := testing.AllocsPerRun(1000, func() {
		now += 16 * time.Millisecond
		h.Observe(now, 16*time.Millisecond)
	})
	if allocs != 0 {
		t.Fatalf("Observe without a hitch allocates %v times", allocs)
	}
}

// TestHitchWithTraceAndCPUProfile runs the flight recorder together with an
// execution trace (runtime/trace.Start) and a CPU profile, started before
// and after it, and checks that every output is complete.
func TestHitchWithTraceAndCPUProfile(t *testing.T) {
	for _, recorderFirst := range []bool{false, true} {
		name := "trace and profile first"
		if recorderFirst {
			name = "recorder first"
		}
		t.Run(name, func(t *testing.T) {
			var traceOut, cpuOut bytes.Buffer
			startOthers := func() {
				if err := rtpprof.StartCPUProfile(&cpuOut); err != nil {
					t.Fatal(err)
				}
				if err := rttrace.Start(&traceOut); err != nil {
					t.Fatal(err)
				}
			}
			if !recorderFirst {
				startOthers()
			}
			h, err := NewHitchRecorder(HitchConfig{Dir: t.TempDir()}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if recorderFirst {
				startOthers()
			}
			stall(150*time.Millisecond, "during")
			h.Observe(time.Second, 150*time.Millisecond)
			if err := h.Close(); err != nil {
				t.Fatal(err)
			}
			// The execution trace goes on after the recorder stops.
			stall(20*time.Millisecond, "after")
			rttrace.Stop()
			rtpprof.StopCPUProfile()

			if len(h.Files()) != 1 {
				t.Fatalf("Files() = %q, want one file", h.Files())
			}
			events, notes, samples := readTraceFile(t, h.Files()[0])
			if events == 0 || !slices.Contains(notes, "during") {
				t.Errorf("hitch trace: %d events, user logs %q; want events and \"during\"", events, notes)
			}
			if samples == 0 {
				t.Errorf("hitch trace holds no CPU samples while a CPU profile ran")
			}
			events, notes, _ = readTrace(t, &traceOut)
			if events == 0 || !slices.Contains(notes, "during") || !slices.Contains(notes, "after") {
				t.Errorf("execution trace: %d events, user logs %q; want events, \"during\" and \"after\"", events, notes)
			}
			p, err := profile.Parse(&cpuOut)
			if err != nil {
				t.Fatalf("CPU profile: %v", err)
			}
			if len(p.Sample) == 0 {
				t.Errorf("CPU profile has no samples")
			}
		})
	}
}

func BenchmarkHitchObserve(b *testing.B) {
	h, err := NewHitchRecorder(HitchConfig{Dir: b.TempDir()}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	b.ReportAllocs()
	now := time.Duration(0)
	for b.Loop() {
		now += 16 * time.Millisecond
		h.Observe(now, 16*time.Millisecond)
	}
}
