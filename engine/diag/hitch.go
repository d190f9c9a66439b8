package diag

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/trace"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"
)

// Defaults of HitchConfig.
const (
	DefaultHitchThreshold = 50 * time.Millisecond
	DefaultHitchMinGap    = 10 * time.Second
	DefaultHitchMaxFiles  = 20
	DefaultHitchWindow    = 5 * time.Second
	DefaultHitchMaxBytes  = 16 << 20
)

// hitchDirName is the directory under os.TempDir that DefaultHitchDir names.
const hitchDirName = "nebula-hitches"

// DefaultHitchDir is the directory hitch traces go to when HitchConfig.Dir
// is empty: nebula-hitches in os.TempDir(). It is a function, not a
// constant, because the temporary directory comes from the environment.
func DefaultHitchDir() string { return filepath.Join(os.TempDir(), hitchDirName) }

// HitchConfig configures a HitchRecorder. A zero field takes its default
// (see DefaultHitchConfig); a negative one is an error.
type HitchConfig struct {
	// Dir is where the trace files go. NewHitchRecorder creates it, with
	// its parents, when it does not exist, because the default lives in the
	// temporary directory and does not exist on a fresh machine. Default:
	// DefaultHitchDir().
	Dir string
	// Threshold is the frame time above which a frame is a hitch.
	// Default: 50ms.
	Threshold time.Duration
	// MinGap is the shortest time between two captures: at most one file
	// per MinGap, so a run of slow frames gives one trace, not one per
	// frame. Default: 10s.
	MinGap time.Duration
	// MaxFiles is the most files one recorder writes. Default: 20.
	MaxFiles int
	// Window is how much execution-trace history each file should hold,
	// counted back from the hitch. Default: 5s.
	Window time.Duration
	// MaxBytes caps the memory the trace history may take, and takes
	// precedence over Window: a busy program may keep less than Window.
	// Default: 16 MiB.
	MaxBytes uint64
}

// DefaultHitchConfig returns the defaults: traces of the last 5s (at most
// 16 MiB) in DefaultHitchDir() for frames over 50ms, at most one file per
// 10s and 20 files in all.
func DefaultHitchConfig() HitchConfig {
	return HitchConfig{
		Dir:       DefaultHitchDir(),
		Threshold: DefaultHitchThreshold,
		MinGap:    DefaultHitchMinGap,
		MaxFiles:  DefaultHitchMaxFiles,
		Window:    DefaultHitchWindow,
		MaxBytes:  DefaultHitchMaxBytes,
	}
}

// withDefaults returns c with its zero fields set to the defaults, or an
// error naming the first negative field.
func (c HitchConfig) withDefaults() (HitchConfig, error) {
	switch {
	case c.Threshold < 0:
		return c, fmt.Errorf("diag: hitch threshold %v: must be positive (0 = default %v)", c.Threshold, DefaultHitchThreshold)
	case c.MinGap < 0:
		return c, fmt.Errorf("diag: hitch minimum gap %v: must be positive (0 = default %v)", c.MinGap, DefaultHitchMinGap)
	case c.MaxFiles < 0:
		return c, fmt.Errorf("diag: hitch file limit %d: must be positive (0 = default %d)", c.MaxFiles, DefaultHitchMaxFiles)
	case c.Window < 0:
		return c, fmt.Errorf("diag: hitch window %v: must be positive (0 = default %v)", c.Window, DefaultHitchWindow)
	}
	d := DefaultHitchConfig()
	if c.Dir == "" {
		c.Dir = d.Dir
	}
	if c.Threshold == 0 {
		c.Threshold = d.Threshold
	}
	if c.MinGap == 0 {
		c.MinGap = d.MinGap
	}
	if c.MaxFiles == 0 {
		c.MaxFiles = d.MaxFiles
	}
	if c.Window == 0 {
		c.Window = d.Window
	}
	if c.MaxBytes == 0 {
		c.MaxBytes = d.MaxBytes
	}
	return c, nil
}

// A HitchRecorder keeps a moving window of the Go execution trace in memory
// (runtime/trace's FlightRecorder) and saves it to a file when a frame takes
// longer than the threshold, so a stutter seen once can be studied
// afterwards with `go tool trace`.
//
// Each file is named hitch-<sequence>-<frame ms>ms.trace, for example
// hitch-0001-73ms.trace. Sequence numbers continue after the highest already
// in the directory, so files from earlier runs are never overwritten.
//
// The flight recorder runs alongside the other Go diagnostics: an
// execution trace to a file (runtime/trace.Start) and a CPU profile can be
// active at the same time. With a CPU profile running, the hitch traces
// also hold its samples. Only one flight recorder may be active in a
// process, so only one HitchRecorder can be open at a time.
//
// Observe and Close are meant for the goroutine that runs the loop and must
// not be called concurrently; Files may be called from any goroutine.
type HitchRecorder struct {
	cfg HitchConfig
	log logrus.FieldLogger
	fr  *trace.FlightRecorder

	// Owned by the goroutine that calls Observe and Close.
	last     time.Duration // now of the last capture
	captured bool          // whether there was a capture (last is valid)
	started  int           // captures started
	hitches  int           // frames over the threshold
	limitLog bool          // whether the file limit has been logged
	closed   bool

	busy atomic.Bool    // a capture is being written
	wg   sync.WaitGroup // the writing goroutine

	mu    sync.Mutex // guards the fields below, shared with the writer
	seq   int        // sequence number of the next file
	files []string   // files written
	err   error      // first failure to write a file
}

// NewHitchRecorder checks cfg, makes sure cfg.Dir is a directory it can
// write (creating it if it does not exist) and starts the flight recorder.
// A nil log discards messages. The error, if any, is one line that names
// the directory or the setting at fault.
func NewHitchRecorder(cfg HitchConfig, log logrus.FieldLogger) (*HitchRecorder, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if log == nil {
		l := logrus.New()
		l.SetOutput(io.Discard)
		log = l
	}
	seq, err := prepareHitchDir(cfg.Dir)
	if err != nil {
		return nil, err
	}
	h := &HitchRecorder{
		cfg: cfg,
		log: log,
		fr:  trace.NewFlightRecorder(trace.FlightRecorderConfig{MinAge: cfg.Window, MaxBytes: cfg.MaxBytes}),
		seq: seq,
	}
	if err := h.fr.Start(); err != nil {
		return nil, fmt.Errorf("diag: cannot start the flight recorder for hitch capture: %w", err)
	}
	log.WithFields(logrus.Fields{
		"dir":          cfg.Dir,
		"threshold_ms": float64(cfg.Threshold) / float64(time.Millisecond),
	}).Debug("hitch capture on")
	return h, nil
}

// prepareHitchDir makes sure dir is a writable directory, creating it if it
// does not exist, and returns the sequence number of the first new file.
func prepareHitchDir(dir string) (int, error) {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return 0, fmt.Errorf("diag: hitch directory %s: cannot create: %w", dir, pathCause(err))
		}
	case err != nil:
		return 0, fmt.Errorf("diag: hitch directory %s: %w", dir, pathCause(err))
	case !fi.IsDir():
		return 0, fmt.Errorf("diag: hitch directory %s: not a directory", dir)
	}
	probe, err := os.CreateTemp(dir, ".nebula-probe-*")
	if err != nil {
		return 0, fmt.Errorf("diag: hitch directory %s: cannot write: %w", dir, pathCause(err))
	}
	probe.Close()
	os.Remove(probe.Name())

	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, fmt.Errorf("diag: hitch directory %s: cannot list: %w", dir, pathCause(err))
	}
	next := 1
	for _, e := range entries {
		if n, ok := hitchSeq(e.Name()); ok && n >= next {
			next = n + 1
		}
	}
	return next, nil
}

// hitchSeq returns the sequence number in a hitch file's name.
func hitchSeq(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, "hitch-")
	if !ok || !strings.HasSuffix(name, ".trace") {
		return 0, false
	}
	digits, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(digits)
	return n, err == nil && n >= 0
}

// pathCause strips the operation and path from a *fs.PathError, which the
// caller's message already names.
func pathCause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Observe is called once per frame with the frame's duration; now is the
// time the frame ended on any monotonic clock (such as the loop's). When
// frame is over the threshold, no file was started within MinGap before
// now, fewer than MaxFiles were started and none is being written, it
// starts saving the trace window to a new file on another goroutine and
// returns at once; the file is logged (fields path and frame_ms) when it
// is written. Observe does not allocate when frame is not a hitch.
func (h *HitchRecorder) Observe(now, frame time.Duration) {
	if frame <= h.cfg.Threshold || h.closed {
		return
	}
	h.hitches++
	if h.started >= h.cfg.MaxFiles {
		if !h.limitLog {
			h.limitLog = true
			h.log.WithField("max_files", h.cfg.MaxFiles).Warn("hitch file limit reached; later hitches are counted, not saved")
		}
		return
	}
	if (h.captured && now-h.last < h.cfg.MinGap) || h.busy.Load() {
		return
	}
	h.captured, h.last = true, now
	h.started++
	h.busy.Store(true)
	h.wg.Add(1)
	go h.capture(frame)
}

// capture writes the trace window to a new file and records the outcome.
func (h *HitchRecorder) capture(frame time.Duration) {
	defer h.wg.Done()
	defer h.busy.Store(false)

	path, err := h.save(frame)
	frameMS := float64(frame) / float64(time.Millisecond)
	h.mu.Lock()
	if err == nil {
		h.files = append(h.files, path)
	} else if h.err == nil {
		h.err = err
	}
	h.mu.Unlock()
	if err != nil {
		h.log.WithError(err).WithField("frame_ms", frameMS).Warn("cannot save hitch trace")
		return
	}
	h.log.WithFields(logrus.Fields{"path": path, "frame_ms": frameMS}).Info("hitch trace saved")
}

// save writes the trace window to a new file in the directory and returns
// its path. A partly written file is removed.
func (h *HitchRecorder) save(frame time.Duration) (string, error) {
	ms := frame.Round(time.Millisecond).Milliseconds()
	var (
		f    *os.File
		path string
		err  error
	)
	h.mu.Lock()
	for range 1000 { // skip names another process took since we looked
		path = filepath.Join(h.cfg.Dir, fmt.Sprintf("hitch-%04d-%dms.trace", h.seq, ms))
		h.seq++
		f, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	h.mu.Unlock()
	if err != nil {
		return "", fmt.Errorf("diag: hitch trace %s: cannot create: %w", path, pathCause(err))
	}
	w := bufio.NewWriterSize(f, 256<<10)
	_, err = h.fr.WriteTo(w)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return "", fmt.Errorf("diag: hitch trace %s: cannot write: %w", path, pathCause(err))
	}
	return path, nil
}

// Files returns the paths of the files written so far, oldest first. A
// capture that Observe started may still be being written; after Close the
// list is complete.
func (h *HitchRecorder) Files() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.files...)
}

// Close waits for a capture being written, stops the flight recorder and
// logs how many hitches there were and how many were saved. It returns
// the first failure to write a file (each was also logged when it
// happened), so a caller can report that the capture it asked for is
// incomplete. Calling Close again does nothing and returns nil.
func (h *HitchRecorder) Close() error {
	if h.closed {
		return nil
	}
	h.closed = true
	h.wg.Wait()
	h.fr.Stop()

	h.mu.Lock()
	saved, err := len(h.files), h.err
	h.mu.Unlock()
	if h.hitches > 0 {
		h.log.WithFields(logrus.Fields{
			"hitches": h.hitches,
			"saved":   saved,
			"dir":     h.cfg.Dir,
		}).Info("hitch capture done")
	}
	return err
}
