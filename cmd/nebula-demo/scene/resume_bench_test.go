package scene

import (
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/netplay"
	"github.com/nebulaengine/nebula/engine/netplay/matchlog"
	"github.com/nebulaengine/nebula/engine/replay"
)

// BenchmarkResumeMinute is the recovery of a killed server's match from
// its log (matchlog.Resume): a minute (3,600 ticks at 60 Hz) of the scene
// at 1,000 cubes, logged with a snapshot every 600 ticks (the default:
// the last one is at tick 3,000, so 600 ticks replay) and with none (the
// whole minute replays). ns/op is the recovery time, from opening the log
// to the server ready; log_bytes the log's size.
func BenchmarkResumeMinute(b *testing.B) {
	newEngine := func() *engine.Engine {
		e, err := engine.New(engine.DefaultConfig())
		if err != nil {
			b.Fatal(err)
		}
		Setup(e, 1000)
		return e
	}
	quiet := logrus.New()
	quiet.SetOutput(io.Discard)
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
			e := newEngine()
			h := replay.Header{TickRate: 60, Seed: 1, HashEvery: 60, Scene: ID, JobMode: e.Jobs.Mode(), Schema: e.World.Schema()}
			lg, err := matchlog.Create(logged, e, h, matchlog.Config{SnapshotEvery: bc.every, SyncEvery: 1 << 62, Log: quiet})
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
			for lg.Written() < 3600 && lg.Err() == nil {
				time.Sleep(time.Millisecond) // the writer's last write
			}
			data, err := os.ReadFile(logged) // as a kill leaves it: no end
			if err != nil {
				b.Fatal(err)
			}
			if err := lg.Close(e.World.Hash()); err != nil {
				b.Fatal(err)
			}
			cfg := netplay.DefaultServerConfig()
			cfg.Scene, cfg.Log = ID, quiet
			path := filepath.Join(dir, "resumed")
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				if err := os.WriteFile(path, data, 0o644); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				res, err := matchlog.Resume(path, matchlog.ResumeConfig{
					Build:  func(replay.Header) (*engine.Engine, error) { return newEngine(), nil },
					Server: cfg, Log: matchlog.Config{SnapshotEvery: bc.every, Log: quiet},
				})
				if err != nil {
					b.Fatal(err)
				}
				if res.Tick != 3600 {
					b.Fatalf("resumed at tick %d, want 3600", res.Tick)
				}
				b.StopTimer()
				if err := res.Log.Close(res.Engine.World.Hash()); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(len(data)), "log_bytes")
		})
	}
}
