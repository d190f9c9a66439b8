package matchlog

import (
	"os"
	"path/filepath"
	"testing"
	"time"

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
