package deploycheck

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// matchTimeout bounds the image's short match; it takes well under a
// second.
const matchTimeout = 2 * time.Minute

// runMatch runs the image's server binary bin in the folder dir with an
// empty environment, a match of one player and 60 ticks on a free TCP
// port of 127.0.0.1, and the same binary's headless client (its bot
// subcommand), also with an empty environment; the match must end at its
// last tick with the state hash printed.
func runMatch(t *testing.T, bin, dir string) {
	t.Helper()
	srv := exec.Command(bin, "-addr", "127.0.0.1", "-port", "0", "-udp-port", "-1",
		"-players", "1", "-ticks", "60", "-match", "image-test", "-log-format", "json")
	srv.Env, srv.Dir = []string{}, dir
	var stdout bytes.Buffer
	srv.Stdout = &stdout
	stderr, err := srv.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(matchTimeout, func() { srv.Process.Kill() })
	defer timer.Stop()

	// The server logs the address it listens on.
	var log strings.Builder
	lines := bufio.NewScanner(stderr)
	addr := ""
	for addr == "" && lines.Scan() {
		log.WriteString(lines.Text() + "\n")
		var l struct {
			Msg string `json:"msg"`
			TCP string `json:"tcp"`
		}
		if json.Unmarshal(lines.Bytes(), &l) == nil && l.Msg == "listening" {
			addr = l.TCP
		}
	}
	if addr == "" {
		srv.Process.Kill()
		srv.Wait()
		t.Fatalf("the image's server never logged a listening line:\n%s", log.String())
	}
	rest := make(chan string, 1)
	go func() { b, _ := io.ReadAll(stderr); rest <- string(b) }()

	bot := exec.Command(bin, "bot", "-connect", addr, "-n", "1")
	bot.Env, bot.Dir = []string{}, dir
	botOut, botErr := bot.CombinedOutput()
	srvErr := srv.Wait()
	log.WriteString(<-rest)
	if botErr != nil || srvErr != nil {
		t.Fatalf("the image's match: server %v, client %v\nserver's log:\n%s\nclient:\n%s", srvErr, botErr, log.String(), botOut)
	}
	if !strings.Contains(stdout.String(), "state-hash 60 ") {
		t.Errorf("the image's server printed no state hash at tick 60:\n%s", stdout.String())
	}
	t.Logf("the image's server ran a match alone (empty environment, empty folder): %s", strings.TrimSpace(stdout.String()[strings.LastIndex(stdout.String(), "state-hash"):]))
}
