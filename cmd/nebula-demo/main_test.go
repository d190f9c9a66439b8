package main

import (
	"bytes"
	"encoding/csv"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestBadFlagsExitWithStatus2(t *testing.T) {
	tests := []struct {
		args []string
		want string // the one line on stderr
	}{
		{[]string{"-tick-rate", "0"}, "nebula-demo: -tick-rate 0: must be an integer from 1 to 1000 (Hz)"},
		{[]string{"-tick-rate", "5000"}, "nebula-demo: -tick-rate 5000: must be an integer from 1 to 1000 (Hz)"},
		{[]string{"-entities", "-5"}, "nebula-demo: -entities -5: must be from 0 to 1000000"},
		{[]string{"-headless", "-ticks", "10", "-jitter", "1.5"}, "nebula-demo: -jitter 1.5: must be from 0 to 0.9 (a fraction of a frame)"},
		{[]string{"-bogus"}, "nebula-demo: flag provided but not defined: -bogus (see -h)"},
		{[]string{"-fps", "-1"}, "nebula-demo: -fps -1: must be 0 (uncapped) or a rate up to 10000 (Hz)"},
		{[]string{"-max-steps", "-1"}, "nebula-demo: -max-steps -1: must be 0 (no cap) or a positive number of steps"},
		{[]string{"-max-frame", "0s"}, "nebula-demo: -max-frame 0s: must be above 0 and at most 1h0m0s"},
		{[]string{"-headless", "-ticks", "10", "-display-hz", "0"}, "nebula-demo: -display-hz 0: must be above 0 and at most 10000 (Hz)"},
		{[]string{"-log-level", "loud"}, "nebula-demo: -log-level loud: must be one of panic, fatal, error, warn, info, debug, trace"},
		{[]string{"-tick-rate", "fast"}, `nebula-demo: invalid value "fast" for flag -tick-rate: parse error (see -h)`},
		{[]string{"-ticks", "10"}, "nebula-demo: -ticks needs -headless"},
		{[]string{"-headless"}, "nebula-demo: -headless needs -ticks or -frames (a headless run has no window to close)"},
		{[]string{"extra"}, `nebula-demo: unexpected argument "extra": nebula-demo takes only flags (see -h)`},
		// A flag that means nothing in the chosen mode.
		{[]string{"-headless", "-ticks", "10", "-hitch-dir", "/etc/passwd"}, "nebula-demo: -hitch-dir needs a window: it means nothing with -headless"},
		{[]string{"-headless", "-ticks", "10", "-width", "640"}, "nebula-demo: -width needs a window: it means nothing with -headless"},
		{[]string{"-headless", "-ticks", "10", "-jitter-seed", "7"}, "nebula-demo: -jitter-seed needs -jitter above 0"},
		{[]string{"-entities", "2000000"}, "nebula-demo: -entities 2000000: must be from 0 to 1000000"},
		{[]string{"-entities", "many"}, `nebula-demo: invalid value "many" for flag -entities: parse error (see -h)`},
		// The sync test.
		{[]string{"-synctest", "8"}, "nebula-demo: -synctest needs -headless"},
		{[]string{"-headless", "-frames", "10", "-synctest", "8"}, "nebula-demo: -synctest needs -ticks"},
		{[]string{"-headless", "-ticks", "10", "-synctest", "0"}, "nebula-demo: -synctest 0: must be from 1 to 64 ticks"},
		{[]string{"-headless", "-ticks", "10", "-synctest", "65"}, "nebula-demo: -synctest 65: must be from 1 to 64 ticks"},
		{[]string{"-headless", "-ticks", "10", "-synctest", "8", "-display-hz", "30"}, "nebula-demo: -display-hz means nothing with -synctest (it steps the ticks without a display)"},
		{[]string{"-serve", ":0", "-synctest", "8"}, "nebula-demo: -synctest means nothing with -serve (a server has no window and runs in real time)"},
		{[]string{"-connect", "127.0.0.1:1", "-headless", "-nondeterminism-at-tick", "5"}, "nebula-demo: -nondeterminism-at-tick works in a game of its own only (not with -replay, -serve, -connect or -spectate)"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(tc.args, &stdout, &stderr); code != 2 {
				t.Errorf("exit status %d, want 2", code)
			}
			if got := stderr.String(); got != tc.want+"\n" {
				t.Errorf("stderr %q\nwant    %q", got, tc.want+"\n")
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout %q, want nothing", stdout.String())
			}
		})
	}
}

func TestHelpExitsWithStatus0(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-h"}, &stdout, &stderr); code != 0 {
		t.Errorf("exit status %d, want 0", code)
	}
	// The common flags, the recording flags and the demo's own.
	for _, want := range []string{
		"  -tick-rate int\n", "  -headless\n", "  -record file\n", "  -replay file\n", "  -verify\n", "  -crash-dir dir\n",
		"  -entities int\n    \tbouncing bodies in the scene (cubes, every 4th a sphere) (default 1000)\n",
		"  -panic-at-tick uint\n    \tdebug: make a fixed system panic at this tick, to test crash capture (0 = off)\n",
	} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("usage does not list %q:\n%s", want, stderr.String())
		}
	}
}

func TestUnwritableStatsFileExitsWithStatus1(t *testing.T) {
	var stdout, stderr bytes.Buffer
	path := filepath.Join(t.TempDir(), "no-such-dir", "s.csv")
	code := run([]string{"-headless", "-ticks", "10", "-stats", path, "-log-level", "error"}, &stdout, &stderr)
	if code != 1 {
		t.Errorf("exit status %d, want 1", code)
	}
	if got := stderr.String(); !strings.HasPrefix(got, "nebula-demo: cannot write statistics: open ") || strings.Count(got, "\n") != 1 {
		t.Errorf("stderr %q, want one line about the statistics file", got)
	}
}

func TestHeadlessStatsCSV(t *testing.T) {
	var stdout, stderr bytes.Buffer
	path := filepath.Join(t.TempDir(), "s.csv")
	if code := run([]string{"-headless", "-ticks", "120", "-display-hz", "120", "-stats", path, "-entities", "10", "-log-level", "error"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit status %d: %s", code, stderr.String())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if !strings.HasPrefix(lines[0], "frame,t_ms,frame_ms,steps,alpha,tick,fps,ups") {
		t.Errorf("header %q", lines[0])
	}
	// 120 ticks at 60 Hz on a 120 Hz display: 240 frames after the first.
	if len(lines) != 1+241 {
		t.Errorf("%d rows, want 241", len(lines)-1)
	}
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "241,2000.0000,8.3333,1,") || !strings.Contains(last, ",120,") {
		t.Errorf("last row %q", last)
	}

	// The figures a headless run measures are measured: the fixed
	// systems' CPU time on every frame that ran a tick (and none on a
	// frame that ran none), the heap on every frame, GC cycles that never
	// go back. Nothing is drawn: no update or render time, and the GPU and
	// drawing columns are empty.
	rows := readColumns(t, path)
	var gc uint64
	for i, r := range rows {
		steps, fixed := r.num(t, "steps"), r.num(t, "fixed_ms")
		switch {
		case steps > 0 && fixed <= 0:
			t.Errorf("frame %d ran %v ticks in fixed_ms %v: not measured", i+1, steps, fixed)
		case steps == 0 && fixed != 0:
			t.Errorf("frame %d ran no tick, but fixed_ms is %v", i+1, fixed)
		}
		if heap := r.num(t, "heap_bytes"); heap <= 0 {
			t.Errorf("frame %d: heap_bytes %v, not measured", i+1, heap)
		}
		if n := uint64(r.num(t, "gc_cycles")); n < gc {
			t.Errorf("frame %d: gc_cycles went back from %d to %d", i+1, gc, n)
		} else {
			gc = n
		}
		if u, rd := r.num(t, "update_ms"), r.num(t, "render_ms"); u != 0 || rd != 0 {
			t.Errorf("frame %d: update_ms %v, render_ms %v in a run that draws nothing", i+1, u, rd)
		}
		for _, name := range []string{"gpu_ms", "draw_calls", "triangles"} {
			if v := r.str(t, name); v != "" {
				t.Errorf("frame %d: %s %q in a run without a GPU, want empty", i+1, name, v)
			}
		}
	}
}

// csvRow is one row of a -stats file, by column name.
type csvRow map[string]string

func (r csvRow) str(t *testing.T, name string) string {
	t.Helper()
	v, ok := r[name]
	if !ok {
		t.Fatalf("no column %q", name)
	}
	return v
}

func (r csvRow) num(t *testing.T, name string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(r.str(t, name), 64)
	if err != nil {
		t.Fatalf("column %s: %v", name, err)
	}
	return v
}

// readColumns reads a -stats file's rows, by column name.
func readColumns(t *testing.T, path string) []csvRow {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(recs) < 2 {
		t.Fatalf("%s has %d lines, want a header and rows", path, len(recs))
	}
	rows := make([]csvRow, 0, len(recs)-1)
	for _, rec := range recs[1:] {
		r := csvRow{}
		for i, name := range recs[0] {
			r[name] = rec[i]
		}
		rows = append(rows, r)
	}
	return rows
}

// TestHeadlessHashAcrossDisplaysAndBuilds builds the demo with GOAMD64=v1
// and with GOAMD64=v3 (which lets Go fuse multiply-adds) and expects the
// same state hash from both, on displays from 30 to 240 Hz, with jitter,
// and from an in-process run.
func TestHeadlessHashAcrossDisplaysAndBuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the demo twice")
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-headless", "-ticks", "3600", "-print-hash", "-log-level", "error"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit status %d: %s", code, stderr.String())
	}
	want := stdout.String()
	if !strings.HasPrefix(want, "state-hash 3600 ") || len(want) != len("state-hash 3600 ")+17 {
		t.Fatalf("output %q, want \"state-hash 3600 <16 hex digits>\"", want)
	}
	dir := t.TempDir()
	displays := [][]string{
		{"-display-hz", "30"},
		{"-display-hz", "60"},
		{"-display-hz", "144"},
		{"-display-hz", "240"},
		{"-display-hz", "144", "-jitter", "0.5", "-jitter-seed", "7"},
	}
	for _, level := range []string{"v1", "v3"} {
		bin := filepath.Join(dir, "nebula-demo-"+level)
		build := exec.Command("go", "build", "-o", bin, ".")
		build.Env = append(os.Environ(), "GOAMD64="+level, "GOARCH=amd64")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("GOAMD64=%s build: %v\n%s", level, err, out)
		}
		for _, d := range displays {
			args := append([]string{"-headless", "-ticks", "3600", "-print-hash", "-log-level", "error"}, d...)
			out, err := exec.Command(bin, args...).Output()
			if err != nil {
				t.Fatalf("GOAMD64=%s %v: %v", level, d, err)
			}
			if string(out) != want {
				t.Errorf("GOAMD64=%s %v: %q, want %q", level, d, out, want)
			}
		}
	}
}

// The sync test on the demo scene: 3,600 ticks, each re-simulated 8 deep,
// pass and end on the plain run's hash (the golden hash of package
// scene's determinism test); with -nondeterminism-at-tick it fails at
// exactly that tick with status 1, naming the score. Under the race
// detector it runs 600 ticks (1,000 ticks, 9 simulations each, take a
// minute there); make test runs it again without it, at full length.
func TestSyncTest(t *testing.T) {
	ticks, hash := "3600", "46e42ca34f265644"
	if raceEnabled {
		var stdout, stderr bytes.Buffer
		if code := run([]string{"-headless", "-ticks", "600", "-print-hash", "-log-level", "error"}, &stdout, &stderr); code != 0 {
			t.Fatalf("exit status %d: %s", code, stderr.String())
		}
		ticks, hash = "600", strings.TrimPrefix(strings.TrimSpace(stdout.String()), "state-hash 600 ")
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-headless", "-ticks", ticks, "-synctest", "8", "-print-hash", "-log-level", "error"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit status %d: %s", code, stderr.String())
	}
	if got, want := stdout.String(), "synctest ok "+ticks+" depth 8\nstate-hash "+ticks+" "+hash+"\n"; got != want {
		t.Errorf("stdout %q, want %q", got, want)
	}

	stdout.Reset()
	stderr.Reset()
	code := run([]string{"-headless", "-ticks", ticks, "-synctest", "8", "-nondeterminism-at-tick", "300", "-print-hash", "-log-level", "fatal"}, &stdout, &stderr)
	if code != 1 {
		t.Errorf("exit status %d, want 1", code)
	}
	got := stderr.String()
	for _, want := range []string{"nebula-demo: sync test: tick 300 simulated again from tick 292 gives hash ", `resource "score"`} {
		if !strings.Contains(got, want) {
			t.Errorf("stderr %q lacks %q", got, want)
		}
	}
	if strings.Count(got, "\n") != 1 {
		t.Errorf("stderr %q, want one line", got)
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout %q, want nothing (no hash of a failed run)", stdout.String())
	}
}

func TestNoDisplayExitsWithStatus1(t *testing.T) {
	t.Setenv("DISPLAY", "")
	var stdout, stderr bytes.Buffer
	code := run([]string{"-frames", "1", "-log-level", "error"}, &stdout, &stderr)
	if code != 1 {
		t.Errorf("exit status %d, want 1", code)
	}
	got := stderr.String()
	if !strings.HasPrefix(got, "nebula-demo: ") || !strings.Contains(got, "no display") || !strings.Contains(got, "xvfb-run") || strings.Count(got, "\n") != 1 {
		t.Errorf("stderr %q, want one line saying there is no display and what to do", got)
	}
}
