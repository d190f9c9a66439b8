package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// -bindings loads the player's bindings: binding the arrow keys and Space
// to the actions they already drive changes nothing (the cube's speed is
// clamped), so the run's hash is the run's without; a faulty file is
// refused with its line, exit status 1.
func TestBindingsFlag(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "keys.txt")
	if err := os.WriteFile(good, []byte("# the keys too\nmove-x key ArrowLeft scale=-1\nmove-x key ArrowRight\nmove-z key ArrowUp scale=-1\nmove-z key ArrowDown\nrecolour key Space\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	hash := func(extra ...string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		args := append([]string{"-headless", "-ticks", "600", "-entities", "50", "-print-hash", "-log-level", "error"}, extra...)
		if code := run(args, &stdout, &stderr); code != 0 {
			t.Fatalf("%v: exit status %d: %s", extra, code, stderr.String())
		}
		return stdout.String()
	}
	if a, b := hash(), hash("-bindings", good); a != b || a == "" {
		t.Errorf("with the keys bound to the actions: %q, without: %q; want the same", b, a)
	}
	bad := filepath.Join(dir, "bad.txt")
	if err := os.WriteFile(bad, []byte("move-x key ArrowLeft scale=-1\ncrouch key C\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := run([]string{"-headless", "-ticks", "10", "-bindings", bad}, &stdout, &stderr)
	want := "nebula-demo: -bindings " + bad + `: input: bindings line 2: no action is named "crouch" (the actions: move-x, move-z, recolour, jump)`
	if code != 1 || strings.TrimSpace(stderr.String()) != want {
		t.Errorf("exit status %d, stderr %q; want 1 and %q", code, stderr.String(), want)
	}
}
