package soundtest

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// RequireAudioEnv names the environment variable that, set to 1 (make
// test sets it), makes a missing audio server or tool a test failure
// rather than a skip.
const RequireAudioEnv = "NEBULA_REQUIRE_AUDIO"

// Sink is the name of the null sink StartPulse makes the default, and
// Monitor the source that records what it plays.
const (
	Sink    = "nebula"
	Monitor = Sink + ".monitor"
)

// Rate is the sample rate of the null sink and of a Recorder, Hz.
const Rate = 48000

// NoAudio ends tb saying why in one line: a skip, or a failure when
// RequireAudioEnv is 1.
func NoAudio(tb testing.TB, format string, args ...any) {
	tb.Helper()
	if os.Getenv(RequireAudioEnv) == "1" {
		tb.Fatalf(format+" (%s=1: required)", append(args, RequireAudioEnv)...)
	}
	tb.Skipf(format, args...)
}

// Pulse is a PulseAudio server running for tests, in a temporary runtime
// folder of its own, with one null sink, Sink, the default. Start one
// with StartPulse or PulseForTest.
type Pulse struct {
	dir     string
	cmd     *exec.Cmd
	log     *syncBuffer
	exited  chan struct{} // closed when the server has ended
	restore func()
}

// StartPulse starts a PulseAudio server in a new temporary folder and
// points this process at it (HOME and XDG_RUNTIME_DIR, by which ALSA's
// pulse plugin and the pulse tools find it) until Close. It returns an
// error saying why when no server starts: a tool missing, the server
// failing or not answering within 20 s. For a server that outlives one
// test (a test binary's one audio device, opened in a TestMain or once).
func StartPulse() (*Pulse, error) {
	dir, err := os.MkdirTemp("", "nebula-pulse-")
	if err != nil {
		return nil, fmt.Errorf("soundtest: %w", err)
	}
	var saved []func()
	setenv := func(k, v string) {
		old, had := os.LookupEnv(k)
		saved = append(saved, func() {
			if had {
				_ = os.Setenv(k, old)
			} else {
				_ = os.Unsetenv(k)
			}
		})
		_ = os.Setenv(k, v)
	}
	restore := func() {
		for i := len(saved) - 1; i >= 0; i-- {
			saved[i]()
		}
		_ = os.RemoveAll(dir)
	}
	p, err := start(dir, setenv)
	if err != nil {
		restore()
		return nil, err
	}
	p.restore = restore
	return p, nil
}

// PulseForTest starts a PulseAudio server for t (StartPulse, its
// environment set with t.Setenv), stopped at t's end; where none starts,
// it ends t in one line saying why (NoAudio).
func PulseForTest(t *testing.T) *Pulse {
	t.Helper()
	p, err := start(t.TempDir(), t.Setenv)
	if err != nil {
		NoAudio(t, "no audio server: %v", err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// start starts the server with its runtime folder in dir, setting the
// environment with setenv.
func start(dir string, setenv func(k, v string)) (*Pulse, error) {
	for _, tool := range []string{"pulseaudio", "pactl", "parecord"} {
		if _, err := exec.LookPath(tool); err != nil {
			return nil, fmt.Errorf("soundtest: %s is missing (Debian's pulseaudio and pulseaudio-utils, which make test installs)", tool)
		}
	}
	run := filepath.Join(dir, "run")
	if err := os.Mkdir(run, 0o700); err != nil {
		return nil, fmt.Errorf("soundtest: %w", err)
	}
	conf := filepath.Join(dir, "default.pa")
	script := fmt.Sprintf("load-module module-native-protocol-unix\nload-module module-null-sink sink_name=%s rate=%d channels=2\nset-default-sink %s\n", Sink, Rate, Sink)
	if err := os.WriteFile(conf, []byte(script), 0o644); err != nil {
		return nil, fmt.Errorf("soundtest: %w", err)
	}
	setenv("HOME", dir)
	setenv("XDG_RUNTIME_DIR", run)
	p := &Pulse{dir: dir, log: &syncBuffer{}}
	p.cmd = exec.Command("pulseaudio", "-n", "-F", conf, "--exit-idle-time=-1", "--daemonize=no", "--use-pid-file=no", "--log-target=stderr")
	p.cmd.Stderr = p.log
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("soundtest: pulseaudio did not start: %w", err)
	}
	exited := make(chan struct{})
	go func() {
		_ = p.cmd.Wait()
		close(exited)
	}()
	// Wait for it to answer (an event, bounded only against a hang).
	deadline := time.Now().Add(20 * time.Second)
	for exec.Command("pactl", "info").Run() != nil {
		select {
		case <-exited:
			return nil, fmt.Errorf("soundtest: pulseaudio ended: %s", lastLine(p.log.String()))
		default:
		}
		if time.Now().After(deadline) {
			p.stop(exited)
			return nil, fmt.Errorf("soundtest: pulseaudio did not answer in 20 s: %s", lastLine(p.log.String()))
		}
		time.Sleep(50 * time.Millisecond)
	}
	p.exited = exited
	return p, nil
}

// stop ends the server and waits for it.
func (p *Pulse) stop(exited chan struct{}) {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-exited
	}
}

// Close stops the server (and, for StartPulse's, restores the
// environment and removes its folder).
func (p *Pulse) Close() error {
	if p.exited != nil {
		p.stop(p.exited)
		p.exited = nil
	}
	if p.restore != nil {
		p.restore()
		p.restore = nil
	}
	return nil
}

// Log returns what the server wrote.
func (p *Pulse) Log() string { return p.log.String() }

// lastLine returns s's last non-empty line.
func lastLine(s string) string {
	s = strings.TrimSpace(s)
	return s[strings.LastIndexByte(s, '\n')+1:]
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// Recorder records a PulseAudio source as it plays, with parecord
// (16-bit stereo at Rate, asking for 20 ms of latency), stamping each read
// with the time it came: At dates a frame by the read that held it, so a test
// measures when a sound reached the source. Start one with Record.
type Recorder struct {
	cmd    *exec.Cmd
	stderr *syncBuffer
	done   chan struct{}

	mu          sync.Mutex
	left, right []float32
	reads       []read
	err         error
}

// read is one read of the recording: the frames recorded by its end, and
// when it came.
type read struct {
	end int
	at  time.Time
}

// Record starts recording source (Monitor: what the null sink plays).
func Record(source string) (*Recorder, error) {
	r := &Recorder{stderr: &syncBuffer{}, done: make(chan struct{})}
	// Raw output (parec) drops a fragment whenever the next comes before
	// the last was written out, which a busy machine makes common; a
	// sound file is written as each fragment comes. An AU file can be
	// written to a pipe.
	r.cmd = exec.Command("parecord", "--latency-msec=20", "--device="+source, fmt.Sprintf("--rate=%d", Rate), "--channels=2", "--format=s16le", "--file-format=au", "/dev/stdout")
	r.cmd.Stderr = r.stderr
	out, err := r.cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("soundtest: %w", err)
	}
	if err := r.cmd.Start(); err != nil {
		return nil, fmt.Errorf("soundtest: parecord did not start: %w", err)
	}
	go r.read(out)
	return r, nil
}

// read takes parecord's output until it ends: an AU header (little-endian,
// "dns.": 16-bit samples, then the frames).
func (r *Recorder) read(out io.Reader) {
	defer close(r.done)
	var hdr [24]byte
	if _, err := io.ReadFull(out, hdr[:]); err != nil {
		r.fail(fmt.Errorf("no AU header: %w", err))
		return
	}
	le := binary.LittleEndian
	if string(hdr[:4]) != "dns." || le.Uint32(hdr[12:]) != 3 || le.Uint32(hdr[16:]) != Rate || le.Uint32(hdr[20:]) != 2 || le.Uint32(hdr[4:]) < 24 {
		r.fail(fmt.Errorf("an AU header % x, want 16-bit stereo at %d Hz, little-endian", hdr, Rate))
		return
	}
	if _, err := io.CopyN(io.Discard, out, int64(le.Uint32(hdr[4:]))-24); err != nil {
		r.fail(fmt.Errorf("the AU header: %w", err))
		return
	}
	b := make([]byte, 4*Rate/100) // 10 ms
	var part []byte               // a frame split between two reads
	for {
		n, err := out.Read(b)
		at := time.Now()
		if n > 0 {
			data := append(part, b[:n]...)
			whole := len(data) / 4 * 4
			r.mu.Lock()
			for i := 0; i < whole; i += 4 {
				r.left = append(r.left, float32(int16(uint16(data[i])|uint16(data[i+1])<<8))/32768)
				r.right = append(r.right, float32(int16(uint16(data[i+2])|uint16(data[i+3])<<8))/32768)
			}
			r.reads = append(r.reads, read{end: len(r.left), at: at})
			r.mu.Unlock()
			part = append(part[:0:0], data[whole:]...)
		}
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrClosed) {
				r.fail(err)
			}
			return
		}
	}
}

// fail records the recording's error.
func (r *Recorder) fail(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.err = err
}

// Frames returns the number of frames recorded so far.
func (r *Recorder) Frames() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.left)
}

// WaitFrames waits until n frames are recorded: an event, bounded by
// timeout only against a hang. It returns an error when the recording
// ends or times out first.
func (r *Recorder) WaitFrames(n int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for r.Frames() < n {
		select {
		case <-r.done:
			return fmt.Errorf("soundtest: parecord ended after %d frames, want %d: %v %s", r.Frames(), n, r.Stop(), lastLine(r.stderr.String()))
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("soundtest: %d frames recorded in %v, want %d", r.Frames(), timeout, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return nil
}

// Channels returns copies of the left and right channels recorded so
// far from frame from on (nothing where from is past them), from -1 to 1.
func (r *Recorder) Channels(from int) (left, right []float32) {
	r.mu.Lock()
	defer r.mu.Unlock()
	from = min(max(from, 0), len(r.left))
	return append([]float32(nil), r.left[from:]...), append([]float32(nil), r.right[from:]...)
}

// At returns when frame i (from 0) reached the source, as the recording
// dates it: the time its read came, less the duration of the frames that
// followed it in that read. It includes the recording's own latency
// (20 ms asked). A frame not yet recorded gives the zero time.
func (r *Recorder) At(i int) time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rd := range r.reads {
		if i < rd.end {
			return rd.at.Add(-time.Duration(rd.end-i) * time.Second / Rate)
		}
	}
	return time.Time{}
}

// Stop ends the recording; what was recorded stays readable. It returns
// an error the recording met.
func (r *Recorder) Stop() error {
	_ = r.cmd.Process.Kill()
	<-r.done
	_ = r.cmd.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return fmt.Errorf("soundtest: parecord: %w", r.err)
	}
	return nil
}
