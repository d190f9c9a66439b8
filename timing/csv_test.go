package timing

import (
	"strings"
	"testing"
	"time"
)

// The rows of three frames of a 60 Hz loop drawn at 30 Hz.
func TestAppendStatsCSVRows(t *testing.T) {
	l := newLoop(t, 60, 5)
	got := StatsCSVHeader + "\n"
	for k := int64(0); k < 3; k++ {
		l.Tick(frameAt(k, 30), nil, nil)
		got += string(AppendStatsCSV(nil, l.Stats())) + "\n"
	}
	want := StatsCSVHeader + "\n" +
		"1,0.0000,0.0000,0,0,0,0.00,0.00,0.0000,0,0,0.0000\n" +
		"2,33.3333,33.3333,1,0.99999998,1,30.00,30.00,33.3333,0,0,0.0000\n" +
		"3,66.6667,33.3333,3,2e-08,4,30.00,60.00,50.0000,0,0,0.0000\n"
	if got != want {
		t.Errorf("CSV:\n%s\nwant:\n%s", got, want)
	}
	if !strings.HasPrefix(StatsCSVHeader, "frame,t_ms,frame_ms,steps,alpha,tick,fps,ups") {
		t.Error("the header lost a column the demo's contract promises")
	}
	s := Stats{Frames: 123456, Time: time.Hour, Interval: 6944444, Steps: 1, Alpha: 0.25, FPS: 144, UPS: 60}
	buf := make([]byte, 0, 256)
	if n := testing.AllocsPerRun(1000, func() { buf = AppendStatsCSV(buf[:0], s) }); n != 0 {
		t.Errorf("AppendStatsCSV allocates %v times per row into a large enough buffer", n)
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
