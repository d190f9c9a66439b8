package diag

import (
	"strconv"
	"time"
)

// AppendText appends the overlay's text for f to dst and returns the
// extended slice: nine lines separated by '\n', with no newline after
// the last, each short enough for the overlay's 48 columns, such as
//
//	FPS 144.0  UPS 60.0  underruns 0
//	frame 6.94 ms  steps 1  alpha 0.42
//	fixed 0.21 ms  update 0.03 ms
//	render 1.60 ms  gpu 3.2 ms
//	draws 5  triangles 6017
//	debt 2.1 ms  dropped 0 ms
//	clamped 0  capped 0  snaps 3
//	entities 1003  heap 12.3 MiB  gc 42
//	gpu-mem 4.2 MiB (own buffers)
//
// FPS and UPS are the loop's rolling rates, frame the measured interval;
// gpu reads "gpu -" until a GPU time is known; draws and triangles are
// the frame's draw calls and the triangles they submitted ("draws -"
// when nothing was counted); gpu-mem is
// GPUMemory.InUse, labelled "(driver)" with the engine's own bytes after
// it where the driver says (NVX), "(own buffers)" where it does not,
// "(own)" with the driver's free memory after it (ATI), and "gpu-mem -"
// when nothing was measured; clamped, capped, dropped and
// snaps are running counts, and so is underruns, the sound's
// (Figures.Sound.Underruns), shown only when the game has a mixer. It does not allocate when dst has the capacity
// (a few hundred bytes).
func AppendText(dst []byte, f *Figures) []byte {
	s := &f.Loop
	b := dst
	b = append(b, "FPS "...)
	b = strconv.AppendFloat(b, s.FPS, 'f', 1, 64)
	b = append(b, "  UPS "...)
	b = strconv.AppendFloat(b, s.UPS, 'f', 1, 64)
	if f.Sound.On {
		b = append(b, "  underruns "...)
		b = strconv.AppendUint(b, f.Sound.Underruns, 10)
	}

	b = append(b, "\nframe "...)
	b = appendMillis(b, s.Interval, 2)
	b = append(b, "  steps "...)
	b = strconv.AppendInt(b, int64(s.Steps), 10)
	b = append(b, "  alpha "...)
	b = strconv.AppendFloat(b, s.Alpha, 'f', 2, 64)

	b = append(b, "\nfixed "...)
	b = appendMillis(b, f.FixedCPU, 2)
	b = append(b, "  update "...)
	b = appendMillis(b, f.UpdateCPU, 2)
	b = append(b, "\nrender "...)
	b = appendMillis(b, f.RenderCPU, 2)
	if f.GPUValid {
		b = append(b, "  gpu "...)
		b = appendMillis(b, f.GPU, 1)
	} else {
		b = append(b, "  gpu -"...)
	}

	if f.Drawn {
		b = append(b, "\ndraws "...)
		b = strconv.AppendInt(b, int64(f.DrawCalls), 10)
		b = append(b, "  triangles "...)
		b = strconv.AppendInt(b, int64(f.Triangles), 10)
		b = append(b, "  culled "...)
		b = strconv.AppendInt(b, int64(f.Culled), 10)
	} else {
		b = append(b, "\ndraws -"...)
	}

	b = append(b, "\ndebt "...)
	b = appendMillis(b, s.Debt, 1)
	b = append(b, "  dropped "...)
	b = appendMillis(b, s.DroppedTime(), 0)

	b = append(b, "\nclamped "...)
	b = strconv.AppendUint(b, s.ClampedFrames, 10)
	b = append(b, "  capped "...)
	b = strconv.AppendUint(b, s.CappedFrames, 10)
	b = append(b, "  snaps "...)
	b = strconv.AppendInt(b, int64(f.TotalSnaps), 10)

	b = append(b, "\nentities "...)
	b = strconv.AppendInt(b, int64(f.Entities), 10)
	b = append(b, "  heap "...)
	b = strconv.AppendFloat(b, float64(f.HeapInUse)/(1<<20), 'f', 1, 64)
	b = append(b, " MiB  gc "...)
	b = strconv.AppendUint(b, f.GCCycles, 10)

	b = append(b, '\n')
	return appendGPUMemory(b, &f.GPUMemory)
}

// appendMillis appends d as milliseconds with prec decimals and " ms".
func appendMillis(b []byte, d time.Duration, prec int) []byte {
	b = strconv.AppendFloat(b, float64(d)/1e6, 'f', prec, 64)
	return append(b, " ms"...)
}
