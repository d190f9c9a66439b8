package main

import "testing"

// -gpu-interpolation draws the scene on the GPU path: its floor and bodies
// cover a large part of the picture, as on the CPU path (the pixels that
// are not the background; the two runs' ticks fall differently on their
// frames, so only the order of magnitude is compared: the GPU path's
// pixels against the CPU path's are gfx's TestGPUPathMatchesCPUPath).
func TestGPUInterpolationDrawsTheScene(t *testing.T) {
	needDisplay(t)
	drawn := func(args ...string) int {
		img := demoScreenshot(t, append([]string{"-entities", "60", "-frames", "20", "-width", "320", "-height", "240"}, args...)...)
		n := 0
		b := img.Bounds()
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X + 180; x < b.Max.X; x++ { // right of the overlay
				r, g, bl, _ := img.At(x, y).RGBA()
				if r>>8 > 60 || g>>8 > 60 || bl>>8 > 90 { // brighter than the pulsing background
					n++
				}
			}
		}
		return n
	}
	cpu, gpu := drawn(), drawn("-gpu-interpolation")
	t.Logf("pixels drawn: %d on the CPU path, %d on the GPU path", cpu, gpu)
	if cpu < 1000 || gpu < cpu/2 || gpu > cpu*2 {
		t.Errorf("%d pixels drawn on the GPU path, %d on the CPU path: want the scene drawn on both (1,000 or more, within a factor of 2)", gpu, cpu)
	}
}
