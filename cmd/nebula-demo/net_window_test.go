package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/cmd/nebula-demo/scene"
	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/engine/replay"
	"github.com/nebulaengine/nebula/internal/app"
)

// Two windowed clients under a private X server, each driven by xdotool
// with its own arrow key, and a headless server play a match: both clients
// end with the server's state hash, and the server's recording verifies.
// The key presses are proved to have reached the match: replaying the
// recording in this process shows each client's player holding its key,
// and only that key, and its cube moving by exactly what the held ticks
// make at the scene's speed.
func TestTwoWindowedClients(t *testing.T) {
	needDisplay(t)
	x := startXServer(t)
	rec := filepath.Join(t.TempDir(), "match.rep")
	// 600 ticks is 10 s of match: the windows open and are driven in the
	// first few seconds, even on a loaded machine.
	const ticks = 600
	srv, addr := startServer(t, "-players", "2", "-ticks", strconv.Itoa(ticks), "-entities", "200", "-record", rec, "-print-hash")
	// Small windows and a low frame cap: two software-rendered windows
	// share the machine with the server and the test.
	client := func(name string) *proc {
		return startProc(t, name, x.env, "-connect", addr, "-print-hash",
			"-width", "320", "-height", "240", "-fps", "30", "-hitch", "0")
	}
	// Each client holds a key of its own. Both players' cubes start at
	// least 15 units from the walls in these directions (scene.PlayerSpot:
	// player 0 at the centre, player 1 at x -11, z -6), so a hold of under
	// two seconds moves them without a bounce.
	type driven struct {
		*proc
		xdo string // the key's xdotool name
		key input.Key
		dir mgl32.Vec3 // where the key moves the cube
		win string     // the X window
	}
	clients := []*driven{
		{proc: client("client A"), xdo: "Right", key: input.KeyArrowRight, dir: mgl32.Vec3{1, 0, 0}},
		{proc: client("client B"), xdo: "Down", key: input.KeyArrowDown, dir: mgl32.Vec3{0, 0, 1}},
	}
	const hold = 700 * time.Millisecond

	start := time.Now()
	for _, c := range clients {
		c.win = clientWindow(t, x, c.proc)
	}
	// A client ticks once the match has started: both are in by now.
	waitLog(t, srv, "match started", 30*time.Second)
	t.Logf("both windows are running frames %v after the start", time.Since(start).Round(time.Millisecond))
	for _, c := range clients {
		// windowactivate makes jwm give the window the input focus; the
		// key events then come from XTEST, as a real keyboard's do, and
		// reach the focused window. The key goes up before the other
		// window is activated: a window that loses the focus releases
		// its keys itself (package pause), which is not what is tested.
		x.mustXdo(t, "windowactivate", "--sync", c.win)
		x.mustXdo(t, "keydown", c.xdo)
		time.Sleep(hold)
		x.mustXdo(t, "keyup", c.xdo)
	}
	select {
	case <-srv.done:
		t.Fatalf("the match ended before the keys were all pressed (%v after the start): too few -ticks for this machine", time.Since(start))
	default:
	}
	t.Logf("keys pressed %v after the start", time.Since(start).Round(time.Millisecond))

	want := stateHash(t, "server", srv.wait(t, 40*time.Second))
	if !strings.HasPrefix(want, fmt.Sprintf("state-hash %d ", ticks)) {
		t.Fatalf("server: %q, want tick %d", want, ticks)
	}
	for _, c := range clients {
		out := c.wait(t, time.Minute)
		if got := stateHash(t, c.name, out); got != want {
			t.Errorf("%s: %q, server %q", c.name, got, want)
		}
		if n := len(hashLine.FindAllString(out, -1)); n != 1 {
			t.Errorf("%s printed %d state-hash lines, want 1:\n%s", c.name, n, out)
		}
	}
	out, _ := srv.out()
	t.Logf("server (%v after the start):\n%s", time.Since(start).Round(time.Millisecond), out)
	if !strings.Contains(out, "2 players, 0 spectators, 0 desyncs") {
		t.Errorf("the match report does not say 2 players, 0 spectators, 0 desyncs:\n%s", out)
	}
	verifyRecording(t, rec, ticks, want[strings.LastIndexByte(want, ' ')+1:])

	seen := watchRecording(t, rec)
	for _, c := range clients {
		id := playerID(t, c.proc)
		pl, ok := seen[id]
		if !ok {
			t.Errorf("%s is player %d, who is not in the recording", c.name, id)
			continue
		}
		t.Logf("%s (player %d): %v held %d ticks; cube moved %v", c.name, id, c.key, pl.held[c.key], pl.moved)
		// A 700 ms hold is about 42 ticks; allow for a loaded machine
		// delivering the key up early or the key down late.
		if n := pl.held[c.key]; n < 10 {
			t.Errorf("%s (player %d) held %v for %d ticks, want its %v hold (at least 10)", c.name, id, c.key, n, hold)
		}
		for key, n := range pl.held {
			if key != c.key {
				t.Errorf("%s (player %d) held %v for %d ticks; it was sent only %v", c.name, id, key, n, c.key)
			}
		}
		// The cube moves PlayerSpeed units a second along the key's
		// direction while it is held, and not otherwise.
		wantMove := c.dir.Mul(float32(pl.held[c.key]) * scene.PlayerSpeed * pl.dt)
		if d := pl.moved.Sub(wantMove); math.Abs(float64(d[0])) > 1e-3 || math.Abs(float64(d[2])) > 1e-3 {
			t.Errorf("%s (player %d): the cube moved %v, want %v (%d ticks at %d units/s)", c.name, id, pl.moved, wantMove, pl.held[c.key], scene.PlayerSpeed)
		}
	}
}

// clientWindow returns the X window of the windowed client p, once its
// title shows the demo running ticks: the title is updated from the frame
// loop, so a window whose title reports UPS takes input.
func clientWindow(t testing.TB, x *xserver, p *proc) string {
	t.Helper()
	pid := strconv.Itoa(p.cmd.Process.Pid)
	running := regexp.MustCompile(`^Nebula demo  \d+ FPS  [1-9]\d* UPS`)
	deadline := time.Now().Add(30 * time.Second)
	for {
		// GLFW sets _NET_WM_PID; the two clients' titles differ only in
		// their rates and score.
		if id, err := x.xdo("search", "--onlyvisible", "--pid", pid); err == nil && id != "" && !strings.Contains(id, "\n") {
			if title, err := x.xdo("getwindowname", id); err == nil && running.MatchString(title) {
				return id
			}
		}
		select {
		case <-p.done:
			_, errs := p.out()
			t.Fatalf("%s ended before its window ran: %v\n%s", p.name, p.err, errs)
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			_, errs := p.out()
			t.Fatalf("%s's window did not show it running within 30 s\n%s", p.name, errs)
		}
	}
}

// playerID returns the player ID the server gave the client p, from its
// "joined the match" log line.
func playerID(t testing.TB, p *proc) engine.PlayerID {
	t.Helper()
	_, errs := p.out()
	m := regexp.MustCompile(`msg="joined the match" .*\bplayer=(\d+)`).FindStringSubmatch(errs)
	if m == nil {
		t.Fatalf("%s did not log its player ID:\n%s", p.name, errs)
	}
	id, err := strconv.ParseUint(m[1], 10, 16)
	if err != nil {
		t.Fatalf("%s: player ID %q: %v", p.name, m[1], err)
	}
	return engine.PlayerID(id)
}

// playerSeen is what a replay showed of one player after its first tick:
// the ticks each arrow key was down, and how far the player's cube moved
// from the end of its first tick to the end of its last.
type playerSeen struct {
	held  map[input.Key]int
	moved mgl32.Vec3
	dt    float32 // the fixed step, for turning ticks into distance
	first mgl32.Vec3
}

// watchRecording replays the recording at path in this process, with the
// engine's replay player on the demo's scene, and returns what each player
// did. The replay is verified as it goes (replay.Verify), so what it shows
// is what the match simulated.
func watchRecording(t *testing.T, path string) map[engine.PlayerID]*playerSeen {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := replay.Open(data)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	h := r.Header
	cfg := engine.DefaultConfig()
	cfg.Seed = h.Seed
	e, err := engine.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	p, err := app.ParseParams(h.Params)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	entities, err := strconv.Atoi(p["entities"])
	if err != nil {
		t.Fatalf("%s: the entity count: %v", path, err)
	}
	sc := scene.Setup(e, entities)
	if sc.PanicAt, err = strconv.ParseUint(p["panic-at-tick"], 10, 64); err != nil {
		t.Fatalf("%s: the panic tick: %v", path, err)
	}
	seen := map[engine.PlayerID]*playerSeen{}
	arrows := []input.Key{input.KeyArrowLeft, input.KeyArrowRight, input.KeyArrowUp, input.KeyArrowDown}
	// Added after the scene's systems, it sees each tick's inputs and the
	// cubes where the tick left them.
	e.AddSystem(engine.StageScripts, "watch", func(c *engine.FixedContext) {
		for i := range c.Players.Len() {
			id, in := c.Players.At(i)
			cube, ok := sc.PlayerCube(c.World, id)
			if !ok {
				t.Errorf("tick %d: player %d has no cube", c.Tick, id)
				continue
			}
			pos := c.World.Transform(cube).Pos
			pl := seen[id]
			if pl == nil {
				// The cube's position at the end of the player's first
				// tick is where the movement is counted from: that
				// tick's keys are not counted either.
				seen[id] = &playerSeen{held: map[input.Key]int{}, first: pos}
				continue
			}
			pl.dt = c.DT
			pl.moved = pos.Sub(pl.first)
			for _, k := range arrows {
				if in.Down(k) {
					pl.held[k]++
				}
			}
		}
	})
	res, err := replay.Verify(e, r)
	if err != nil {
		t.Fatalf("replaying %s: %v", path, err)
	}
	if res.Ticks != r.Records() {
		t.Fatalf("replayed %d of %d ticks", res.Ticks, r.Records())
	}
	return seen
}
