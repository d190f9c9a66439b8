package matchlog

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/netplay"
	"github.com/nebulaengine/nebula/engine/replay"
)

// Config says how often a match log takes a snapshot and makes its bytes
// durable. DefaultConfig returns the defaults.
type Config struct {
	// SnapshotEvery puts a snapshot of the match (a checkpoint) in the
	// log every this many ticks, before the next tick: a recovery
	// restores the last one and replays the ticks since (0: none, a
	// recovery replays the whole match).
	SnapshotEvery uint64
	// SyncEvery makes the log fsync its file once this many ticks have
	// been written since the last fsync (0: after every write, that is
	// every tick the writer is handed).
	SyncEvery uint64
	// SyncInterval makes the log fsync its file once the oldest bytes
	// written and not synced are this old, whichever of SyncEvery and
	// SyncInterval comes first (0: SyncEvery alone decides).
	SyncInterval time.Duration
	// MaxPending caps the bytes handed to the writer and not yet written
	// (0: DefaultMaxPending). A tick that would pass it waits for the
	// writer: the log never drops a tick. A single chunk larger than it
	// (a big snapshot) is taken when nothing else waits.
	MaxPending int
	// Trace, when not nil, hears of every write (ServerTrace.LogWritten).
	Trace *netplay.ServerTrace
	// Log receives the log's warnings and errors (nil: logrus's standard
	// logger).
	Log logrus.FieldLogger
}

// Defaults.
const (
	// DefaultSnapshotEvery: a snapshot every 600 ticks, 10 s at 60 Hz,
	// so a recovery replays at most 600 ticks.
	DefaultSnapshotEvery = 600
	// DefaultSyncEvery and DefaultSyncInterval: fsync every 6 ticks or
	// 100 ms, whichever comes first (at 60 Hz, both are 100 ms).
	DefaultSyncEvery    = 6
	DefaultSyncInterval = 100 * time.Millisecond
	// DefaultMaxPending: 4 MiB waiting for the writer at most.
	DefaultMaxPending = 4 << 20
)

// DefaultConfig returns a snapshot every DefaultSnapshotEvery ticks and a
// group commit every DefaultSyncEvery ticks or DefaultSyncInterval.
func DefaultConfig() Config {
	return Config{SnapshotEvery: DefaultSnapshotEvery, SyncEvery: DefaultSyncEvery, SyncInterval: DefaultSyncInterval}
}

// Validate reports a field out of range.
func (c *Config) Validate() error {
	switch {
	case c.SyncInterval < 0:
		return fmt.Errorf("matchlog: sync interval %v: must be 0 or more", c.SyncInterval)
	case c.MaxPending < 0:
		return fmt.Errorf("matchlog: max pending %d: must be 0 (the default) or more", c.MaxPending)
	}
	return nil
}

// Log is a match's durable log: one of the server engine's tick hooks (a
// replay.Recorder inside), it hands every tick's record to a writer
// goroutine as a chunk of its own, which writes it to the file and fsyncs
// at the configured cadence (group commit), and it puts a snapshot in the
// log every Config.SnapshotEvery ticks. Add it to the engine's hooks
// beside the server's (engine.Engine.AddTickHook); Close it once the
// match is over. Its methods other than Written, Durable and Err run on
// the goroutine that runs the engine's ticks.
type Log struct {
	e    *engine.Engine
	rec  *replay.Recorder
	f    *os.File
	path string
	cfg  Config
	log  logrus.FieldLogger

	lastSnap uint64 // the tick of the last snapshot taken
	closed   bool

	// Shared with the writer goroutine.
	mu        sync.Mutex
	room      *sync.Cond // signalled when the writer takes the pending bytes
	pending   []byte     // handed to the writer, not yet taken
	ticks     int        // ticks in pending
	last      uint64     // the last tick in pending
	closing   bool       // write what is pending, fsync and stop
	abandoned bool       // stop at once (a crash, in tests)
	err       error      // the first write or fsync error
	wake      chan struct{}
	done      chan struct{}

	written, durable atomic.Uint64
}

// Create creates the log file at path (an existing file is refused, so
// that a crashed match's log is not overwritten: Resume continues it),
// writes h to it, and returns the log of e's match. h is the match's
// replay header, as for a replay.Recorder; e is the server's engine,
// whose snapshots the log takes.
func Create(path string, e *engine.Engine, h replay.Header, cfg Config) (*Log, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("matchlog: %w", err)
	}
	l := newLog(f, path, e, cfg)
	rec, err := replay.NewRecorder(sink{l}, h)
	if err != nil {
		l.abandon()
		os.Remove(path)
		return nil, fmt.Errorf("matchlog: %s: %w", path, err)
	}
	l.rec = rec
	l.signal() // the header
	if err := syncDir(path); err != nil {
		l.log.WithError(err).Warn("cannot fsync the match log's directory: a power cut may lose the file")
	}
	return l, nil
}

// newLog returns a log writing to f and starts its writer.
func newLog(f *os.File, path string, e *engine.Engine, cfg Config) *Log {
	if cfg.MaxPending == 0 {
		cfg.MaxPending = DefaultMaxPending
	}
	log := cfg.Log
	if log == nil {
		log = logrus.StandardLogger()
	}
	l := &Log{e: e, f: f, path: path, cfg: cfg, log: log.WithField("match_log", path), wake: make(chan struct{}, 1), done: make(chan struct{})}
	l.room = sync.NewCond(&l.mu)
	l.lastSnap = e.World.Tick()
	go l.run()
	return l
}

// syncDir fsyncs the directory that holds path, so that its new entry
// survives a power cut.
func syncDir(path string) error {
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// Path returns the log file's path.
func (l *Log) Path() string { return l.path }

// Written returns the last tick written to the file: once written, a
// tick survives the server process's death (kill -9), since the bytes
// are the kernel's. Safe from any goroutine.
func (l *Log) Written() uint64 { return l.written.Load() }

// Durable returns the last tick fsynced: it survives the machine's crash
// or a power cut too. Safe from any goroutine.
func (l *Log) Durable() uint64 { return l.durable.Load() }

// Err returns the first error writing or syncing the file, or nil: after
// one the log writes nothing more (the match goes on). Safe from any
// goroutine.
func (l *Log) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// PreTick implements engine.TickHook: every SnapshotEvery ticks, the
// log takes a snapshot of the match between the ticks.
func (l *Log) PreTick() {
	t := l.e.World.Tick()
	if l.cfg.SnapshotEvery > 0 && t > l.lastSnap && t%l.cfg.SnapshotEvery == 0 {
		l.rec.Checkpoint(l.e.Snapshot(), l.e.World.Hash())
		l.lastSnap = t
	}
	l.rec.PreTick()
}

// BeginTick implements engine.TickHook.
func (l *Log) BeginTick(t *engine.TickInfo) { l.rec.BeginTick(t) }

// JobApplied implements engine.TickHook.
func (l *Log) JobApplied(tick uint64, id engine.JobID, result []byte) {
	l.rec.JobApplied(tick, id, result)
}

// EndTick implements engine.TickHook: the tick's record goes to the
// writer, as a chunk of its own.
func (l *Log) EndTick(tick uint64, w *engine.World) {
	l.rec.EndTick(tick, w)
	l.rec.Flush()
	l.mu.Lock()
	l.ticks++
	l.last = tick
	l.mu.Unlock()
	l.signal()
}

// Restored implements engine.RestoreHook (a server does not restore; the
// recorder notes it if one does).
func (l *Log) Restored(snap []byte, w *engine.World, before uint64) { l.rec.Restored(snap, w, before) }

// Close ends the log of a match that ended: it writes the last records
// and the end (hash is the world's state hash at the end), waits for the
// writer to write and fsync everything, and closes the file. The log then
// replays (replay.Open) and verifies as a recording.
func (l *Log) Close(hash uint64) error {
	if l.closed {
		return errors.New("matchlog: log already closed")
	}
	return l.finish(l.rec.Close(hash))
}

// Crash ends the log of a match whose simulation panicked (Serve's
// *engine.PanicError), as replay.Recorder.Crash does: its replay
// reproduces the panic.
func (l *Log) Crash(p *engine.PanicError) error {
	if l.closed {
		return errors.New("matchlog: log already closed")
	}
	return l.finish(l.rec.Crash(p))
}

func (l *Log) finish(recErr error) error {
	l.closed = true
	l.mu.Lock()
	l.closing = true
	l.mu.Unlock()
	l.signal()
	<-l.done
	cerr := l.f.Close()
	err := l.Err()
	switch {
	case err != nil:
	case recErr != nil:
		err = fmt.Errorf("matchlog: %s: %w", l.path, recErr)
	case cerr != nil:
		err = fmt.Errorf("matchlog: %w", cerr)
	}
	return err
}

// abandon stops the log as the process's death would: what the writer
// has not taken yet is lost, and the file is closed as it is.
func (l *Log) abandon() {
	l.closed = true
	l.mu.Lock()
	l.abandoned = true
	l.room.Broadcast()
	l.mu.Unlock()
	l.signal()
	<-l.done
	l.f.Close()
}

func (l *Log) signal() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// sink is the recorder's writer: it hands the bytes to the log's writer
// goroutine, waiting while MaxPending bytes wait already.
type sink struct{ l *Log }

func (s sink) Write(p []byte) (int, error) {
	l := s.l
	l.mu.Lock()
	for len(l.pending) > 0 && len(l.pending)+len(p) > l.cfg.MaxPending && !l.abandoned && l.err == nil {
		l.room.Wait()
	}
	if !l.abandoned && l.err == nil {
		l.pending = append(l.pending, p...)
	}
	l.mu.Unlock()
	return len(p), nil
}

// run is the writer goroutine: it takes what is pending, writes it in one
// write, and fsyncs when SyncEvery or SyncInterval says so.
func (l *Log) run() {
	defer close(l.done)
	var (
		buf        []byte
		unsynced   uint64    // ticks written since the last fsync
		dirty      bool      // bytes written since the last fsync
		dirtySince time.Time // when the first of them was written
		lastTick   uint64    // the last tick written
		failed     bool
	)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		var tc <-chan time.Time
		if dirty && l.cfg.SyncInterval > 0 {
			timer.Reset(max(time.Until(dirtySince.Add(l.cfg.SyncInterval)), 0))
			tc = timer.C
		}
		select {
		case <-l.wake:
		case <-tc:
		}
		timer.Stop()
		l.mu.Lock()
		if l.abandoned {
			l.mu.Unlock()
			return
		}
		buf, l.pending = l.pending, buf[:0]
		ticks, last, closing := l.ticks, l.last, l.closing
		l.ticks = 0
		l.room.Broadcast()
		l.mu.Unlock()

		start := time.Now()
		wrote := false
		if len(buf) > 0 && !failed {
			if _, err := l.f.Write(buf); err != nil {
				failed = l.fail(fmt.Errorf("matchlog: writing %s: %w", l.path, err))
			} else {
				wrote = true
				if !dirty {
					dirty, dirtySince = true, start
				}
				if ticks > 0 {
					unsynced += uint64(ticks)
					lastTick = last
					l.written.Store(last)
				}
			}
		}
		synced := false
		if dirty && !failed && (closing || l.cfg.SyncEvery == 0 || unsynced >= l.cfg.SyncEvery ||
			l.cfg.SyncInterval > 0 && time.Since(dirtySince) >= l.cfg.SyncInterval) {
			if err := l.f.Sync(); err != nil {
				failed = l.fail(fmt.Errorf("matchlog: fsync of %s: %w", l.path, err))
			} else {
				synced, dirty, unsynced = true, false, 0
				l.durable.Store(lastTick)
			}
		}
		if (wrote || synced) && l.cfg.Trace != nil && l.cfg.Trace.LogWritten != nil {
			l.cfg.Trace.LogWritten(time.Since(start), synced)
		}
		if closing {
			return
		}
	}
}

// fail keeps err as the log's first error and logs it.
func (l *Log) fail(err error) bool {
	l.mu.Lock()
	if l.err == nil {
		l.err = err
	}
	l.pending = l.pending[:0]
	l.room.Broadcast()
	l.mu.Unlock()
	l.log.WithError(err).Error("the match log failed: the match goes on without it")
	return true
}
