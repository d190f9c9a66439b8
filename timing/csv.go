package timing

import (
	"strconv"
	"time"
)

// StatsCSVHeader is the header of the loop's CSV columns: the frame number, the
// frame's start since the first frame, the measured frame interval, the
// ticks it ran, alpha, ticks so far, rolling FPS and UPS, the accumulator
// debt, and the running counts of clamped and capped frames and of dropped
// time.
const StatsCSVHeader = "frame,t_ms,frame_ms,steps,alpha,tick,fps,ups,debt_ms,clamped_frames,capped_frames,dropped_ms"

// AppendStatsCSV appends the fields of the loop's CSV row for s, in the
// order of StatsCSVHeader, to dst and returns the extended slice. It writes
// no trailing newline, so a writer with more columns can continue the row:
// package diag's CSV, which writes the -stats file. It allocates only when
// dst has to grow.
func AppendStatsCSV(dst []byte, s Stats) []byte {
	b := dst
	b = strconv.AppendUint(b, s.Frames, 10)
	b = append(b, ',')
	b = appendMS(b, s.Time)
	b = append(b, ',')
	b = appendMS(b, s.Interval)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(s.Steps), 10)
	b = append(b, ',')
	b = strconv.AppendFloat(b, s.Alpha, 'g', -1, 64) // shortest exact form: never rounds up to 1
	b = append(b, ',')
	b = strconv.AppendUint(b, s.Tick, 10)
	b = append(b, ',')
	b = strconv.AppendFloat(b, s.FPS, 'f', 2, 64)
	b = append(b, ',')
	b = strconv.AppendFloat(b, s.UPS, 'f', 2, 64)
	b = append(b, ',')
	b = appendMS(b, s.Debt)
	b = append(b, ',')
	b = strconv.AppendUint(b, s.ClampedFrames, 10)
	b = append(b, ',')
	b = strconv.AppendUint(b, s.CappedFrames, 10)
	b = append(b, ',')
	b = appendMS(b, s.DroppedTime())
	return b
}

// appendMS appends d in milliseconds with four decimals (100 ns).
func appendMS(b []byte, d time.Duration) []byte {
	return strconv.AppendFloat(b, float64(d)/1e6, 'f', 4, 64)
}
