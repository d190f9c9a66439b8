// Package matchlog keeps a match server's durable log and recovers a match
// from it after the server died: every confirmed tick's inputs are
// appended to the log as it runs, with a snapshot every
// Config.SnapshotEvery ticks, and fsynced at a configured cadence (group
// commit); Resume opens the log of a killed server, restores its last
// snapshot into a new engine, replays the ticks logged since and returns
// a netplay.Server that continues the match at the tick after the last
// one logged, appending to the same file.
//
// The log is a replay file (package replay, format version 6): each tick
// is a chunk of its own, and a snapshot is a record's Snapshot. A log
// whose server was killed has no end chunk and may end in a torn chunk:
// replay.OpenIncomplete cuts it, so such a log verifies as far as it goes
// (nebula-demo -replay LOG -partial -verify), and a log that ended (Close)
// verifies as any recording (nebula-demo -replay LOG -verify), the ticks
// before and after a recovery alike.
//
// What a crash loses: a tick is in the log once the writer goroutine has
// written it (Log.Written), within a tick or two of its confirmation, and
// survives the server process's death from then on; it survives a crash
// of the machine once fsynced (Log.Durable), at most SyncEvery ticks or
// SyncInterval later. See docs/matchlog.md for the figures.
//
//	lg, err := matchlog.Create("match.nebreplay", e, header, matchlog.DefaultConfig())
//	srv, err := netplay.NewServer(e, cfg)
//	_, err = e.AddTickHook(lg) // beside the server's hook
//	err = srv.Serve(ln)
//	err = lg.Close(e.World.Hash())
//
// and after a kill -9:
//
//	res, err := matchlog.Resume("match.nebreplay", matchlog.ResumeConfig{Build: newGame, Server: cfg, Log: matchlog.DefaultConfig()})
//	err = res.Server.Serve(ln) // at tick res.Tick+1
//	err = res.Log.Close(res.Engine.World.Hash())
package matchlog
