package netsim_test

import (
	"fmt"
	"io"
	"net"
	"time"

	"github.com/nebulaengine/nebula/engine/netplay/netsim"
)

// Put 50 ms each way, ±10 ms, between a client and an echo server.
func ExampleListen() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		io.Copy(c, c)
	}()

	p, err := netsim.Listen(ln.Addr().String(), netsim.Config{Delay: 50 * time.Millisecond, Jitter: 10 * time.Millisecond, Seed: 1})
	if err != nil {
		panic(err)
	}
	defer p.Close()
	c, err := net.Dial("tcp", p.Addr().String())
	if err != nil {
		panic(err)
	}
	defer c.Close()

	start := time.Now()
	c.Write([]byte("ping"))
	buf := make([]byte, 4)
	io.ReadFull(c, buf)
	fmt.Println(string(buf), time.Since(start) >= 80*time.Millisecond)
	// Output: ping true
}
