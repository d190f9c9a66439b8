package diag

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nebulaengine/nebula/timing"
)

func sampleFrame() Figures {
	return Figures{
		Loop: timing.Stats{Frames: 42, Time: 290 * ms, Interval: 6944444, Steps: 1, Alpha: 0.42, Tick: 17,
			FPS: 144, UPS: 60, Debt: 2100 * time.Microsecond, ClampedFrames: 1, ClampedTime: 3 * ms,
			CappedFrames: 2, CappedTime: 4 * ms},
		FixedCPU: 210 * time.Microsecond, UpdateCPU: 30 * time.Microsecond, RenderCPU: 1600 * time.Microsecond,
		GPU: 3200 * time.Microsecond, GPUValid: true,
		Snaps: 1, TotalSnaps: 3, Entities: 1003, HeapInUse: 12897485, GCCycles: 42,
		GPUMemory: GPUMemory{Source: GPUMemoryOwn, Own: 4404019},
		DrawCalls: 5, Triangles: 6017, Drawn: true, Instances: 990, Culled: 13,
	}
}

func TestCSV(t *testing.T) {
	var buf bytes.Buffer
	c := NewCSV(&buf)
	f := sampleFrame()
	if err := c.Write(&f); err != nil {
		t.Fatal(err)
	}
	f.GPUValid = false
	if err := c.Write(&f); err != nil {
		t.Fatal(err)
	}
	for _, g := range []GPUMemory{
		{Source: GPUMemoryNVX, Own: 4404019, Used: 851443712, Free: 7738490880},
		{Source: GPUMemoryATI, Own: 4404019, Used: 99, Free: 2147483648},
		{Used: 1, Free: 2, Own: 3}, // not measured: nothing shown
	} {
		f.GPUMemory = g
		if err := c.Write(&f); err != nil {
			t.Fatal(err)
		}
	}
	f.Drawn = false // not counted (a headless run): nothing shown
	if err := c.Write(&f); err != nil {
		t.Fatal(err)
	}
	f.Sound = Sound{On: true, Voices: 12, Underruns: 4}
	if err := c.Write(&f); err != nil {
		t.Fatal(err)
	}
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	want := "frame,t_ms,frame_ms,steps,alpha,tick,fps,ups,debt_ms,clamped_frames,capped_frames,dropped_ms," +
		"fixed_ms,update_ms,render_ms,gpu_ms,snaps,total_snaps,entities,heap_bytes,gc_cycles," +
		"gpu_mem_source,gpu_own_bytes,gpu_used_bytes,gpu_free_bytes,draw_calls,triangles,instances,culled,voices,sound_underruns\n" +
		"42,290.0000,6.9444,1,0.42,17,144.00,60.00,2.1000,1,2,7.0000,0.2100,0.0300,1.6000,3.2000,1,3,1003,12897485,42,own,4404019,,,5,6017,990,13,,\n" +
		"42,290.0000,6.9444,1,0.42,17,144.00,60.00,2.1000,1,2,7.0000,0.2100,0.0300,1.6000,,1,3,1003,12897485,42,own,4404019,,,5,6017,990,13,,\n" +
		"42,290.0000,6.9444,1,0.42,17,144.00,60.00,2.1000,1,2,7.0000,0.2100,0.0300,1.6000,,1,3,1003,12897485,42,nvx,4404019,851443712,7738490880,5,6017,990,13,,\n" +
		"42,290.0000,6.9444,1,0.42,17,144.00,60.00,2.1000,1,2,7.0000,0.2100,0.0300,1.6000,,1,3,1003,12897485,42,ati,4404019,,2147483648,5,6017,990,13,,\n" +
		"42,290.0000,6.9444,1,0.42,17,144.00,60.00,2.1000,1,2,7.0000,0.2100,0.0300,1.6000,,1,3,1003,12897485,42,,,,,5,6017,990,13,,\n" +
		"42,290.0000,6.9444,1,0.42,17,144.00,60.00,2.1000,1,2,7.0000,0.2100,0.0300,1.6000,,1,3,1003,12897485,42,,,,,,,,,,\n" +
		"42,290.0000,6.9444,1,0.42,17,144.00,60.00,2.1000,1,2,7.0000,0.2100,0.0300,1.6000,,1,3,1003,12897485,42,,,,,,,,,12,4\n"
	if got := buf.String(); got != want {
		t.Errorf("CSV:\n%s\nwant:\n%s", got, want)
	}
	if !strings.HasPrefix(CSVHeader, timing.StatsCSVHeader+",") {
		t.Error("the header does not start with timing's columns")
	}
	for _, row := range strings.Split(strings.TrimSpace(want), "\n") {
		if strings.Count(row, ",") != strings.Count(CSVHeader, ",") {
			t.Errorf("row %q has %d columns, header %d", row, strings.Count(row, ",")+1, strings.Count(CSVHeader, ",")+1)
		}
	}
}

type failingCSVWriter struct{}

func (failingCSVWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestCSVReportsWriteErrors(t *testing.T) {
	c := NewCSV(failingCSVWriter{})
	f := sampleFrame()
	var err error
	for range 2000 { // more than the buffer holds
		if err = c.Write(&f); err != nil {
			break
		}
	}
	if err == nil || err.Error() != "disk full" {
		t.Errorf("Write error %v, want disk full", err)
	}
	if err := c.Flush(); err == nil || err.Error() != "disk full" {
		t.Errorf("Flush error %v, want disk full", err)
	}
}

func TestCSVWriteDoesNotAllocate(t *testing.T) {
	var buf bytes.Buffer
	buf.Grow(1 << 20)
	c := NewCSV(&buf)
	f := sampleFrame()
	f.Loop.Time = time.Hour
	if n := testing.AllocsPerRun(1000, func() { c.Write(&f) }); n != 0 {
		t.Errorf("Write allocates %v times per row", n)
	}
}
