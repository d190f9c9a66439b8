package main

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nebulaengine/nebula/cmd/nebula-demo/scene"
	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/netplay"
	"github.com/nebulaengine/nebula/engine/netplay/token"
	"github.com/nebulaengine/nebula/internal/app"
)

// A server of the demo scene that requires connect tokens (in this
// process: the demo's -serve takes none): a headless player with
// -credentials plays the match to the server's hash, over TCP and UDP;
// a player without them is refused with the reason, exit status 1.
func TestCredentialsFlag(t *testing.T) {
	for _, transport := range []string{"tcp", "udp"} {
		t.Run(transport, func(t *testing.T) {
			key, err := token.GenerateKey()
			if err != nil {
				t.Fatal(err)
			}
			const ticks, entities = 240, 50
			e, err := engine.New(engine.DefaultConfig())
			if err != nil {
				t.Fatal(err)
			}
			scene.Setup(e, entities)
			params, err := app.Params{"seed": fmt.Sprint(engine.DefaultConfig().Seed), "entities": fmt.Sprint(entities), "panic-at-tick": "0"}.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			cfg := netplay.DefaultServerConfig()
			cfg.Scene, cfg.Params, cfg.Ticks = scene.ID, params, ticks
			cfg.TokenKey, cfg.MatchID = &key, "demo-match"
			log := logrus.New()
			log.SetOutput(os.Stderr)
			log.SetLevel(logrus.ErrorLevel)
			cfg.Log = log
			srv, err := netplay.NewServer(e, cfg)
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			var addr string
			if transport == "udp" {
				pc, err := net.ListenPacket("udp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				addr = pc.LocalAddr().String()
				go func() { done <- srv.ServeUDP(pc) }()
			} else {
				ln, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				addr = ln.Addr().String()
				go func() { done <- srv.Serve(ln) }()
			}
			t.Cleanup(srv.Close)

			refused := startProc(t, "player without credentials", os.Environ(), "-connect", addr, "-headless", "-transport", transport)
			select {
			case <-refused.done:
			case <-time.After(time.Minute):
				t.Fatal("the player without credentials did not exit")
			}
			if _, errs := refused.out(); refused.cmd.ProcessState.ExitCode() != 1 || !strings.Contains(errs, "token refused: this server requires a connect token") {
				t.Errorf("a player without credentials: %v\n%s", refused.err, errs)
			}

			creds, err := token.Mint(key, token.Request{MatchID: "demo-match", Seat: 0, TTL: time.Minute}, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(creds)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "creds.json")
			if err := os.WriteFile(path, b, 0o600); err != nil {
				t.Fatal(err)
			}
			player := startProc(t, "player", os.Environ(), "-connect", addr, "-headless", "-print-hash", "-transport", transport, "-credentials", path)
			got := stateHash(t, player.name, player.wait(t, time.Minute))
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(time.Minute):
				t.Fatal("the match did not end")
			}
			if want := fmt.Sprintf("state-hash %d %016x", ticks, e.World.Hash()); got != want {
				t.Errorf("the player printed %q, the server's is %q", got, want)
			}
		})
	}
}
