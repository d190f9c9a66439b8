package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nebulaengine/nebula/engine/replay"
)

// cpuHasV3 reports whether this CPU runs GOAMD64=v3 code (AVX2, FMA,
// BMI2 and the rest of x86-64-v3; these three are the telling ones).
func cpuHasV3() (bool, string) {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return false, "cannot read /proc/cpuinfo: " + err.Error()
	}
	var flags []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "flags") {
			flags = strings.Fields(l)
			break
		}
	}
	for _, want := range []string{"avx2", "fma", "bmi2"} {
		found := false
		for _, f := range flags {
			found = found || f == want
		}
		if !found {
			return false, "the CPU lacks " + want
		}
	}
	return true, ""
}

// A windowed session, driven through a real window manager with key
// presses from xdotool (arrows steering the player, Space, F5 to save a
// snapshot and F9 to load it) while the planner's jobs land in real time,
// is recorded with -record and replayed headless with -verify: "replay
// ok". The same file verifies in a GOAMD64=v3 build, where Go may fuse
// multiply-adds.
func TestWindowedRecordingVerifiesHeadless(t *testing.T) {
	x := startXServer(t)
	bin := demoBinary(t)
	dir := t.TempDir()
	rec := filepath.Join(dir, "session.rep")
	demo := startDemo(t, x, "-duration", "9s", "-entities", "300", "-width", "480", "-height", "300",
		"-record", rec, "-hitch", "0", "-crash-dir", dir, "-log-level", "info")

	id := x.mustXdo(t, "search", "--sync", "--onlyvisible", "--name", "^Nebula demo")
	x.mustXdo(t, "windowactivate", "--sync", id)
	time.Sleep(700 * time.Millisecond)
	for _, step := range [][]string{
		{"keydown", "Right"}, {"sleep", "0.6"}, {"keyup", "Right"},
		{"key", "space"},
		{"keydown", "Up"}, {"sleep", "0.4"},
		{"key", "F5"}, // snapshot while Up is held
		{"keydown", "Left"}, {"sleep", "0.5"}, {"keyup", "Left"}, {"keyup", "Up"},
		{"sleep", "0.8"},
		{"key", "F9"}, // back to the snapshot
		{"keydown", "Down"}, {"sleep", "0.5"}, {"keyup", "Down"},
		{"key", "space"}, {"sleep", "0.3"}, {"key", "space"},
	} {
		if step[0] == "sleep" {
			d, _ := strconv.ParseFloat(step[1], 64)
			time.Sleep(time.Duration(d * float64(time.Second)))
			continue
		}
		x.mustXdo(t, step...)
	}

	demo.wait(t, 30*time.Second, "the recorded session's keys")
	log := demo.stderr.String()
	for _, want := range []string{`msg="snapshot saved"`, `msg="snapshot loaded"`} {
		if !strings.Contains(log, want) {
			t.Errorf("the demo's log lacks %s:\n%s", want, log)
		}
	}

	data, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	r, err := replay.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	st := r.Stats
	t.Logf("recorded %d ticks: %d input changes, %d job results, %d restores, %d hashes, %d bytes",
		r.Records(), st.InputChanges, st.JobResults, st.Restores, st.Hashes, len(data))
	if st.InputChanges < 8 {
		t.Errorf("%d input changes recorded, want the key presses (at least 8)", st.InputChanges)
	}
	if st.Restores != 1 {
		t.Errorf("%d restores recorded, want the F9 (1)", st.Restores)
	}
	if st.JobResults == 0 {
		t.Errorf("no job result recorded in a %d-tick session", r.Records())
	}
	if r.Header.JobMode.String() != "live" {
		t.Errorf("job mode %v, want live", r.Header.JobMode)
	}

	want := "replay ok " + strconv.FormatUint(r.Records(), 10) + "\n"
	verify := func(bin string) {
		t.Helper()
		cmd := exec.Command(bin, "-replay", rec, "-headless", "-verify", "-log-level", "error")
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s -replay -headless -verify: %v\n%s", filepath.Base(bin), err, errb.String())
		}
		if out.String() != want {
			t.Errorf("%s: stdout %q, want %q", filepath.Base(bin), out.String(), want)
		}
	}
	verify(bin)

	if ok, why := cpuHasV3(); !ok {
		t.Logf("skipping the GOAMD64=v3 verification: %s", why)
		return
	}
	v3 := filepath.Join(dir, "nebula-demo-v3")
	build := exec.Command("go", "build", "-o", v3, ".")
	build.Env = append(os.Environ(), "GOAMD64=v3", "GOARCH=amd64")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("GOAMD64=v3 build: %v\n%s", err, out)
	}
	verify(v3)
}

// A panic in a windowed run (the loop is the desktop runner's) is captured
// like a headless one: status 1, one line naming the crash replay, and the
// crash replay reproduces the panic headless at the same tick.
func TestWindowedCrashLeavesAReplay(t *testing.T) {
	needDisplay(t)
	bin := demoBinary(t)
	dir := t.TempDir()
	cmd := exec.Command(bin, "-duration", "20s", "-entities", "100", "-width", "320", "-height", "200",
		"-panic-at-tick", "90", "-crash-dir", dir, "-hitch", "0", "-log-level", "fatal")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("the demo ended with %v, want status 1\n%s", err, stderr.String())
	}
	line := stderr.String()
	m := regexp.MustCompile(`^nebula-demo: system "crash-test" \(fixed\) panicked at tick 90: .*; crash replay saved to (\S+) \(`).FindStringSubmatch(line)
	if m == nil || strings.Count(line, "\n") != 1 {
		t.Fatalf("stderr %q, want one line naming the crash replay", line)
	}
	out, err := exec.Command(bin, "-replay", m[1], "-headless", "-verify", "-log-level", "fatal").CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), "reproduced the recorded panic: system \"crash-test\" (fixed) panicked at tick 90") {
		t.Errorf("replaying the crash: %v\n%s", err, out)
	}
}
