package replay

import (
	"github.com/nebulaengine/nebula/engine/geom"

	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/input"
)

// testScene is a small deterministic scene: bodies moving by their
// velocity, one steered by the arrow keys and recoloured by Space, and a
// planner job every 30 ticks that gives some bodies new velocities.
type testScene struct {
	e    *engine.Engine
	plan engine.JobKind
	// panicAt makes the "boom" system panic at that tick (0 = never).
	panicAt uint64
	// applyPanicFrom makes the planner's Apply panic at the first result
	// it applies from that tick on (0 = never).
	applyPanicFrom uint64
}

func newTestScene(t testing.TB, seed uint64, n int, mode engine.JobMode) *testScene {
	t.Helper()
	cfg := engine.DefaultConfig()
	cfg.Seed = seed
	e, err := engine.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e.Jobs.SetMode(mode)
	s := &testScene{e: e}
	w := e.World
	rng := w.RNG()
	for range n {
		id := w.Spawn(geom.NewTransform(mgl32.Vec3{rng.Range(-5, 5), rng.Range(-5, 5), 0}), engine.Interpolate)
		w.SetDrawVelocity(id, mgl32.Vec3{rng.Range(-1, 1), rng.Range(-1, 1), 0}, mgl32.Vec3{})
	}
	s.plan = e.Jobs.Register("plan", planJob, s.applyPlan)
	e.AddSystem(engine.StageScripts, "steer", func(c *engine.FixedContext) {
		p, _ := c.World.EntityAt(0)
		var v mgl32.Vec3
		if c.Input.Down(input.KeyArrowRight) {
			v[0] = 3
		}
		if c.Input.Down(input.KeyArrowLeft) {
			v[0] = -3
		}
		_, ang := c.World.DrawVelocity(p)
		c.World.SetDrawVelocity(p, v, ang)
		if c.Input.JustPressed(input.KeySpace) {
			r := c.World.RNG()
			c.World.SetColor(p, [4]uint8{uint8(r.Intn(256)), 1, 2, 255})
		}
	})
	e.AddSystem(engine.StageScripts, "players", func(c *engine.FixedContext) {
		// Player id steers the body in slot id+1 with its arrow keys; a
		// player who joins is put back at the origin, one who leaves is
		// greyed out.
		ps := c.Players
		for i := range ps.Len() {
			id, in := ps.At(i)
			body, ok := c.World.EntityAt(int(id) + 1)
			if !ok {
				continue
			}
			var v mgl32.Vec3
			if in.Down(input.KeyArrowUp) {
				v[1] = 2
			}
			if in.Down(input.KeyArrowDown) {
				v[1] = -2
			}
			_, ang := c.World.DrawVelocity(body)
			c.World.SetDrawVelocity(body, v, ang)
		}
		for _, id := range ps.Joined() {
			if body, ok := c.World.EntityAt(int(id) + 1); ok {
				c.World.Teleport(body, geom.NewTransform(mgl32.Vec3{}))
			}
		}
		for _, id := range ps.Left() {
			if body, ok := c.World.EntityAt(int(id) + 1); ok {
				c.World.SetColor(body, [4]uint8{128, 128, 128, 255})
			}
		}
	})
	e.AddSystem(engine.StageScripts, "move", func(c *engine.FixedContext) {
		b := c.World.Bodies()
		for i := range c.World.Slots() {
			for a := range 3 {
				b.Pos[i][a] = float32(b.Vel[i][a]*c.DT) + b.Pos[i][a]
			}
		}
	})
	e.AddSystem(engine.StageScripts, "planner", func(c *engine.FixedContext) {
		if c.Tick%30 != 0 {
			return
		}
		r := c.World.RNG()
		in := binary.LittleEndian.AppendUint64(nil, r.Uint64())
		in = binary.LittleEndian.AppendUint32(in, uint32(c.World.Slots()))
		e.Jobs.Submit(s.plan, in, uint32(1+r.Intn(40)))
	})
	e.AddSystem(engine.StageScripts, "boom", func(c *engine.FixedContext) {
		if c.Tick == s.panicAt {
			panic("boom at the chosen tick")
		}
	})
	return s
}

// planJob picks new velocities for 3 bodies from its own RNG; live, it
// sleeps a little, as slow work would.
func planJob(in []byte, live bool) []byte {
	r := engine.NewRNG(binary.LittleEndian.Uint64(in))
	n := int(binary.LittleEndian.Uint32(in[8:]))
	if live {
		time.Sleep(time.Duration(1+r.Intn(3)) * time.Millisecond)
	}
	var out []byte
	for range 3 {
		out = binary.LittleEndian.AppendUint32(out, uint32(r.Intn(n)))
		out = binary.LittleEndian.AppendUint32(out, uint32(int32(r.Range(-2000, 2000))))
	}
	return out
}

func (s *testScene) applyPlan(c *engine.FixedContext, in, out []byte) {
	if s.applyPanicFrom != 0 && c.Tick >= s.applyPanicFrom {
		panic("the planner's result does not apply")
	}
	for i := 0; i+8 <= len(out); i += 8 {
		id, ok := c.World.EntityAt(int(binary.LittleEndian.Uint32(out[i:])))
		if ok {
			v := float32(int32(binary.LittleEndian.Uint32(out[i+4:]))) / 1000
			c.World.SetDrawVelocity(id, mgl32.Vec3{v, -v, 0}, mgl32.Vec3{})
		}
	}
}

// script presses and holds keys and moves the cursor.
func script(tick uint64, due time.Duration, in *input.Queue) {
	switch tick % 100 {
	case 10:
		in.Push(input.Event{Time: due, Kind: input.KeyDown, Key: input.KeyArrowRight})
	case 40:
		in.Push(input.Event{Time: due, Kind: input.KeyUp, Key: input.KeyArrowRight})
		in.Push(input.Event{Time: due, Kind: input.KeyDown, Key: input.KeyArrowLeft})
	case 70:
		in.Push(input.Event{Time: due, Kind: input.KeyUp, Key: input.KeyArrowLeft})
	case 77:
		in.Push(input.Event{Time: due, Kind: input.KeyDown, Key: input.KeySpace})
		in.Push(input.Event{Time: due, Kind: input.CursorMove, X: float64(tick), Y: 3})
	case 78:
		in.Push(input.Event{Time: due, Kind: input.KeyUp, Key: input.KeySpace})
	}
}

func testHeader(seed uint64, n int) Header {
	return Header{TickRate: 60, Seed: seed, HashEvery: 60, Scene: "replay-test", Params: []byte{byte(n)}}
}

// record runs a fresh scene for ticks ticks with the script and returns the
// recording and the final hash.
func record(t testing.TB, mode engine.JobMode, ticks uint64, panicAt uint64) ([]byte, uint64) {
	t.Helper()
	s := newTestScene(t, 7, 50, mode)
	s.panicAt = panicAt
	s.e.SetInputScript(script)
	var buf bytes.Buffer
	rec, err := NewRecorder(&buf, testHeader(7, 50))
	if err != nil {
		t.Fatal(err)
	}
	s.e.AddTickHook(rec)
	_, err = engine.RunHeadless(s.e, engine.HeadlessConfig{DisplayHz: 144, Ticks: ticks})
	var perr *engine.PanicError
	switch {
	case errors.As(err, &perr):
		if err := rec.Crash(perr); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes(), 0
	case err != nil:
		t.Fatal(err)
	}
	if err := rec.Close(s.e.World.Hash()); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), s.e.World.Hash()
}

func TestRecordAndVerify(t *testing.T) {
	for _, mode := range []engine.JobMode{engine.JobsDeterministic, engine.JobsLive} {
		t.Run(mode.String(), func(t *testing.T) {
			data, hash := record(t, mode, 600, 0)
			r, err := Open(data)
			if err != nil {
				t.Fatal(err)
			}
			if r.Records() != 600 || r.End.Hash != hash || r.End.Crash != nil {
				t.Fatalf("end %+v, want 600 records and hash %016x", r.End, hash)
			}
			s := newTestScene(t, 7, 50, engine.JobsDeterministic)
			res, err := Verify(s.e, r)
			if err != nil {
				t.Fatal(err)
			}
			if res.Ticks != 600 || res.Hashes != 11 {
				t.Errorf("verified %d ticks and %d hashes, want 600 and 11", res.Ticks, res.Hashes)
			}
			if s.e.World.Hash() != hash {
				t.Errorf("replayed hash %016x, want %016x", s.e.World.Hash(), hash)
			}
		})
	}
}

// Jobs in live mode land when they are ready; the recording remembers
// where, so the replay (which runs no job) lands them there too. A live
// run's hash is therefore not the deterministic run's, in general, but its
// replay's is its own.
func TestVerifyDetectsDivergence(t *testing.T) {
	data, _ := record(t, engine.JobsDeterministic, 300, 0)
	r, err := Open(data)
	if err != nil {
		t.Fatal(err)
	}
	s := newTestScene(t, 8, 50, engine.JobsDeterministic) // another seed
	_, err = Verify(s.e, r)
	var d *DivergenceError
	if !errors.As(err, &d) {
		t.Fatalf("err %v, want a DivergenceError", err)
	}
	if d.Tick > 60 {
		t.Errorf("diverged at tick %d, want the first hashed tick or before", d.Tick)
	}
	t.Log(err)
}

func TestCrashReplayReproducesThePanic(t *testing.T) {
	data, _ := record(t, engine.JobsDeterministic, 600, 250)
	r, err := Open(data)
	if err != nil {
		t.Fatal(err)
	}
	if c := r.End.Crash; c == nil || c.Tick != 250 || c.System != "boom" || !strings.Contains(c.Message, "boom at the chosen tick") {
		t.Fatalf("crash %+v, want tick 250 in system boom", c)
	}
	if r.Records() != 250 {
		t.Errorf("%d records, want 250 (the crashed tick included)", r.Records())
	}
	s := newTestScene(t, 7, 50, engine.JobsDeterministic)
	s.panicAt = 250
	_, err = Verify(s.e, r)
	var rp *ReproducedPanic
	if !errors.As(err, &rp) || rp.Panic.Tick != 250 {
		t.Fatalf("err %v, want the panic reproduced at tick 250", err)
	}
	// Without the injected panic the replay runs through: a divergence.
	s = newTestScene(t, 7, 50, engine.JobsDeterministic)
	_, err = Verify(s.e, r)
	var d *DivergenceError
	if !errors.As(err, &d) || d.Tick != 250 {
		t.Fatalf("err %v, want a divergence at tick 250", err)
	}
}

// recordCrash records s headless with the script (drawing frames if draw)
// until a system panics, and returns the crash replay and the panic.
func recordCrash(t *testing.T, s *testScene, draw bool) (*Replay, *engine.PanicError) {
	t.Helper()
	s.e.SetInputScript(script)
	var buf bytes.Buffer
	rec, err := NewRecorder(&buf, testHeader(7, 50))
	if err != nil {
		t.Fatal(err)
	}
	s.e.AddTickHook(rec)
	_, err = engine.RunHeadless(s.e, engine.HeadlessConfig{DisplayHz: 144, Ticks: 600, Draw: draw})
	var perr *engine.PanicError
	if !errors.As(err, &perr) {
		t.Fatalf("run: %v, want a panic", err)
	}
	if err := rec.Crash(perr); err != nil {
		t.Fatal(err)
	}
	r, err := Open(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return r, perr
}

// A panic in a job's Apply is in the crash replay too: the recording has
// the result, so the replay delivers it and Apply panics at the same tick,
// in the job's system.
func TestCrashInJobApplyReplays(t *testing.T) {
	s := newTestScene(t, 7, 50, engine.JobsDeterministic)
	s.applyPanicFrom = 100
	r, perr := recordCrash(t, s, false)
	if perr.System != "job:plan" {
		t.Fatalf("run: %v, want a panic in system job:plan", perr)
	}
	again := newTestScene(t, 7, 50, engine.JobsDeterministic)
	again.applyPanicFrom = 100
	_, err := Verify(again.e, r)
	var rp *ReproducedPanic
	if !errors.As(err, &rp) || rp.Panic.Tick != perr.Tick || rp.Panic.System != "job:plan" {
		t.Fatalf("Verify: %v, want the panic reproduced at tick %d in job:plan", err, perr.Tick)
	}
}

// A panic in an Update system is recorded with its phase; Verify, which
// runs no frames, checks every tick and then says the panic is beyond it,
// rather than calling the agreeing replay a divergence.
func TestCrashInFramePhaseIsNotADivergence(t *testing.T) {
	s := newTestScene(t, 7, 50, engine.JobsDeterministic)
	s.e.AddUpdate("hud", func(c *engine.FrameContext) {
		if c.Stats.Tick >= 200 {
			panic("the HUD has no font")
		}
	})
	r, perr := recordCrash(t, s, true)
	if perr.Phase != engine.PhaseUpdate {
		t.Fatalf("run: %v, want a panic in the update phase", perr)
	}
	res, err := Verify(newTestScene(t, 7, 50, engine.JobsDeterministic).e, r)
	var fp *FramePanicError
	if !errors.As(err, &fp) || fp.Recorded.System != "hud" || res.Ticks != r.Records() || res.Ticks < 200 {
		t.Fatalf("Verify: %v after %d of %d ticks, want a *FramePanicError for system hud after every tick", err, res.Ticks, r.Records())
	}
}

// A snapshot restored during a recorded run is in the recording, and the
// replay restores it at the same point.
func TestRecordedRestoreReplays(t *testing.T) {
	s := newTestScene(t, 7, 50, engine.JobsDeterministic)
	s.e.SetInputScript(script)
	var buf bytes.Buffer
	rec, err := NewRecorder(&buf, testHeader(7, 50))
	if err != nil {
		t.Fatal(err)
	}
	s.e.AddTickHook(rec)
	step := func(n int) {
		for range n {
			if !s.e.StepTick(time.Duration(s.e.World.Tick()+1) * time.Second / 60) {
				t.Fatal(s.e.Err())
			}
		}
	}
	step(100)
	snap := s.e.Snapshot()
	step(75)
	restore := func() {
		// The engine tells the recorder, one of its tick hooks.
		if err := s.e.Restore(snap); err != nil {
			t.Fatal(err)
		}
	}
	restore()
	step(200)
	// A restore that the run ends before any tick follows: the recording
	// ends with the world it replaced.
	restore()
	if err := rec.Close(s.e.World.Hash()); err != nil {
		t.Fatal(err)
	}
	r, err := Open(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	res, err := Verify(newTestScene(t, 7, 50, engine.JobsDeterministic).e, r)
	if err != nil {
		t.Fatal(err)
	}
	if res.Ticks != 375 {
		t.Errorf("%d ticks replayed, want 375", res.Ticks)
	}
}

// An unchanged tick costs one byte, and a second of ticks is written as a
// chunk as the run goes.
func TestRecorderWritesEverySecond(t *testing.T) {
	s := newTestScene(t, 7, 5, engine.JobsDeterministic)
	var buf bytes.Buffer
	rec, err := NewRecorder(&buf, Header{TickRate: 60, Seed: 7, HashEvery: 1000, Scene: "x"})
	if err != nil {
		t.Fatal(err)
	}
	s.e.AddTickHook(rec)
	hdr := buf.Len()
	for i := range 120 {
		s.e.StepTick(0)
		if i == 58 && buf.Len() != hdr {
			t.Errorf("a chunk was written before a second of ticks")
		}
		if i == 59 && buf.Len() < hdr+60 {
			t.Errorf("no chunk written after a second of ticks (%d bytes)", buf.Len())
		}
	}
	// Jobs land at a few ticks; every other tick is one op byte.
	if err := rec.Close(0); err != nil {
		t.Fatal(err)
	}
	if buf.Len() > 600 {
		t.Errorf("120 quiet ticks took %d bytes", buf.Len())
	}
}

// fileRecorder returns a 1,000-body scene and a recorder of it writing to
// a file, as a real run's does; the file is closed when the test ends.
func fileRecorder(tb testing.TB) (*testScene, *Recorder) {
	tb.Helper()
	s := newTestScene(tb, 7, 1000, engine.JobsDeterministic)
	f, err := os.Create(tb.TempDir() + "/r.rep")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { f.Close() })
	rec, err := NewRecorder(f, Header{TickRate: 60, Seed: 7, HashEvery: 60, Scene: "x"})
	if err != nil {
		tb.Fatal(err)
	}
	return s, rec
}

// fourPlayers returns a Players with players 0 to 3 in it.
func fourPlayers(t testing.TB) *engine.Players {
	var ps engine.Players
	for id := range engine.PlayerID(4) {
		if err := ps.Join(id); err != nil {
			t.Fatal(err)
		}
	}
	return &ps
}

func TestRecorderDoesNotAllocate(t *testing.T) {
	s, rec := fileRecorder(t)
	var info engine.TickInfo
	info.Rate = 60
	info.Players = fourPlayers(t)
	tick := func() {
		info.Tick++
		id := engine.PlayerID(info.Tick % 4)
		_ = info.Players.SetInput(id, keyInput(input.Key(info.Tick%uint64(input.KeyCount))))
		rec.BeginTick(&info)
		rec.EndTick(info.Tick, s.e.World)
	}
	for range 300 {
		tick()
	}
	if a := testing.AllocsPerRun(600, tick); a != 0 {
		t.Errorf("recording allocates %v times per tick, want 0", a)
	}
}

// BenchmarkRecorderTick measures what recording adds to a tick of a
// 1,000-body world with four players: the hooks, an input change every 20
// ticks, a hash every 60 ticks and a chunk written to a file every second.
func BenchmarkRecorderTick(b *testing.B) {
	s, rec := fileRecorder(b)
	var info engine.TickInfo
	info.Rate = 60
	info.Players = fourPlayers(b)
	b.ReportAllocs()
	for b.Loop() {
		info.Tick++
		if info.Tick%20 == 0 {
			_ = info.Players.SetInput(engine.PlayerID(info.Tick/20%4), keyInput(input.Key(info.Tick/20%uint64(input.KeyCount))))
		}
		rec.BeginTick(&info)
		rec.EndTick(info.Tick, s.e.World)
	}
	ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	b.ReportMetric(ns/(1e9/60)*100, "%_of_60Hz_tick")
}

// chunkEnds returns the offset just after each chunk of a recording.
func chunkEnds(t testing.TB, data []byte) []int {
	t.Helper()
	d := newDecoder(data)
	if err := d.header(new(Header)); err != nil {
		t.Fatal(err)
	}
	var ends []int
	for off := d.r.Offset(); off < len(data); {
		off += 5 + int(binary.LittleEndian.Uint32(data[off+1:])) + 4
		ends = append(ends, off)
	}
	return ends
}

// A killed recorder leaves a file without its end chunk, perhaps with a
// chunk cut short: Open refuses it as truncated, OpenIncomplete keeps every
// whole chunk, and the kept records verify. Any other fault is still
// refused.
func TestOpenIncomplete(t *testing.T) {
	data, _ := record(t, engine.JobsDeterministic, 600, 0)
	ends := chunkEnds(t, data)
	if len(ends) < 4 {
		t.Fatalf("%d chunks, want several", len(ends))
	}
	last := ends[len(ends)-2] // after the last ticks chunk: the end chunk follows
	for _, tt := range []struct {
		name string
		cut  int // bytes kept
		keep int // whole chunks kept
	}{
		{"no end chunk", last, len(ends) - 1},
		{"last chunk cut short", last - 7, len(ends) - 2},
		{"end chunk cut short", len(data) - 3, len(ends) - 1},
		{"one chunk and a bit", ends[0] + 2, 1},
		{"header and a bit", ends[0] - 5, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			file := data[:tt.cut]
			if _, err := Open(file); !errors.Is(err, ErrTruncated) {
				t.Fatalf("Open = %v, want ErrTruncated", err)
			}
			r, err := OpenIncomplete(file)
			if err != nil {
				t.Fatalf("OpenIncomplete: %v", err)
			}
			m := r.End.Missing
			if m == nil || !errors.Is(m.Reason, ErrTruncated) {
				t.Fatalf("End.Missing = %+v, want the truncation", m)
			}
			s := newTestScene(t, 7, 50, engine.JobsDeterministic)
			res, err := Verify(s.e, r)
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			if res.Ticks != r.Records() || r.End.LastTick != r.Records() {
				t.Errorf("verified %d ticks of %d records (last tick %d)", res.Ticks, r.Records(), r.End.LastTick)
			}
			kept := 0
			if tt.keep > 0 {
				kept = ends[tt.keep-1]
			}
			if tt.keep > 0 && (r.Records() == 0 || res.Hashes == 0) || m.Bytes != tt.cut-kept && tt.keep > 0 {
				t.Errorf("%d records, %d hashes and %d dropped bytes from %d whole chunks of %d bytes", r.Records(), res.Hashes, m.Bytes, tt.keep, kept)
			}
			if tt.keep == 0 && r.Records() != 0 {
				t.Errorf("%d records kept from no whole chunk", r.Records())
			}
			t.Logf("kept %d records, verified %d hashes, dropped %d bytes", r.Records(), res.Hashes, m.Bytes)
		})
	}

	// A flipped byte is not a kill: refused even with the end cut off.
	bad := append([]byte(nil), data[:last]...)
	bad[ends[0]+10] ^= 0x40
	if _, err := OpenIncomplete(bad); !errors.Is(err, ErrChecksum) {
		t.Errorf("OpenIncomplete of a flipped byte = %v, want ErrChecksum", err)
	}
	// A whole file is returned as Open returns it.
	if r, err := OpenIncomplete(data); err != nil || r.End.Missing != nil || r.Records() != 600 {
		t.Errorf("OpenIncomplete of a whole file = %+v, %v", r, err)
	}
}
