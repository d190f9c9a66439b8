package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/nebulaengine/nebula/engine/physics/debugdraw"
)

// -physics-debug is refused where it means nothing.
func TestPhysicsDebugFlagRefused(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-physics-debug"}, "nebula-demo: -physics-debug needs -physics (without it the scene has no physics to draw)"},
		{[]string{"-physics", "-physics-debug", "-headless", "-ticks", "10"}, "nebula-demo: -physics-debug means nothing with -headless (nothing is drawn)"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(tc.args, &stdout, &stderr); code != 2 {
				t.Errorf("exit status %d, want 2", code)
			}
			if got := stderr.String(); got != tc.want+"\n" {
				t.Errorf("stderr %q\nwant    %q", got, tc.want+"\n")
			}
		})
	}
}

// The windowed physics demo with -physics-debug draws the bodies'
// wireframes in the debug palette's colours (the walls and floor static,
// the falling bodies dynamic, the player and the orbiters kinematic);
// without it, the frame has next to none of those exact colours.
func TestPhysicsDebugDrawn(t *testing.T) {
	needDisplay(t)
	p := debugdraw.DefaultPalette()
	palette := [][4]uint8{p.Static, p.Dynamic, p.Kinematic, p.Sleeping}
	shot := func(debug bool) int {
		args := []string{"-physics", "-entities", "27", "-frames", "20", "-width", "640", "-height", "480"}
		if debug {
			args = append(args, "-physics-debug")
		}
		img := demoScreenshot(t, args...)
		n := 0
		b := img.Bounds()
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				r, g, bl, _ := img.At(x, y).RGBA()
				for _, c := range palette {
					if uint8(r>>8) == c[0] && uint8(g>>8) == c[1] && uint8(bl>>8) == c[2] {
						n++
					}
				}
			}
		}
		return n
	}
	on, off := shot(true), shot(false)
	t.Logf("pixels in the debug palette's body colours: %d with -physics-debug, %d without", on, off)
	if on < 500 || off > on/20 {
		t.Errorf("%d pixels in the debug colours with -physics-debug, %d without; want the wireframes (500 or more) and next to none", on, off)
	}
}
