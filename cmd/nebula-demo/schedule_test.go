package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// scheduleDoc is the page that shows the demo's schedule.
const scheduleDoc = "../../docs/loop.md"

// docSchedule returns the schedule docs/loop.md shows: the text block after
// the sentence that says "`nebula-demo -schedule` prints".
func docSchedule(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(scheduleDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	_, after, ok := strings.Cut(doc, "`nebula-demo -schedule` prints")
	if !ok {
		t.Fatalf("%s does not say what `nebula-demo -schedule` prints", scheduleDoc)
	}
	_, block, ok := strings.Cut(after, "```text\n")
	if !ok {
		t.Fatalf("%s: no ```text block after `nebula-demo -schedule` prints", scheduleDoc)
	}
	block, _, ok = strings.Cut(block, "```")
	if !ok {
		t.Fatalf("%s: the schedule's block does not end", scheduleDoc)
	}
	return block
}

// -schedule prints the tick's stages and systems, and exits 0 without a
// window or a tick, windowed or headless; docs/loop.md shows exactly that.
func TestSchedulePrinted(t *testing.T) {
	want := docSchedule(t)
	for _, args := range [][]string{
		{"-schedule"},
		{"-schedule", "-headless"},
		{"-schedule", "-headless", "-ticks", "60", "-print-hash", "-entities", "3"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(append(args, "-log-level", "error"), &stdout, &stderr); code != 0 {
				t.Fatalf("exit status %d, want 0; stderr:\n%s", code, stderr.String())
			}
			if got := stdout.String(); got != want {
				t.Errorf("printed\n%s\nwhile %s shows\n%s", got, scheduleDoc, want)
			}
			if stderr.Len() != 0 {
				t.Errorf("stderr %q, want nothing", stderr.String())
			}
		})
	}
}

// -schedule prints the game's own schedule: it refuses the flags that
// would join or serve a match.
func TestScheduleRefusesNetwork(t *testing.T) {
	for _, args := range [][]string{
		{"-schedule", "-serve", ":0"},
		{"-schedule", "-connect", "127.0.0.1:1"},
		{"-schedule", "-spectate", "127.0.0.1:1"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(args, &stdout, &stderr); code != 2 {
			t.Errorf("%q: exit status %d, want 2", args, code)
		}
		want := "nebula-demo: -schedule conflicts with -serve, -connect and -spectate (it prints the game's own schedule without running it)\n"
		if got := stderr.String(); got != want {
			t.Errorf("%q: stderr %q, want %q", args, got, want)
		}
	}
}
