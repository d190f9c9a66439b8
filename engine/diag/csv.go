package diag

import (
	"bufio"
	"io"
	"strconv"
	"time"

	"github.com/nebulaengine/nebula/timing"
)

// CSVHeader is the header row CSV writes: timing.StatsCSVHeader's columns,
// then the CPU time of the fixed systems, the update systems and rendering,
// the GPU time (empty while unknown), the snaps this frame and so far, the
// live entities, the heap in use in bytes and the GC cycles so far, then
// the GPU memory: its source (GPUMemorySource.String: "own", "nvx" or
// "ati"), the bytes the engine's own buffers and textures hold, and the
// driver's bytes in use and free, each empty when unknown (all four empty
// when nothing was measured, as in a headless run); then the frame's draw
// calls and the triangles they submitted, and the instances drawn and
// culled (Figures.DrawCalls, Triangles, Instances and Culled; all empty
// when nothing was drawn, as in a headless run); then the voices playing
// and the sound's underruns so far (Figures.Sound; both empty without a
// mixer).
// Durations are in milliseconds with four decimals.
const CSVHeader = timing.StatsCSVHeader + ",fixed_ms,update_ms,render_ms,gpu_ms,snaps,total_snaps,entities,heap_bytes,gc_cycles" +
	",gpu_mem_source,gpu_own_bytes,gpu_used_bytes,gpu_free_bytes,draw_calls,triangles,instances,culled" +
	",voices,sound_underruns"

// CSV writes one CSV row per frame. It buffers, and reuses one line buffer,
// so writing a row does not allocate. Call Flush at the end.
type CSV struct {
	w    *bufio.Writer
	line []byte
	err  error
}

// NewCSV returns a writer to w and writes the header row (an error writing
// it is returned by the next Write or Flush).
func NewCSV(w io.Writer) *CSV {
	c := &CSV{w: bufio.NewWriterSize(w, 64<<10), line: make([]byte, 0, 512)}
	_, c.err = c.w.WriteString(CSVHeader + "\n")
	return c
}

// Write appends the row for f. After an error it does nothing and keeps
// returning that error.
func (c *CSV) Write(f *Figures) error {
	if c.err != nil {
		return c.err
	}
	b := timing.AppendStatsCSV(c.line[:0], f.Loop)
	b = append(b, ',')
	b = appendMS(b, f.FixedCPU)
	b = append(b, ',')
	b = appendMS(b, f.UpdateCPU)
	b = append(b, ',')
	b = appendMS(b, f.RenderCPU)
	b = append(b, ',')
	if f.GPUValid {
		b = appendMS(b, f.GPU)
	}
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(f.Snaps), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(f.TotalSnaps), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(f.Entities), 10)
	b = append(b, ',')
	b = strconv.AppendUint(b, f.HeapInUse, 10)
	b = append(b, ',')
	b = strconv.AppendUint(b, f.GCCycles, 10)
	g := &f.GPUMemory
	b = append(b, ',')
	b = append(b, g.Source.String()...)
	b = append(b, ',')
	if g.Source != GPUMemoryNone {
		b = strconv.AppendUint(b, g.Own, 10)
	}
	b = append(b, ',')
	if g.Source == GPUMemoryNVX {
		b = strconv.AppendUint(b, g.Used, 10)
	}
	b = append(b, ',')
	if g.Source == GPUMemoryNVX || g.Source == GPUMemoryATI {
		b = strconv.AppendUint(b, g.Free, 10)
	}
	b = append(b, ',')
	if f.Drawn {
		b = strconv.AppendInt(b, int64(f.DrawCalls), 10)
	}
	b = append(b, ',')
	if f.Drawn {
		b = strconv.AppendInt(b, int64(f.Triangles), 10)
	}
	b = append(b, ',')
	if f.Drawn {
		b = strconv.AppendInt(b, int64(f.Instances), 10)
	}
	b = append(b, ',')
	if f.Drawn {
		b = strconv.AppendInt(b, int64(f.Culled), 10)
	}
	b = append(b, ',')
	if f.Sound.On {
		b = strconv.AppendInt(b, int64(f.Sound.Voices), 10)
	}
	b = append(b, ',')
	if f.Sound.On {
		b = strconv.AppendUint(b, f.Sound.Underruns, 10)
	}
	b = append(b, '\n')
	c.line = b
	_, c.err = c.w.Write(b)
	return c.err
}

// Flush writes any buffered rows.
func (c *CSV) Flush() error {
	if c.err != nil {
		return c.err
	}
	c.err = c.w.Flush()
	return c.err
}

// appendMS appends d in milliseconds with four decimals, as timing's CSV
// does.
func appendMS(b []byte, d time.Duration) []byte {
	return strconv.AppendFloat(b, float64(d)/1e6, 'f', 4, 64)
}
