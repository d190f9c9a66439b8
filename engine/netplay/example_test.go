package netplay_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/netplay"
)

// A server and one headless player on the loopback interface, over TCP:
// the match runs 30 ticks, and the player ends on the server's tick and
// state hash.
func Example() {
	quiet := logrus.New()
	quiet.SetOutput(io.Discard)
	newEngine := func() *engine.Engine {
		e, err := engine.New(engine.DefaultConfig())
		if err != nil {
			panic(err)
		}
		return e // a game adds its systems and builds its world here
	}

	// The server: the match, on an engine of its own.
	se := newEngine()
	cfg := netplay.DefaultServerConfig()
	cfg.Scene, cfg.Ticks, cfg.Log = "example", 30, quiet
	srv, err := netplay.NewServer(se, cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	// The player: dial, build the engine the Welcome describes, attach.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ccfg := netplay.DefaultClientConfig()
	ccfg.Scene, ccfg.Fingerprint, ccfg.Log = "example", se.World.Schema().Fingerprint(), quiet
	c, err := netplay.Dial(ctx, ln.Addr().String(), ccfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	ce := newEngine() // at c.Welcome().TickRate, from c.Welcome().Params
	if err := c.Attach(ce, nil); err != nil {
		fmt.Println(err)
		return
	}
	err = c.RunHeadless(ctx) // nil once the match's last tick is simulated
	c.Close()
	if err := <-served; err != nil {
		fmt.Println(err)
	}
	fmt.Println("client:", err, "at tick", ce.World.Tick())
	fmt.Println("same hash as the server:", ce.World.Hash() == se.World.Hash())
	// Output:
	// client: <nil> at tick 30
	// same hash as the server: true
}
