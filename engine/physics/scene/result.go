package scene

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"math"
	"slices"
	"strconv"
	"time"
)

// Record is the state of one dynamic body, as the engine holds it.
type Record struct {
	ID              string     // the body's id in the scene
	Position        [3]float32 // of the centre of mass, m
	Rotation        [4]float32 // unit quaternion [x, y, z, w]
	LinearVelocity  [3]float32 // m/s
	AngularVelocity [3]float32 // rad/s, world frame
	Sleeping        bool       // the engine's own sleep flag
}

// TraceEntry is a Record at a step: Step 0 is the state before the first
// step, Step s the state after s steps.
type TraceEntry struct {
	Step int // steps run before the state was read
	Record
}

// StepStats are the figures of a run's step times, in milliseconds (see
// Summarize).
type StepStats struct {
	Mean float64 // the average
	P50  float64 // the median, nearest rank: the ⌈n/2⌉-th smallest
	P95  float64 // nearest rank: the ⌈0.95·n⌉-th smallest
	Max  float64 // the largest
}

// Setting is one entry of a result's free-form "config" object.
type Setting struct {
	Name string // the key
	// Value is a string, bool, int, int64, float32 (printed in its own
	// shortest form: 0.02) or float64 (printed as AppendNumber does), or
	// anything encoding/json takes.
	Value any
}

// Result is a runner's output: one JSON object (see WriteTo for its
// fields and their spelling).
type Result struct {
	Engine string    // engine name and version, "nebula-physics v1.2.3"
	Scene  string    // the scene's name
	Steps  int       // steps run
	Hz     float64   // the scene's hz
	StepMS StepStats // the step calls' wall-clock times (Summarize)
	InitMS float64   // building the world from the parsed scene, ms
	// LoadMS is the time to load the engine itself before building, in
	// ms; written only when HasLoadMS.
	LoadMS    float64
	HasLoadMS bool     // write load_ms
	Bodies    []Record // every dynamic body, in scene order
	// Joints are the records of every joint after the last step, in scene
	// order (Joint.Measure); omitted when nil: a scene without joints.
	Joints []JointRecord
	// JointErrors summarises the joints' errors (JointTracker); omitted
	// when nil.
	JointErrors *JointErrors
	Hash        string       // "sha256:<hex>" of the engine's state after the last step; omitted when empty
	Config      []Setting    // omitted when empty; written in this order
	Trace       []TraceEntry // omitted when nil (no --trace)
}

// Hash returns "sha256:" and the hex SHA-256 of b: a result's hash.
func Hash(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Summarize returns the mean (to the nearest nanosecond), the nearest-rank
// 50th and 95th percentiles (the ⌈p/100·n⌉-th smallest) and the largest of
// the step times, in milliseconds; all zero for no samples. It sorts
// samples.
func Summarize(samples []time.Duration) StepStats {
	n := len(samples)
	if n == 0 {
		return StepStats{}
	}
	slices.Sort(samples)
	var sum time.Duration
	for _, d := range samples {
		sum += d
	}
	rank := func(p int) time.Duration {
		k := (p*n + 99) / 100 // ⌈p·n/100⌉, exact in integers
		return samples[max(k, 1)-1]
	}
	return StepStats{
		Mean: Millis((sum + time.Duration(n/2)) / time.Duration(n)), // to the nearest ns
		P50:  Millis(rank(50)),
		P95:  Millis(rank(95)),
		Max:  Millis(samples[n-1]),
	}
}

// Millis returns d in milliseconds, as a result writes times.
func Millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// WriteTo writes r as one line of JSON, followed by a newline:
//
//	{"engine":..., "scene":..., "steps":..., "hz":...,
//	 "step_ms":{"mean":..., "p50":..., "p95":..., "max":...},
//	 "init_ms":..., ["load_ms":...,] "bodies":[RECORD...],
//	 ["joints":[JOINT...],] ["joint_errors":{["position":STATS,]
//	 ["angle":STATS,] ["limit":STATS]},]
//	 ["hash":...,] ["config":{...},] ["trace":[{"step":s, RECORD fields}...]]}
//
// where a RECORD is {"id":..., "position":[x,y,z], "rotation":[x,y,z,w],
// "linear_velocity":[...], "angular_velocity":[...], "sleeping":bool}, a
// JOINT {"id":..., "type":..., and those of "position_error",
// "angle_error", "coordinate" and "limit_error" the record has (a
// distance joint's coordinate first)}, and STATS {"max":..., "mean":...,
// "peak":..., "peak_joint":..., "peak_step":...}. Numbers are written as
// AppendNumber writes them.
//
// It writes in pieces of about 64 KiB, so a long trace is not held twice
// in memory.
func (r *Result) WriteTo(w io.Writer) (int64, error) {
	out := writer{w: w}
	b := r.appendJSON(make([]byte, 0, 2*flushSize), &out)
	out.flush(b)
	return out.n, out.err
}

// AppendJSON appends r as WriteTo writes it, newline included.
func (r *Result) AppendJSON(b []byte) []byte { return r.appendJSON(b, nil) }

// flushSize is how many bytes a writer gathers before writing them.
const flushSize = 64 << 10

// writer writes what appendJSON made so far, between records, and keeps
// the count and the first error.
type writer struct {
	w   io.Writer
	n   int64
	err error
}

// flush writes b and returns it emptied.
func (o *writer) flush(b []byte) []byte {
	if o.err == nil && len(b) > 0 {
		n, err := o.w.Write(b)
		o.n += int64(n)
		o.err = err
	}
	return b[:0]
}

// maybeFlush flushes b when it holds flushSize bytes or more, and o is
// not nil (AppendJSON's case).
func (o *writer) maybeFlush(b []byte) []byte {
	if o != nil && len(b) >= flushSize {
		return o.flush(b)
	}
	return b
}

// appendJSON appends r, handing full buffers to out when it is not nil.
func (r *Result) appendJSON(b []byte, out *writer) []byte {
	b = append(b, `{"engine":`...)
	b = appendString(b, r.Engine)
	b = append(b, `,"scene":`...)
	b = appendString(b, r.Scene)
	b = append(b, `,"steps":`...)
	b = strconv.AppendInt(b, int64(r.Steps), 10)
	b = append(b, `,"hz":`...)
	b = AppendNumber(b, r.Hz)
	b = append(b, `,"step_ms":{"mean":`...)
	b = AppendNumber(b, r.StepMS.Mean)
	b = append(b, `,"p50":`...)
	b = AppendNumber(b, r.StepMS.P50)
	b = append(b, `,"p95":`...)
	b = AppendNumber(b, r.StepMS.P95)
	b = append(b, `,"max":`...)
	b = AppendNumber(b, r.StepMS.Max)
	b = append(b, `},"init_ms":`...)
	b = AppendNumber(b, r.InitMS)
	if r.HasLoadMS {
		b = append(b, `,"load_ms":`...)
		b = AppendNumber(b, r.LoadMS)
	}
	b = append(b, `,"bodies":[`...)
	for i := range r.Bodies {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '{')
		b = r.Bodies[i].appendFields(b)
		b = append(b, '}')
		b = out.maybeFlush(b)
	}
	b = append(b, ']')
	b = r.appendJoints(b, out)
	if r.Hash != "" {
		b = append(b, `,"hash":`...)
		b = appendString(b, r.Hash)
	}
	if len(r.Config) > 0 {
		b = append(b, `,"config":{`...)
		for i, s := range r.Config {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, s.Name)
			b = append(b, ':')
			b = appendValue(b, s.Value)
		}
		b = append(b, '}')
	}
	if r.Trace != nil {
		b = append(b, `,"trace":[`...)
		for i := range r.Trace {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"step":`...)
			b = strconv.AppendInt(b, int64(r.Trace[i].Step), 10)
			b = append(b, ',')
			b = r.Trace[i].appendFields(b)
			b = append(b, '}')
			b = out.maybeFlush(b)
		}
		b = append(b, ']')
	}
	return append(b, "}\n"...)
}

// appendFields appends the record's fields, without braces.
func (rec *Record) appendFields(b []byte) []byte {
	b = append(b, `"id":`...)
	b = appendString(b, rec.ID)
	b = append(b, `,"position":`...)
	b = appendFloats(b, rec.Position[:])
	b = append(b, `,"rotation":`...)
	b = appendFloats(b, rec.Rotation[:])
	b = append(b, `,"linear_velocity":`...)
	b = appendFloats(b, rec.LinearVelocity[:])
	b = append(b, `,"angular_velocity":`...)
	b = appendFloats(b, rec.AngularVelocity[:])
	b = append(b, `,"sleeping":`...)
	return strconv.AppendBool(b, rec.Sleeping)
}

// appendFloats appends float32 values widened to float64 as a JSON array.
func appendFloats(b []byte, xs []float32) []byte {
	b = append(b, '[')
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendNumber(b, float64(x))
	}
	return append(b, ']')
}

// appendString appends s as a JSON string, escaped as JavaScript's
// JSON.stringify escapes it: the quote, the backslash and control
// characters; everything else as it is.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c == '\t':
			b = append(b, '\\', 't')
		case c == '\b':
			b = append(b, '\\', 'b')
		case c == '\f':
			b = append(b, '\\', 'f')
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

// appendValue appends a config value as JSON.
func appendValue(b []byte, v any) []byte {
	switch v := v.(type) {
	case string:
		return appendString(b, v)
	case bool:
		return strconv.AppendBool(b, v)
	case int:
		return strconv.AppendInt(b, int64(v), 10)
	case int64:
		return strconv.AppendInt(b, v, 10)
	case float32:
		// A setting is read by people: its float32 shortest form (0.02),
		// not the widened float64's (0.019999999552965164).
		x, _ := strconv.ParseFloat(strconv.FormatFloat(float64(v), 'g', -1, 32), 64)
		return AppendNumber(b, x)
	case float64:
		return AppendNumber(b, v)
	}
	j, err := json.Marshal(v)
	if err != nil {
		return appendString(b, err.Error())
	}
	return append(b, j...)
}

// AppendNumber appends x as JavaScript's JSON.stringify writes a number:
// the shortest decimal that reads back as x, in plain notation for
// 1e-6 <= |x| < 1e21 (integers without a point: 60, not 60.0) and in
// exponent notation otherwise (4.01621313983469e-8, 1e+21); -0 as 0. A
// float32 value is widened to float64 first, so its digits are those of
// the float64 (0.1 as float32 is 0.10000000149011612). Non-finite values,
// which JSON cannot hold, are written as null, as JavaScript writes them.
func AppendNumber(b []byte, x float64) []byte {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return append(b, "null"...)
	case x == 0:
		return append(b, '0')
	}
	// Shortest digits d1.d2d3...e±E, from the standard library.
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], x, 'e', -1, 64)
	if e[0] == '-' {
		b = append(b, '-')
		e = e[1:]
	}
	mant, exp, _ := bytes.Cut(e, []byte{'e'})
	exp10, _ := strconv.Atoi(string(exp))
	var digitBuf [24]byte
	digits := digitBuf[:0]
	for _, c := range mant {
		if c != '.' {
			digits = append(digits, c)
		}
	}
	k := len(digits) // ECMAScript's Number::toString: k digits, n = exponent + 1
	n := exp10 + 1
	switch {
	case k <= n && n <= 21:
		b = append(b, digits...)
		for range n - k {
			b = append(b, '0')
		}
	case 0 < n && n <= 21:
		b = append(b, digits[:n]...)
		b = append(b, '.')
		b = append(b, digits[n:]...)
	case -6 < n && n <= 0:
		b = append(b, "0."...)
		for range -n {
			b = append(b, '0')
		}
		b = append(b, digits...)
	default:
		b = append(b, digits[0])
		if k > 1 {
			b = append(b, '.')
			b = append(b, digits[1:]...)
		}
		b = append(b, 'e')
		if n-1 >= 0 {
			b = append(b, '+')
		}
		b = strconv.AppendInt(b, int64(n-1), 10)
	}
	return b
}
