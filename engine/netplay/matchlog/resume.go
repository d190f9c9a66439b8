package matchlog

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/netplay"
	"github.com/nebulaengine/nebula/engine/replay"
)

// ResumeConfig is what Resume needs besides the log.
type ResumeConfig struct {
	// Build returns a new engine with the scene h describes set up (its
	// systems added, its world built from h.Params and h.Seed) at tick 0:
	// what the crashed server's engine was before its first tick.
	Build func(h replay.Header) (*engine.Engine, error)
	// Server is the crashed server's configuration (its Scene must be
	// the log's).
	Server netplay.ServerConfig
	// Seats says how long the match's players keep their seats.
	Seats netplay.ResumeConfig
	// Log is the resumed log's configuration.
	Log Config
}

// Resumed is a match continued from its log.
type Resumed struct {
	// Engine is the match's engine, at tick Tick.
	Engine *engine.Engine
	// Server continues the match on Engine from tick Tick+1: call its
	// Serve (or ServeUDP).
	Server *netplay.Server
	// Log is the match's log, appending to the same file from Tick+1;
	// close it once Serve has returned, as a new match's.
	Log *Log
	// Header is the log's header.
	Header replay.Header
	// Tick is the last tick in the log: the match goes on from the
	// tick after.
	Tick uint64
	// SnapshotTick is the tick of the snapshot restored (0: none, the
	// log was replayed from its first tick).
	SnapshotTick uint64
	// Replayed is the number of ticks replayed after the snapshot.
	Replayed uint64
	// Cut is the number of bytes cut from the log's end: a torn or
	// incomplete last chunk (replay.End.Missing).
	Cut int
	// Took is the time the recovery took, from opening the log to the
	// server being ready.
	Took time.Duration
}

// Resume continues the match whose log is at path, after its server died
// (kill -9, a crash of the machine): it opens the log, cuts a torn tail
// (replay.OpenIncomplete), restores its last snapshot into a new engine
// (cfg.Build), replays the ticks logged since, checking every stored hash,
// and returns a server that continues the match at the tick after the
// last one logged (netplay.ResumeServer: the same scene, parameters and
// players' seats; clients come back as late joiners) and a log that
// appends to the same file. A log that has its end (the match ended, or
// its server closed it) is refused: there is nothing to resume.
func Resume(path string, cfg ResumeConfig) (*Resumed, error) {
	start := time.Now()
	if err := cfg.Log.Validate(); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("matchlog: resume: %w", err)
	}
	res, err := resume(f, path, cfg)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("matchlog: resume %s: %w", path, err)
	}
	res.Took = time.Since(start)
	return res, nil
}

//srccheck:wrapped by Resume, as "matchlog: resume PATH: ..."
func resume(f *os.File, path string, cfg ResumeConfig) (*Resumed, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() > replay.MaxFile {
		return nil, fmt.Errorf("%d bytes, more than the %d a log may have", st.Size(), replay.MaxFile)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	r, err := replay.OpenIncomplete(data)
	if err != nil {
		return nil, err
	}
	if r.End.Missing == nil {
		return nil, fmt.Errorf("the log has its end (the match ended at tick %d): nothing to resume", r.End.LastTick)
	}
	h := r.Header
	if h.Scene != cfg.Server.Scene {
		return nil, fmt.Errorf("the log is of scene %q, the server's is %q", h.Scene, cfg.Server.Scene)
	}
	if r.End.LastTick == 0 {
		return nil, fmt.Errorf("the log holds no tick: start the match again")
	}
	e, err := cfg.Build(h)
	if err != nil {
		return nil, err
	}
	if e.World.Tick() != 0 {
		return nil, fmt.Errorf("the engine built is at tick %d, not 0", e.World.Tick())
	}
	p, snapTick, err := replay.NewPlayerFromSnapshot(e, r)
	if err != nil {
		return nil, err
	}
	for !p.Done() && p.Err() == nil {
		if !e.StepTick(0) {
			break
		}
	}
	p.Close()
	switch {
	case e.Err() != nil:
		return nil, fmt.Errorf("replaying the log's ticks: %w", e.Err())
	case p.Err() != nil:
		return nil, fmt.Errorf("replaying the log's ticks: %w", p.Err())
	case e.World.Tick() != r.End.LastTick:
		return nil, fmt.Errorf("the log's ticks replayed to tick %d, its last is %d", e.World.Tick(), r.End.LastTick)
	}

	// Cut the torn tail, durably, and append from there.
	keep := int64(len(data) - r.End.Missing.Bytes)
	if err := f.Truncate(keep); err != nil {
		return nil, err
	}
	if err := f.Sync(); err != nil {
		return nil, err
	}
	if _, err := f.Seek(keep, io.SeekStart); err != nil {
		return nil, err
	}
	scfg := cfg.Server
	srv, err := netplay.ResumeServer(e, scfg, cfg.Seats)
	if err != nil {
		return nil, err
	}
	l := newLog(f, path, e, cfg.Log)
	rec, err := replay.ContinueRecorder(sink{l}, r)
	if err != nil {
		l.abandon()
		return nil, err
	}
	l.rec = rec
	if _, err := e.AddTickHook(l); err != nil {
		l.abandon()
		return nil, err
	}
	return &Resumed{
		Engine: e, Server: srv, Log: l, Header: h,
		Tick: r.End.LastTick, SnapshotTick: snapTick, Replayed: r.End.LastTick - snapTick,
		Cut: r.End.Missing.Bytes,
	}, nil
}
