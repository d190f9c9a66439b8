package matchlog

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nebulaengine/nebula/cmd/nebula-demo/scene"
	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/netplay"
	"github.com/nebulaengine/nebula/engine/replay"
)

// BenchmarkFsync is the cost of making one tick's chunk (48 bytes, about
// a four-player tick's) durable in a file of t.TempDir(): written alone,
// written and fsynced every tick, and fsynced every 6 ticks (group
// commit, the default cadence). ns/op is per tick.
func BenchmarkFsync(b *testing.B) {
	chunk := make([]byte, 48)
	for _, bc := range []struct {
		name  string
		every int // fsync every this many ticks (0: never)
	}{
		{"write-only", 0},
		{"fsync-every-tick", 1},
		{"fsync-every-6-ticks", 6},
	} {
		b.Run(bc.name, func(b *testing.B) {
			f, err := os.Create(filepath.Join(b.TempDir(), "log"))
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				if _, err := f.Write(chunk); err != nil {
					b.Fatal(err)
				}
				n++
				if bc.every > 0 && n%bc.every == 0 {
					if err := f.Sync(); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// BenchmarkLogTick is a tick of the test game's engine, alone and with a
// match log at three cadences: the difference is the log's cost on the
// tick's own goroutine (the writes and fsyncs run on the writer's).
// ns/op is per tick.
func BenchmarkLogTick(b *testing.B) {
	for _, bc := range []struct {
		name string
		cfg  *Config
	}{
		{"no-log", nil},
		{"fsync-every-tick", &Config{SnapshotEvery: 600, SyncEvery: 0}},
		{"fsync-every-6-ticks", &Config{SnapshotEvery: 600, SyncEvery: 6, SyncInterval: 100 * time.Millisecond}},
		{"no-fsync", &Config{SnapshotEvery: 600, SyncEvery: 1 << 62}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			e, _, err := newGame(replay.Header{Seed: 3})
			if err != nil {
				b.Fatal(err)
			}
			var lg *Log
			if bc.cfg != nil {
				cfg := *bc.cfg
				cfg.Log = quiet()
				lg, err = Create(filepath.Join(b.TempDir(), "log"), e, testHeader(e), cfg)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := e.AddTickHook(lg); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			for b.Loop() {
				if !e.StepTick(0) {
					b.Fatal(e.Err())
				}
			}
			b.StopTimer()
			if lg != nil {
				if err := lg.Close(e.World.Hash()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkResume is the recovery of a killed server's match from its
// log: a minute (3,600 ticks at 60 Hz) of the demo scene at 1,000 cubes,
// with a snapshot every 600 ticks (the default: the last one is at tick
// 3,000, so 600 ticks replay) and with none (the whole minute replays).
// ns/op is the recovery time, from opening the log to the server ready.
func BenchmarkResume(b *testing.B) {
	for _, bc := range []struct {
		name  string
		every uint64
	}{
		{"snapshot-every-600", 600},
		{"no-snapshot", 0},
	} {
		b.Run(bc.name, func(b *testing.B) {
			dir := b.TempDir()
			logged := filepath.Join(dir, "logged")
			e := demoEngine(b)
			lg, err := Create(logged, e, demoHeader(e), Config{SnapshotEvery: bc.every, SyncEvery: 1 << 62, Log: quiet()})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := e.AddTickHook(lg); err != nil {
				b.Fatal(err)
			}
			for range 3600 {
				if !e.StepTick(0) {
					b.Fatal(e.Err())
				}
			}
			lg.flushAndAbandon()
			data, err := os.ReadFile(logged)
			if err != nil {
				b.Fatal(err)
			}
			cfg := netplay.DefaultServerConfig()
			cfg.Scene, cfg.Log = "demo", quiet()
			path := filepath.Join(dir, "resumed")
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				if err := os.WriteFile(path, data, 0o644); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				res, err := Resume(path, ResumeConfig{
					Build:  func(replay.Header) (*engine.Engine, error) { return demoEngine(b), nil },
					Server: cfg, Log: Config{SnapshotEvery: bc.every, Log: quiet()},
				})
				if err != nil {
					b.Fatal(err)
				}
				if res.Tick != 3600 {
					b.Fatalf("resumed at tick %d, want 3600", res.Tick)
				}
				res.Log.abandon()
			}
			b.ReportMetric(float64(len(data)), "log_bytes")
		})
	}
}

func demoEngine(b *testing.B) *engine.Engine {
	e, err := engine.New(engine.DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	scene.Setup(e, 1000)
	return e
}

func demoHeader(e *engine.Engine) replay.Header {
	return replay.Header{TickRate: 60, Seed: 1, HashEvery: 60, Scene: "demo", JobMode: e.Jobs.Mode(), Schema: e.World.Schema()}
}

// flushAndAbandon waits for the writer to write what the ticks handed it,
// then abandons the log: a log cut where a kill after that write leaves
// it, without its end.
func (l *Log) flushAndAbandon() {
	l.mu.Lock()
	for len(l.pending) > 0 && l.err == nil {
		l.mu.Unlock()
		l.signal()
		time.Sleep(time.Millisecond)
		l.mu.Lock()
	}
	l.mu.Unlock()
	for l.Written() < l.e.World.Tick() && l.Err() == nil {
		time.Sleep(time.Millisecond)
	}
	l.abandon()
}
