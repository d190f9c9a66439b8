package timing

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestStatsCSV(t *testing.T) {
	var buf bytes.Buffer
	c := NewStatsCSV(&buf)
	l := newLoop(t, 60, 5)
	for k := int64(0); k < 3; k++ {
		l.Frame(frameAt(k, 30), nil, nil)
		if err := c.Write(l.Stats()); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	want := StatsCSVHeader + "\n" +
		"1,0.0000,0.0000,0,0,0,0.00,0.00,0.0000,0,0,0.0000\n" +
		"2,33.3333,33.3333,1,0.99999998,1,30.00,30.00,33.3333,0,0,0.0000\n" +
		"3,66.6667,33.3333,3,2e-08,4,30.00,60.00,50.0000,0,0,0.0000\n"
	if got := buf.String(); got != want {
		t.Errorf("CSV:\n%s\nwant:\n%s", got, want)
	}
	if !strings.HasPrefix(StatsCSVHeader, "frame,t_ms,frame_ms,steps,alpha,tick,fps,ups") {
		t.Error("the header lost a column the demo's contract promises")
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestStatsCSVReportsWriteErrors(t *testing.T) {
	c := NewStatsCSV(failingWriter{})
	for range 2000 { // more than the buffer holds
		c.Write(Stats{Frames: 1, Interval: time.Millisecond})
	}
	if err := c.Flush(); err == nil || err.Error() != "disk full" {
		t.Errorf("Flush error %v, want disk full", err)
	}
}

func TestStatsCSVWriteDoesNotAllocate(t *testing.T) {
	var buf bytes.Buffer
	buf.Grow(1 << 20)
	c := NewStatsCSV(&buf)
	s := Stats{Frames: 123456, Time: time.Hour, Interval: 6944444, Steps: 1, Alpha: 0.25, FPS: 144, UPS: 60}
	if n := testing.AllocsPerRun(1000, func() { c.Write(s) }); n != 0 {
		t.Errorf("Write allocates %v times per row", n)
	}
}

func TestAppendStatsCSV(t *testing.T) {
	s := Stats{Frames: 7, Time: 100 * time.Millisecond, Interval: 6944444, Steps: 1, Alpha: 0.5, Tick: 6,
		FPS: 144, UPS: 60, Debt: 20 * time.Millisecond, ClampedFrames: 1, ClampedTime: time.Millisecond,
		CappedFrames: 2, CappedTime: 2 * time.Millisecond}
	got := string(AppendStatsCSV([]byte("x,"), s))
	want := "x,7,100.0000,6.9444,1,0.5,6,144.00,60.00,20.0000,1,2,3.0000"
	if got != want {
		t.Errorf("AppendStatsCSV = %q, want %q", got, want)
	}
	if n := strings.Count(StatsCSVHeader, ","); n != strings.Count(want, ",")-1 {
		t.Errorf("header has %d commas, row %d", n, strings.Count(want, ",")-1)
	}
}
