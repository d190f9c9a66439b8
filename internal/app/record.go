package app

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/replay"
)

// recording is a run's recording (Game.Records). Every run that is not a
// replay records, into memory always (so that a crash leaves a replay
// whether or not -record was given) and into the -record file when given.
type recording struct {
	rec  *replay.Recorder
	mem  bytes.Buffer
	file *os.File
	path string
}

// startRecording creates the -record file (if any) and makes a recorder of
// e's run, with the game's parameters in its header. It does not add the
// recorder to e's tick hooks: the caller does.
func (s *Process) startRecording(e *engine.Engine) (*recording, error) {
	opts := s.Opts
	params, err := s.params()
	if err != nil {
		return nil, err
	}
	r := &recording{path: opts.Record}
	var w io.Writer = &r.mem
	if opts.Record != "" {
		f, err := os.Create(opts.Record)
		if err != nil {
			return nil, fmt.Errorf("cannot record: %w", err)
		}
		r.file = f
		w = io.MultiWriter(&r.mem, f)
	}
	h := replay.Header{
		TickRate: opts.TickRate, Seed: opts.Seed, HashEvery: replay.DefaultHashEvery, Scene: s.scene(),
		Params: params, JobMode: e.Jobs.Mode(), Schema: e.World.Schema(),
	}
	rec, err := replay.NewRecorder(w, h)
	if err != nil {
		r.closeFile()
		return nil, fmt.Errorf("cannot record to %s: %w", opts.Record, err)
	}
	r.rec = rec
	return r, nil
}

func (r *recording) closeFile() error {
	if r.file == nil {
		return nil
	}
	err := r.file.Close()
	r.file = nil
	return err
}

// finish ends the recording after the run: normally, or with the crash
// the run ended in, in which case the recording so far is also written to
// a crash replay in crashDir, whose path it returns.
func (r *recording) finish(e *engine.Engine, runErr error, program, crashDir string) (crashFile string, err error) {
	var perr *engine.PanicError
	if errors.As(runErr, &perr) {
		err = r.rec.Crash(perr)
		name := fmt.Sprintf("%s-crash-%s.replay", program, time.Now().Format("20060102-150405.000"))
		crashFile = filepath.Join(crashDir, name)
		if werr := os.WriteFile(crashFile, r.mem.Bytes(), 0o644); werr != nil {
			crashFile = ""
			err = errors.Join(err, fmt.Errorf("cannot write the crash replay: %w", werr))
		}
	} else {
		err = r.rec.Close(e.World.Hash())
	}
	if cerr := r.closeFile(); err == nil && cerr != nil {
		err = fmt.Errorf("cannot write recording %s: %w", r.path, cerr)
	}
	if err != nil && r.path != "" && crashFile == "" {
		err = fmt.Errorf("recording %s: %w", r.path, err)
	}
	return crashFile, err
}

// runRecorded records e's run (run), then ends the recording: a panic
// leaves a crash replay and becomes the one line the program exits with.
func (s *Process) runRecorded(e *engine.Engine, run func() error) error {
	rec, err := s.startRecording(e)
	if err != nil {
		return err
	}
	remove, err := e.AddTickHook(rec.rec)
	if err != nil {
		rec.closeFile()
		return err
	}
	defer remove()
	s.rec = rec
	defer func() { s.rec = nil }()
	err = run()
	crashFile, ferr := rec.finish(e, err, s.program, s.Opts.CrashDir)
	var pe *engine.PanicError
	if errors.As(err, &pe) {
		err = crashError(pe, crashFile, s.Log)
	}
	if err == nil {
		err = ferr
	} else if ferr != nil {
		s.Log.WithError(ferr).Error("the recording is incomplete")
	}
	return err
}

// Restore restores a snapshot of e (engine.Engine.Restore): a game's
// "load" key calls it. In a recorded run the recorder, one of e's tick
// hooks, notes it, so that the replay restores it at the same point.
func (s *Process) Restore(e *engine.Engine, snapshot []byte) error {
	return e.Restore(snapshot)
}

// Replaying reports whether the run plays a -replay file: the game's keys
// that would change the simulation (its tick rate, a snapshot) are off.
func (s *Process) Replaying() bool { return s.rep != nil }

// crashError reports a panic recovered at the loop: it logs it once, with
// the tick, the phase, the system and the stack, and returns the one line
// the program exits with.
func crashError(perr *engine.PanicError, crashFile string, log logrus.FieldLogger) error {
	log.WithFields(logrus.Fields{
		"tick":   perr.Tick,
		"phase":  perr.Phase,
		"system": perr.System,
		"stack":  string(perr.Stack),
	}).Error("a system panicked")
	if crashFile == "" {
		return perr
	}
	if perr.Phase != engine.PhaseFixed {
		// -verify runs ticks only; the window runs the frame phases.
		return fmt.Errorf("%w; crash replay saved to %s (replay it with -replay %s)", perr, crashFile, crashFile)
	}
	return fmt.Errorf("%w; crash replay saved to %s (reproduce it with -replay %s -headless -verify)", perr, crashFile, crashFile)
}

// openReplay reads and checks the -replay file and makes the flags agree
// with its header: the tick rate, the seed and the game's recorded flags
// (Game.Params) come from the file; a flag given with another value, or a
// file of another scene, is an error naming the header field.
func (s *Process) openReplay() (*replay.Replay, error) {
	opts := s.Opts
	path := opts.Replay
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("cannot replay: %w", err)
	}
	if st.Size() > replay.MaxFile {
		return nil, fmt.Errorf("replay %s: %d bytes, more than the %d a replay may have", path, st.Size(), replay.MaxFile)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot replay: %w", err)
	}
	open := replay.Open
	if opts.Partial {
		open = replay.OpenIncomplete
	}
	r, err := open(data)
	var fe *replay.FormatError
	switch {
	case errors.As(err, &fe) && fe.Chunk >= 0 && errors.Is(err, replay.ErrTruncated) && !opts.Partial:
		return nil, fmt.Errorf("replay %s: %w (a run that was killed leaves such a file: -partial plays its whole chunks)", path, err)
	case err != nil:
		return nil, fmt.Errorf("replay %s: %w", path, err)
	}
	h := &r.Header
	if h.Scene != s.scene() {
		return nil, fmt.Errorf("replay %s: header field scene: recorded with scene %q, this program plays %q", path, h.Scene, s.scene())
	}
	conflict := func(field, flag string, file, given any) error {
		return fmt.Errorf("replay %s: header field %s: the recording has %v, but -%s %v was given (leave the flag out: a replay takes it from the file)", path, field, file, flag, given)
	}
	switch {
	case opts.Given("tick-rate") && opts.TickRate != h.TickRate:
		return nil, conflict("tick rate", "tick-rate", h.TickRate, opts.TickRate)
	case opts.Given("seed") && opts.Seed != h.Seed:
		return nil, conflict("seed", "seed", h.Seed, opts.Seed)
	}
	p, err := ParseParams(h.Params)
	if err != nil {
		return nil, fmt.Errorf("replay %s: header field params: %w", path, err)
	}
	err = applyParams(s.fs, p, s.game.Params, opts.Given, func(name, file, given string) error {
		return finalError{conflict(name, name, file, given)}
	})
	var final finalError
	switch {
	case errors.As(err, &final):
		return nil, final.error
	case err != nil:
		return nil, fmt.Errorf("replay %s: header field params: %w", path, err)
	}
	if s.game.Check != nil {
		// The recorded values must be ones this build takes.
		if err := s.game.Check(opts); err != nil {
			return nil, fmt.Errorf("replay %s: header field params: %v", path, err)
		}
	}
	opts.TickRate, opts.Seed = h.TickRate, h.Seed
	return r, nil
}

// finalError is an error in the words the program exits with.
type finalError struct{ error }

// logReplay logs what a replay file holds.
func logReplay(r *replay.Replay, path string, log logrus.FieldLogger) {
	st := r.Stats
	log.WithFields(logrus.Fields{
		"file": path, "ticks": r.Records(), "input_changes": st.InputChanges, "joins": st.Joins, "leaves": st.Leaves, "job_results": st.JobResults,
		"restores": st.Restores, "rate_changes": st.RateChanges, "hashes": st.Hashes, "crashed": r.End.Crash != nil,
	}).Info("replay opened")
	if m := r.End.Missing; m != nil {
		log.WithFields(logrus.Fields{"file": path, "last_tick": r.End.LastTick, "dropped_bytes": m.Bytes, "reason": m.Reason}).
			Warn("the recording's end is missing: playing its whole chunks")
	}
}

// verifyReplay replays the -replay file on e as fast as possible and
// prints "replay ok <ticks>", or returns the first divergence (or the
// reproduced panic).
func (s *Process) verifyReplay(e *engine.Engine) error {
	opts, log := s.Opts, s.Log
	start := time.Now()
	res, err := replay.Verify(e, s.rep)
	wall := time.Since(start)
	var rp *replay.ReproducedPanic
	var perr *engine.PanicError
	var serr *replay.SchemaError
	switch {
	case errors.As(err, &serr):
		return fmt.Errorf("replay %s: %w", opts.Replay, serr.Err)
	case errors.As(err, &rp):
		crashError(rp.Panic, "", log)
		return fmt.Errorf("replay %s reproduced the recorded panic: %w", opts.Replay, rp.Panic)
	case errors.As(err, &perr):
		crashError(perr, "", log)
		return fmt.Errorf("replay %s: %w", opts.Replay, err)
	case err != nil:
		return fmt.Errorf("replay %s: %w", opts.Replay, err)
	}
	sim := time.Duration(res.Ticks) * time.Second / time.Duration(max(opts.TickRate, 1))
	log.WithFields(logrus.Fields{
		"ticks":       res.Ticks,
		"hashes":      res.Hashes,
		"wall":        wall.Round(time.Millisecond),
		"x_real_time": fmt.Sprintf("%.0f", sim.Seconds()/wall.Seconds()),
	}).Info("replay verified")
	fmt.Fprintf(s.Stdout, "replay ok %d\n", res.Ticks)
	s.PrintHash(e)
	return nil
}

// playReplay plays the -replay file in the window run runs: the window
// closes when the replay ends or stops agreeing with its recording.
func (s *Process) playReplay(e *engine.Engine, run func(quit func(func())) error) error {
	player, err := replay.NewPlayer(e, s.rep)
	var serr *replay.SchemaError
	if errors.As(err, &serr) {
		return fmt.Errorf("replay %s: %w", s.Opts.Replay, serr.Err)
	}
	if err != nil {
		return err
	}
	err = run(func(quit func()) {
		e.AddUpdate("replay-end", func(*engine.FrameContext) {
			if player.Done() || player.Err() != nil {
				quit()
			}
		})
	})
	if err == nil {
		err = player.Err()
	}
	var pe *engine.PanicError
	if errors.As(err, &pe) {
		return crashError(pe, "", s.Log)
	}
	if err == nil {
		s.Log.WithFields(logrus.Fields{"ticks": player.Ticks(), "hashes": player.Hashes(), "done": player.Done()}).Info("replay played")
	}
	return err
}
