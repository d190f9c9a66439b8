package main

import (
	"bytes"
	"image"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/nebulaengine/nebula/internal/platform/platformtest"
)

// demoScreenshot runs the demo with args, saving a screenshot at its end
// (-screenshot, quiet, no hitch traces), and returns the picture.
func demoScreenshot(t *testing.T, args ...string) image.Image {
	t.Helper()
	path := filepath.Join(t.TempDir(), "shot.png")
	cmd := exec.Command(demoBinary(t), append(args, "-screenshot", path, "-hitch", "0", "-log-level", "warn")...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("nebula-demo %v: %v\n%s", args, err, stderr.String())
	}
	return platformtest.ReadPNG(t, path)
}
