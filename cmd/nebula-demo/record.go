package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nebulaengine/nebula/cmd/nebula-demo/scene"
	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/replay"
	"github.com/nebulaengine/nebula/internal/cli"
)

// recording is the demo's recording of its run. Every run that is not a
// replay records, into memory always (so that a crash leaves a replay
// whether or not -record was given) and into the -record file when given.
type recording struct {
	rec  *replay.Recorder
	mem  bytes.Buffer
	file *os.File
	path string
}

// startRecording creates the -record file (if any) and installs the
// recorder on e.
func startRecording(e *engine.Engine, opts *cli.Options, f *flags) (*recording, error) {
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
		TickRate: opts.TickRate, Seed: opts.Seed, Entities: f.entities,
		HashEvery: replay.DefaultHashEvery, Scene: scene.ID,
		PanicAtTick: f.panicAtTick, JobMode: e.Jobs.Mode(), Schema: e.World.Schema(),
	}
	rec, err := replay.NewRecorder(w, h)
	if err != nil {
		r.closeFile()
		return nil, fmt.Errorf("cannot record to %s: %w", opts.Record, err)
	}
	r.rec = rec
	e.SetTickHook(rec)
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
func (r *recording) finish(e *engine.Engine, runErr error, crashDir string) (crashFile string, err error) {
	var perr *engine.PanicError
	if errors.As(runErr, &perr) {
		err = r.rec.Crash(perr)
		name := fmt.Sprintf("nebula-crash-%s.replay", time.Now().Format("20060102-150405.000"))
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

// crashError reports a panic recovered at the loop: it logs it once, with
// the tick, the phase, the system and the stack, and returns the one line
// the demo exits with.
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

// openReplay reads and checks a replay file and makes opts and the demo's
// flags f agree with its header: the tick rate, seed, entity count and
// injected panic come from the file; a flag given with another value, or a
// file of another scene, is an error naming the header field.
func openReplay(opts *cli.Options, f *flags) (*replay.Replay, error) {
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
	if h.Scene != scene.ID {
		return nil, fmt.Errorf("replay %s: header field scene: recorded with scene %q, this program plays %q", path, h.Scene, scene.ID)
	}
	conflict := func(field, flag string, file, given any) error {
		return fmt.Errorf("replay %s: header field %s: the recording has %v, but -%s %v was given (leave the flag out: a replay takes it from the file)", path, field, file, flag, given)
	}
	switch {
	case opts.Given("tick-rate") && opts.TickRate != h.TickRate:
		return nil, conflict("tick rate", "tick-rate", h.TickRate, opts.TickRate)
	case opts.Given("seed") && opts.Seed != h.Seed:
		return nil, conflict("seed", "seed", h.Seed, opts.Seed)
	case opts.Given("entities") && f.entities != h.Entities:
		return nil, conflict("entities", "entities", h.Entities, f.entities)
	case h.Entities > maxEntities:
		return nil, fmt.Errorf("replay %s: header field entities: %d, more than the %d this program runs", path, h.Entities, maxEntities)
	}
	opts.TickRate, opts.Seed = h.TickRate, h.Seed
	f.entities, f.panicAtTick = h.Entities, h.PanicAtTick
	return r, nil
}

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

// verifyReplay replays r headless as fast as possible and prints "replay
// ok <ticks>", or returns the first divergence (or the reproduced panic).
func verifyReplay(e *engine.Engine, r *replay.Replay, opts *cli.Options, stdout io.Writer, log logrus.FieldLogger) error {
	start := time.Now()
	res, err := replay.Verify(e, r)
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
	fmt.Fprintf(stdout, "replay ok %d\n", res.Ticks)
	return nil
}
