package diag

import (
	"strings"
	"testing"
	"time"
)

func TestAppendText(t *testing.T) {
	f := sampleFrame()
	want := "FPS 144.0  UPS 60.0\n" +
		"frame 6.94 ms  steps 1  alpha 0.42\n" +
		"fixed 0.21 ms  update 0.03 ms\n" +
		"render 1.60 ms  gpu 3.2 ms\n" +
		"draws 5  triangles 6017  culled 13\n" +
		"debt 2.1 ms  dropped 7 ms\n" +
		"clamped 1  capped 2  snaps 3\n" +
		"entities 1003  heap 12.3 MiB  gc 42\n" +
		"gpu-mem 4.2 MiB (own buffers)"
	if got := string(AppendText([]byte(nil), &f)); got != want {
		t.Errorf("AppendText:\n%s\nwant:\n%s", got, want)
	}
	f.GPUValid = false
	want = "FPS 144.0  UPS 60.0\n" +
		"frame 6.94 ms  steps 1  alpha 0.42\n" +
		"fixed 0.21 ms  update 0.03 ms\n" +
		"render 1.60 ms  gpu -\n" +
		"draws 5  triangles 6017  culled 13\n" +
		"debt 2.1 ms  dropped 7 ms\n" +
		"clamped 1  capped 2  snaps 3\n" +
		"entities 1003  heap 12.3 MiB  gc 42\n" +
		"gpu-mem 4.2 MiB (own buffers)"
	if got := string(AppendText([]byte("x"), &f)); got != "x"+want {
		t.Errorf("AppendText without a GPU time:\n%s\nwant:\nx%s", got, want)
	}
	f.Drawn = false
	want = strings.Replace(want, "draws 5  triangles 6017  culled 13", "draws -", 1)
	if got := string(AppendText(nil, &f)); got != want {
		t.Errorf("AppendText with nothing drawn:\n%s\nwant:\n%s", got, want)
	}
	f.Sound = Sound{On: true, Voices: 12, Underruns: 4}
	want = strings.Replace(want, "UPS 60.0", "UPS 60.0  underruns 4", 1)
	if got := string(AppendText(nil, &f)); got != want {
		t.Errorf("AppendText with a mixer:\n%s\nwant:\n%s", got, want)
	}
}

// Every line fits the overlay's width (gfx.OverlayTextColumns, 48
// characters; diag does not import gfx), even with large figures.
func TestAppendTextFitsTheOverlay(t *testing.T) {
	f := sampleFrame()
	f.Loop.FPS, f.Loop.UPS = 12345.6, 1000
	f.FixedCPU, f.UpdateCPU, f.RenderCPU, f.GPU = 12345*time.Millisecond, 12345*time.Millisecond, 12345*time.Millisecond, 12345*time.Millisecond
	f.Loop.ClampedFrames, f.Loop.CappedFrames = 123456, 123456
	f.TotalSnaps, f.Entities = 1234567, 1000000
	f.DrawCalls, f.Triangles = 1234567, 1234567890
	f.Loop.Debt, f.Loop.ClampedTime = 1234*time.Millisecond, 123456*time.Second
	f.Sound = Sound{On: true, Voices: 128, Underruns: 123456}
	for _, g := range []GPUMemory{
		{},
		{Source: GPUMemoryOwn, Own: 99999 << 20},
		{Source: GPUMemoryNVX, Own: 99999 << 20, Used: 99999 << 20, Free: 99999 << 20},
		{Source: GPUMemoryATI, Own: 99999 << 20, Free: 99999 << 20},
	} {
		f.GPUMemory = g
		lines := strings.Split(string(AppendText(nil, &f)), "\n")
		if len(lines) != 9 {
			t.Errorf("%d lines, want 9 (the overlay shows 10: the game may add one)", len(lines))
		}
		for i, line := range lines {
			if len(line) > 48 {
				t.Errorf("line %d is %d characters, more than the overlay's 48: %q", i+1, len(line), line)
			}
		}
	}
}

// The GPU memory line says which figure it shows.
func TestAppendTextGPUMemory(t *testing.T) {
	for _, tt := range []struct {
		g    GPUMemory
		want string
	}{
		{GPUMemory{}, "gpu-mem -"},
		{GPUMemory{Source: GPUMemoryOwn, Own: 5 << 20, Free: 1}, "gpu-mem 5.0 MiB (own buffers)"},
		{GPUMemory{Source: GPUMemoryNVX, Own: 3 << 19, Used: 812 << 20, Free: 1 << 30}, "gpu-mem 812.0 MiB (driver)  own 1.5 MiB"},
		{GPUMemory{Source: GPUMemoryATI, Own: 1 << 20, Used: 7, Free: 2 << 30}, "gpu-mem 1.0 MiB (own)  free 2048.0 MiB"},
	} {
		f := Figures{GPUMemory: tt.g}
		text := string(AppendText(nil, &f))
		if got := text[strings.LastIndexByte(text, '\n')+1:]; got != tt.want {
			t.Errorf("%+v: last line %q, want %q", tt.g, got, tt.want)
		}
	}
}

func TestAppendTextDoesNotAllocate(t *testing.T) {
	f := sampleFrame()
	buf := make([]byte, 0, 512)
	if n := testing.AllocsPerRun(1000, func() { buf = AppendText(buf[:0], &f) }); n != 0 {
		t.Errorf("AppendText allocates %v times", n)
	}
}
