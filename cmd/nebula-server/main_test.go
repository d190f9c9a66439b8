package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nebulaengine/nebula/internal/gameserver"
	"github.com/nebulaengine/nebula/internal/testbin"
)

var (
	bin  = testbin.New(program, ".")
	demo = testbin.New("nebula-demo", "../nebula-demo")
)

func TestMain(m *testing.M) {
	code := m.Run()
	bin.Remove()
	demo.Remove()
	os.Exit(code)
}

// hang bounds every wait for an event of a child process: it only catches
// a hang, it is no measure of speed.
const hang = 2 * time.Minute

// server is nebula-server running as a child of a test, its log read line
// by line (JSON).
type server struct {
	t      *testing.T
	cmd    *exec.Cmd
	mu     sync.Mutex
	stdout bytes.Buffer
	lines  []map[string]any // the log's lines so far
	more   chan struct{}    // a line came, or the log ended
	ended  bool             // the log ended
	done   chan struct{}    // closed when the process has exited
	err    error
}

// startServer starts nebula-server with args (and env, added to the
// test's), on loopback ports picked by the kernel, its log in JSON; it is
// killed if still running when the test ends.
func startServer(t *testing.T, env []string, args ...string) *server {
	t.Helper()
	args = append([]string{"-addr", "127.0.0.1", "-port", "0", "-udp-port", "0", "-log-format", "json"}, args...)
	s := &server{t: t, more: make(chan struct{}, 1), done: make(chan struct{})}
	s.cmd = exec.Command(bin.Path(t), args...)
	s.cmd.Env = append(os.Environ(), env...)
	s.cmd.Stdout = &lockedBuffer{mu: &s.mu, b: &s.stdout}
	stderr, err := s.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go s.read(stderr)
	t.Cleanup(func() {
		select {
		case <-s.done:
		default:
			s.cmd.Process.Kill()
			<-s.done
		}
	})
	return s
}

func (s *server) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var line map[string]any
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			line = map[string]any{"msg": "(not JSON)", "text": sc.Text()}
		}
		s.mu.Lock()
		s.lines = append(s.lines, line)
		s.mu.Unlock()
		s.notify()
	}
	s.err = s.cmd.Wait()
	s.mu.Lock()
	s.ended = true
	s.mu.Unlock()
	s.notify()
	close(s.done)
}

func (s *server) notify() {
	select {
	case s.more <- struct{}{}:
	default:
	}
}

// waitLog waits for the log line whose msg is msg and returns it.
func (s *server) waitLog(msg string) map[string]any {
	s.t.Helper()
	timeout := time.After(hang)
	for {
		s.mu.Lock()
		for _, l := range s.lines {
			if l["msg"] == msg {
				s.mu.Unlock()
				return l
			}
		}
		ended := s.ended
		s.mu.Unlock()
		if ended {
			s.t.Fatalf("the server exited without logging %q; its log:\n%s", msg, s.log())
		}
		select {
		case <-s.more:
		case <-timeout:
			s.t.Fatalf("no %q in the server's log after %v; its log:\n%s", msg, hang, s.log())
		}
	}
}

// log returns the log so far, a line per line.
func (s *server) log() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	for _, l := range s.lines {
		j, _ := json.Marshal(l)
		b.Write(j)
		b.WriteByte('\n')
	}
	return b.String()
}

// wait waits for the process's exit and returns its exit status.
func (s *server) wait() int {
	s.t.Helper()
	select {
	case <-s.done:
	case <-time.After(hang):
		s.t.Fatalf("the server has not exited after %v; its log:\n%s", hang, s.log())
	}
	return exitCode(s.t, s.err)
}

func (s *server) output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stdout.String()
}

type lockedBuffer struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (w *lockedBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func exitCode(t *testing.T, err error) int {
	t.Helper()
	if err == nil {
		return 0
	}
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() >= 0 {
		return ee.ExitCode()
	}
	t.Fatalf("the process did not exit normally: %v", err)
	return -1
}

// bot is a nebula-server bot process.
type bot struct {
	cmd            *exec.Cmd
	done           chan struct{}
	stdout, stderr bytes.Buffer
	err            error
}

func startBot(t *testing.T, args ...string) *bot {
	t.Helper()
	b := &bot{done: make(chan struct{})}
	cmd := exec.Command(bin.Path(t), append([]string{"bot"}, args...)...)
	b.cmd = cmd
	cmd.Stdout, cmd.Stderr = &b.stdout, &b.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { b.err = cmd.Wait(); close(b.done) }()
	t.Cleanup(func() {
		select {
		case <-b.done:
		default:
			cmd.Process.Kill()
			<-b.done
		}
	})
	return b
}

// kill kills the bot's process and waits for it.
func (b *bot) kill() {
	b.cmd.Process.Kill()
	<-b.done
}

// lines waits for the bot's exit, checks it succeeded, and returns its
// lines.
func (b *bot) lines(t *testing.T) []string {
	t.Helper()
	select {
	case <-b.done:
	case <-time.After(hang):
		t.Fatalf("a bot has not exited after %v", hang)
	}
	if code := exitCode(t, b.err); code != 0 {
		t.Fatalf("a bot exited with %d; stderr:\n%s", code, b.stderr.String())
	}
	return strings.Split(strings.TrimSpace(b.stdout.String()), "\n")
}

var (
	botLine  = regexp.MustCompile(`^bot \d+: (player \d+|spectator) ticks (\d+) end "([^"]+)" hash ([0-9a-f]{16})$`)
	hashLine = regexp.MustCompile(`(?m)^state-hash (\d+) ([0-9a-f]{16})$`)
)

// checkBots checks that every bot line says the match ended at tick at,
// for reason, with the server's hash, and returns how many there were.
func checkBots(t *testing.T, lines []string, at, hash, reason string) int {
	t.Helper()
	for _, l := range lines {
		m := botLine.FindStringSubmatch(l)
		if m == nil {
			t.Errorf("bot line %q, want %v", l, botLine)
			continue
		}
		if m[2] != at || m[3] != reason || m[4] != hash {
			t.Errorf("bot line %q, want ticks %s end %q hash %s (the server's)", l, at, reason, hash)
		}
	}
	return len(lines)
}

// scrape returns the metrics at the operator port ops, by name (with its
// labels, as written).
func scrape(t *testing.T, ops string) map[string]float64 {
	t.Helper()
	resp, err := http.Get("http://" + ops + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("/metrics: %s", resp.Status)
	}
	m := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("/metrics line %q: %v", line, err)
		}
		m[line[:i]] = v
	}
	return m
}

func health(t *testing.T, ops string) (int, string) {
	t.Helper()
	resp, err := http.Get("http://" + ops + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, strings.TrimSpace(string(body))
}

// waitMetric scrapes ops until ok says the metrics are what the test
// waits for.
func waitMetric(t *testing.T, ops, what string, ok func(map[string]float64) bool) map[string]float64 {
	t.Helper()
	deadline := time.Now().Add(hang)
	for {
		m := scrape(t, ops)
		if ok(m) {
			return m
		}
		if time.Now().After(deadline) {
			t.Fatalf("the metrics never showed %s: %v", what, m)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A match of four bots, three over TCP and one over UDP, plays to its
// last tick: every bot ends there with the server's hash, the server
// exits 0, and its metrics moved as the match did: players 4 while it
// runs, ticks_total equal to the last tick, bytes both ways. /healthz is
// 200 while it runs and 503 once it ended.
func TestMatchToTheEnd(t *testing.T) {
	const ticks = 300 // 5 s: time to see the 4 players in the metrics while the match runs
	s := startServer(t, nil, "-players", "4", "-ticks", fmt.Sprint(ticks), "-entities", "50", "-match", "test-match",
		"-ops", "127.0.0.1:0", "-ops-linger", "10m")
	l := s.waitLog("listening")
	tcp, udp, ops := l["tcp"].(string), l["udp"].(string), l["ops"].(string)
	if l["match"] != "test-match" || l["players"] != 4.0 || l["entities"] != "50" {
		t.Errorf("listening line %v", l)
	}
	if code, body := health(t, ops); code != 200 || !strings.HasPrefix(body, "ok") {
		t.Errorf("/healthz before the match: %d %q, want 200 ok", code, body)
	}
	tcpBots := startBot(t, "-connect", tcp, "-n", "3", "-entities", "50")
	udpBot := startBot(t, "-connect", udp, "-udp", "-entities", "50")

	running := waitMetric(t, ops, "4 players and a tick", func(m map[string]float64) bool {
		return m["nebula_server_players"] == 4 && m["nebula_server_ticks_total"] > 0
	})
	if running[`nebula_server_info{match="test-match",scene="nebula-demo/cubes"}`] != 1 {
		t.Errorf("no nebula_server_info for the match: %v", running)
	}
	if code, body := health(t, ops); code != 200 {
		// The match may have ended in between on a slow machine.
		if code != 503 || !strings.HasPrefix(body, "ending") {
			t.Errorf("/healthz while the match runs: %d %q", code, body)
		}
	}

	end := s.waitLog("match ended")
	m := scrape(t, ops)
	// No client is connected once the match is over.
	if m["nebula_server_players"] != 0 || m["nebula_server_spectators"] != 0 {
		t.Errorf("after the match: players %v, spectators %v; want 0 and 0", m["nebula_server_players"], m["nebula_server_spectators"])
	}
	if code, body := health(t, ops); code != 503 || !strings.HasPrefix(body, "ending") {
		t.Errorf("/healthz after the match: %d %q, want 503 ending", code, body)
	}
	if m["nebula_server_ticks_total"] != ticks || m["nebula_server_tick"] != ticks || m["nebula_server_tick_seconds_count"] != ticks {
		t.Errorf("ticks_total %v, tick %v, tick_seconds_count %v; want %d each", m["nebula_server_ticks_total"], m["nebula_server_tick"], m["nebula_server_tick_seconds_count"], ticks)
	}
	if m["nebula_server_bytes_read_total"] <= 0 || m["nebula_server_bytes_written_total"] <= 0 {
		t.Errorf("bytes read %v, written %v; want both above 0", m["nebula_server_bytes_read_total"], m["nebula_server_bytes_written_total"])
	}
	if m["nebula_server_desyncs_total"] != 0 || m["nebula_server_resyncs_total"] != 0 {
		t.Errorf("desyncs %v, resyncs %v; want 0", m["nebula_server_desyncs_total"], m["nebula_server_resyncs_total"])
	}
	if m["process_resident_memory_bytes"] <= 0 {
		t.Errorf("process_resident_memory_bytes %v", m["process_resident_memory_bytes"])
	}

	// The operator port lingers for a last scrape; a signal ends that.
	s.cmd.Process.Signal(syscall.SIGTERM)
	if code := s.wait(); code != gameserver.ExitOK {
		t.Fatalf("the server exited with %d; its log:\n%s", code, s.log())
	}
	h := hashLine.FindStringSubmatch(s.output())
	if h == nil || h[1] != fmt.Sprint(ticks) || end["hash"] != h[2] {
		t.Fatalf("server output %q (log hash %v), want state-hash %d <hash>", s.output(), end["hash"], ticks)
	}
	n := checkBots(t, tcpBots.lines(t), h[1], h[2], "last tick")
	n += checkBots(t, udpBot.lines(t), h[1], h[2], "last tick")
	if n != 4 {
		t.Errorf("%d bot lines, want 4", n)
	}
}

// SIGTERM in the middle of a match ends it cleanly: every client is told
// the server is shutting down and ends on the server's last tick and
// hash, the server logs why and exits 0.
func TestSIGTERMEndsTheMatch(t *testing.T) {
	s := startServer(t, nil, "-players", "2", "-entities", "50", "-ops", "127.0.0.1:0")
	l := s.waitLog("listening")
	ops := l["ops"].(string)
	bots := startBot(t, "-connect", l["tcp"].(string), "-n", "2", "-entities", "50")
	waitMetric(t, ops, "tick 30", func(m map[string]float64) bool { return m["nebula_server_tick"] >= 30 })
	s.cmd.Process.Signal(syscall.SIGTERM)
	if code := s.wait(); code != gameserver.ExitOK {
		t.Fatalf("the server exited with %d after SIGTERM; its log:\n%s", code, s.log())
	}
	sig := s.waitLog("signal: ending the match; the clients are told the server is shutting down")
	if sig["signal"] != "terminated" {
		t.Errorf("signal line %v", sig)
	}
	s.waitLog("match ended")
	h := hashLine.FindStringSubmatch(s.output())
	if h == nil {
		t.Fatalf("server output %q, want a state-hash line", s.output())
	}
	if n := checkBots(t, bots.lines(t), h[1], h[2], "shutdown"); n != 2 {
		t.Errorf("%d bot lines, want 2", n)
	}
}

// The demo's own client joins the server's match, over TCP and over UDP,
// takes the game's parameters from it (-entities is given to the server
// only; -physics, which changes the world's schema, to both, as with
// nebula-demo -serve) and ends with the server's hash.
func TestDemoClientsJoin(t *testing.T) {
	if testing.Short() {
		t.Skip("builds nebula-demo")
	}
	demoPath := demo.Path(t)
	s := startServer(t, nil, "-players", "2", "-ticks", "120", "-entities", "40", "-physics")
	l := s.waitLog("listening")
	type result struct {
		out []byte
		err error
	}
	results := make(chan result, 2)
	for _, args := range [][]string{{"-connect", l["tcp"].(string)}, {"-connect", l["udp"].(string), "-transport", "udp"}} {
		go func() {
			out, err := exec.Command(demoPath, append(args, "-physics", "-headless", "-print-hash", "-log-level", "error")...).CombinedOutput()
			results <- result{out, err}
		}()
	}
	var outs []string
	for range 2 {
		r := <-results
		if r.err != nil {
			t.Fatalf("nebula-demo -connect: %v\n%s", r.err, r.out)
		}
		outs = append(outs, strings.TrimSpace(string(r.out)))
	}
	if code := s.wait(); code != gameserver.ExitOK {
		t.Fatalf("the server exited with %d; its log:\n%s", code, s.log())
	}
	h := hashLine.FindString(s.output())
	for _, out := range outs {
		if out != h || !strings.HasPrefix(h, "state-hash 120 ") {
			t.Errorf("nebula-demo -connect printed %q, the server %q", out, h)
		}
	}
}

// A bad flag or environment variable is refused before anything starts,
// with the documented status and one line naming it; a port in use is
// status 3.
func TestBadUsage(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	busyPort := fmt.Sprint(busy.Addr().(*net.TCPAddr).Port)
	dir := t.TempDir()
	existing := filepath.Join(dir, "match.log")
	if err := os.WriteFile(existing, []byte("a log"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing")
	for _, tc := range []struct {
		name string
		env  []string
		args []string
		code int
		want string // the last line of stderr
	}{
		{"port", nil, []string{"-port", "70000"}, gameserver.ExitUsage, "nebula-server: -port 70000: must be a port from 0 to 65535, or -1 for none"},
		{"no port", nil, []string{"-port", "-1", "-udp-port", "-1"}, gameserver.ExitUsage, "nebula-server: -port -1 and -udp-port -1: the match needs a TCP or a UDP port"},
		{"players", nil, []string{"-players", "9"}, gameserver.ExitUsage, "nebula-server: -players 9: must be from 1 to -max-players (8)"},
		{"unknown flag", nil, []string{"-frobnicate"}, gameserver.ExitUsage, "nebula-server: flag provided but not defined: -frobnicate (see -h)"},
		{"argument", nil, []string{"extra"}, gameserver.ExitUsage, `nebula-server: unexpected argument "extra": nebula-server takes only flags (see -h)`},
		{"log format", nil, []string{"-log-format", "xml"}, gameserver.ExitUsage, `nebula-server: -log-format "xml": must be json or text`},
		{"match id", nil, []string{"-match", "a b"}, gameserver.ExitUsage, `nebula-server: -match "a b": ' ' is not a letter, a digit, '.', '_' or '-'`},
		{"entities", nil, []string{"-entities", "-1"}, gameserver.ExitUsage, "nebula-server: -entities -1: must be from 0 to 1000000"},
		{"env", []string{"NEBULA_PLAYERS=two"}, nil, gameserver.ExitUsage, `nebula-server: NEBULA_PLAYERS="two": invalid value for -players: parse error`},
		{"env tick rate", []string{"NEBULA_TICK_RATE=0"}, nil, gameserver.ExitUsage, "nebula-server: -tick-rate 0: must be from 1 to 1000 Hz"},
		{"port in use", nil, []string{"-addr", "127.0.0.1", "-port", busyPort, "-udp-port", "-1"}, gameserver.ExitListen, "nebula-server: cannot listen on TCP port " + busyPort + ": listen tcp 127.0.0.1:" + busyPort + ": bind: address already in use"},
		{"bot without -connect", nil, []string{"bot"}, gameserver.ExitUsage, "nebula-server bot: -connect is required: the match server's host:port"},
		{"missing key file", nil, []string{"-key", "/nonexistent/match.key"}, gameserver.ExitUsage, "nebula-server: -key /nonexistent/match.key: token: open /nonexistent/match.key: no such file or directory"},
		{"rejoin without key", nil, []string{"-rejoin-grace", "10s"}, gameserver.ExitUsage, "nebula-server: -rejoin-grace needs -key (tokens tell a player's return from a newcomer)"},
		{"token without key", nil, []string{"token", "-match", "m", "-seat", "0"}, gameserver.ExitUsage, "nebula-server token: -key is required: the server's key file (or -new-key FILE to make one)"},
		{"token seat", nil, []string{"token", "-key", "k", "-match", "m", "-seat", "256"}, gameserver.ExitUsage, `nebula-server token: -seat "256": want a player's number, 0 to 255, or spectator`},
		// A file named by a flag that cannot be used, and a value out of
		// range, are bad usage like the others: status 2, before anything
		// starts.
		{"missing log to resume", nil, []string{"-resume", missing}, gameserver.ExitUsage, "nebula-server: -resume " + missing + ": open " + missing + ": no such file or directory"},
		{"log over a file", nil, []string{"-log", existing}, gameserver.ExitUsage, "nebula-server: -log " + existing + ": the file exists (a match log is never replaced; -resume continues it)"},
		{"ops port", nil, []string{"-ops", "127.0.0.1:99999"}, gameserver.ExitUsage, `nebula-server: -ops "127.0.0.1:99999": port "99999": must be a port from 0 to 65535`},
		{"ops without port", nil, []string{"-ops", "localhost"}, gameserver.ExitUsage, `nebula-server: -ops "localhost": want host:port: address localhost: missing port in address`},
		{"bot credentials missing", nil, []string{"bot", "-connect", "127.0.0.1:1", "-credentials", missing}, gameserver.ExitUsage, "nebula-server bot: -credentials " + missing + ": token: open " + missing + ": no such file or directory"},
		{"bot credentials count", nil, []string{"bot", "-connect", "127.0.0.1:1", "-n", "2", "-credentials", missing}, gameserver.ExitUsage, "nebula-server bot: -credentials names 1 files for -n 2 bots: one a bot"},
		{"bot credentials and key", nil, []string{"bot", "-connect", "127.0.0.1:1", "-credentials", missing, "-key", missing, "-match", "m"}, gameserver.ExitUsage, "nebula-server bot: -key and -credentials: the bots either mint their tokens (-key) or present the ones given (-credentials)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bin.Path(t), tc.args...)
			cmd.Env = append(os.Environ(), tc.env...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			code := exitCode(t, cmd.Run())
			lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
			if code != tc.code || lines[len(lines)-1] != tc.want {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d and last line %q", code, stderr.String(), tc.code, tc.want)
			}
			if tc.code == gameserver.ExitUsage && len(lines) != 1 {
				t.Errorf("stderr has %d lines, want one:\n%s", len(lines), stderr.String())
			}
		})
	}
}

// Environment variables set what the command line does not; a flag given
// wins over its variable. SIGTERM before any player came ends the server
// with status 0.
func TestEnvironment(t *testing.T) {
	s := startServer(t, []string{"NEBULA_MATCH=from-env", "NEBULA_TICK_RATE=30", "NEBULA_PLAYERS=3", "NEBULA_ENTITIES=7"}, "-tick-rate", "20")
	l := s.waitLog("listening")
	if l["match"] != "from-env" || l["tick_rate"] != 20.0 || l["players"] != 3.0 || l["entities"] != "7" {
		t.Errorf("listening line %v, want match from-env, tick_rate 20 (the flag's), players 3, entities 7", l)
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	if code := s.wait(); code != gameserver.ExitOK {
		t.Fatalf("exit %d; log:\n%s", code, s.log())
	}
	s.waitLog("match ended")
}

// A panic in the game's simulation fails the match: status 1, and the
// clients are told the match failed: the bot exits 1 saying so.
func TestSimulationPanicFails(t *testing.T) {
	s := startServer(t, nil, "-entities", "10", "-panic-at-tick", "20")
	l := s.waitLog("listening")
	b := startBot(t, "-connect", l["tcp"].(string), "-entities", "10")
	if code := s.wait(); code != gameserver.ExitFailed {
		t.Fatalf("exit %d after a panic at tick 20, want %d; log:\n%s", code, gameserver.ExitFailed, s.log())
	}
	failed := s.waitLog("match failed")
	if failed["ticks"] != 19.0 {
		t.Errorf("match failed line %v, want ticks 19", failed)
	}
	<-b.done
	if code := exitCode(t, b.err); code != gameserver.ExitFailed || !strings.Contains(b.stderr.String(), "nebula-server bot: bot 0: the match failed on the server at tick 19") {
		t.Errorf("the bot: exit %d, stderr %q; want %d and the match's failure", code, b.stderr.String(), gameserver.ExitFailed)
	}
}

// A bot presents a connect token's credentials file, as a matchmaker
// hands one (here minted by the token subcommand): it joins a server
// with -key, and, its process killed, a new bot with the same file takes
// the same seat back within -rejoin-grace and plays the match to its end
// with the server's hash.
func TestBotCredentialsRejoin(t *testing.T) {
	dir := t.TempDir()
	key, creds := filepath.Join(dir, "match.key"), filepath.Join(dir, "p0.json")
	if out, err := exec.Command(bin.Path(t), "token", "-new-key", key).CombinedOutput(); err != nil {
		t.Fatalf("token -new-key: %v\n%s", err, out)
	}
	out, err := exec.Command(bin.Path(t), "token", "-key", key, "-match", "m-9", "-seat", "0", "-ttl", "10m").Output()
	if err != nil {
		t.Fatalf("token: %v", err)
	}
	if err := os.WriteFile(creds, out, 0o600); err != nil {
		t.Fatal(err)
	}
	const ticks = 900
	s := startServer(t, nil, "-players", "1", "-ticks", fmt.Sprint(ticks), "-entities", "10", "-match", "m-9", "-key", key,
		"-rejoin-grace", "5m", "-ops", "127.0.0.1:0")
	l := s.waitLog("listening")
	first := startBot(t, "-connect", l["tcp"].(string), "-entities", "10", "-credentials", creds)
	// Once the match is under way, the first bot's process goes.
	waitMetric(t, l["ops"].(string), "the match past tick 30", func(m map[string]float64) bool { return m["nebula_server_tick"] > 30 })
	first.kill()
	second := startBot(t, "-connect", l["tcp"].(string), "-entities", "10", "-credentials", creds)
	lines := second.lines(t)
	if code := s.wait(); code != gameserver.ExitOK {
		t.Fatalf("exit %d; log:\n%s", code, s.log())
	}
	h := hashLine.FindStringSubmatch(s.output())
	if h == nil {
		t.Fatalf("server output %q", s.output())
	}
	if !strings.Contains(s.log(), `"kind":"rejoined"`) {
		t.Errorf("the server did not log the rejoin; log:\n%s", s.log())
	}
	if n := checkBots(t, lines, h[1], h[2], "last tick"); n != 1 || !strings.HasPrefix(lines[0], "bot 0: player 0 ") {
		t.Errorf("the second bot printed %q, want one line for player 0", lines)
	}
}

// With -key the server lets in only clients with a connect token of its
// match: the token subcommand makes the key and mints credentials, a bot
// without a token is refused (and counted by reason), bots with tokens
// (over TCP and over UDP, sealed) play to the end with the server's hash.
func TestConnectTokens(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "match.key")
	if out, err := exec.Command(bin.Path(t), "token", "-new-key", key).CombinedOutput(); err != nil {
		t.Fatalf("token -new-key: %v\n%s", err, out)
	}
	out, err := exec.Command(bin.Path(t), "token", "-key", key, "-match", "m-7", "-seat", "3", "-ttl", "90s").Output()
	if err != nil {
		t.Fatalf("token: %v", err)
	}
	var creds struct {
		Token   []byte `json:"token"`
		MatchID string `json:"match_id"`
		Seat    int    `json:"seat"`
		Expires time.Time
		Keys    map[string]string `json:"keys"`
	}
	if err := json.Unmarshal(out, &creds); err != nil || creds.MatchID != "m-7" || creds.Seat != 3 || len(creds.Token) == 0 || len(creds.Keys) != 2 ||
		time.Until(creds.Expires) > 90*time.Second || time.Until(creds.Expires) < 30*time.Second {
		t.Errorf("token printed %s (%v)", out, err)
	}

	const ticks = 120
	s := startServer(t, nil, "-players", "2", "-ticks", fmt.Sprint(ticks), "-entities", "30", "-match", "m-7", "-key", key,
		"-ops", "127.0.0.1:0", "-ops-linger", "10m")
	l := s.waitLog("listening")
	if l["tokens"] != true {
		t.Errorf("listening line %v, want tokens true", l)
	}
	intruder := startBot(t, "-connect", l["tcp"].(string), "-entities", "30")
	<-intruder.done
	if code := exitCode(t, intruder.err); code != gameserver.ExitFailed || !strings.Contains(intruder.stderr.String(), "token refused") {
		t.Errorf("a bot without a token: exit %d, stderr %q", code, intruder.stderr.String())
	}
	tcpBot := startBot(t, "-connect", l["tcp"].(string), "-entities", "30", "-key", key, "-match", "m-7")
	udpBot := startBot(t, "-connect", l["udp"].(string), "-udp", "-entities", "30", "-key", key, "-match", "m-7", "-first-seat", "1")
	s.waitLog("match ended")
	m := scrape(t, l["ops"].(string))
	if got := m[`nebula_server_handshakes_refused_total{reason="token-missing"}`]; got != 1 {
		t.Errorf("handshakes refused for token-missing: %v, want 1", got)
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	if code := s.wait(); code != gameserver.ExitOK {
		t.Fatalf("exit %d; log:\n%s", code, s.log())
	}
	h := hashLine.FindStringSubmatch(s.output())
	if h == nil {
		t.Fatalf("server output %q", s.output())
	}
	n := checkBots(t, tcpBot.lines(t), h[1], h[2], "last tick")
	n += checkBots(t, udpBot.lines(t), h[1], h[2], "last tick")
	if n != 2 {
		t.Errorf("%d bot lines, want 2", n)
	}
}

// The server builds without cgo: nothing it imports outside the standard
// library uses cgo, and neither GL nor GLFW is among its imports (mathgl,
// pure Go, is).
func TestPureGo(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{.Standard}} {{len .CgoFiles}}", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		n++
		if strings.HasPrefix(f[0], "github.com/go-gl/gl/") || strings.HasPrefix(f[0], "github.com/go-gl/glfw/") || strings.HasSuffix(f[0], "/internal/platform") || strings.HasSuffix(f[0], "/gfx") {
			t.Errorf("nebula-server imports %s", f[0])
		}
		if f[1] == "false" && f[2] != "0" {
			t.Errorf("nebula-server imports %s, which uses cgo", f[0])
		}
	}
	if n < 50 {
		t.Errorf("go list -deps listed %d packages: %s", n, out)
	}
}
