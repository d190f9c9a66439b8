package agones_test

import (
	"context"
	"log"
	"os"
	"time"

	"github.com/nebulaengine/nebula/internal/agones"
)

// A match server's life under Agones: Ready once it listens, the players
// label as players come, a beat per tick, Shutdown at the end.
func ExampleLifecycle() {
	// No output: it needs an Agones SDK server (TestRealSDKServer runs the real one).
	c, ok, err := agones.ClientFromEnv(os.Getenv)
	if err != nil {
		log.Print(err)
		return
	}
	if !ok {
		return // not under Agones
	}
	lc, err := agones.NewLifecycle(c, agones.LifecycleConfig{MatchID: "match-42"})
	if err != nil {
		log.Print(err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// ... the server listens ...
	if err := lc.Ready(ctx); err != nil {
		log.Print(err)
		return
	}
	defer lc.Shutdown(context.Background())
	if _, err := lc.WaitAllocated(ctx); err != nil {
		log.Print(err)
		return
	}
	lc.SetPlayers(4)
	for tick := 0; tick < 60; tick++ {
		// ... run the tick ...
		lc.Beat()
	}
}
