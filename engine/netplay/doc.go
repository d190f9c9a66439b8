// Package netplay plays one match of a deterministic game over the
// network: a Server owns the tick clock and who plays, and confirms every
// player's input at every tick; every Client simulates the identical
// ticks from those confirmed inputs, so every peer holds the identical
// state, which the peers' state hashes check.
//
// A client runs its engine on a rollback.Rollback session, of which it is
// the source: with ClientConfig.Predict above 0 (the default is 8 ticks)
// it simulates ahead of its confirmed ticks on predicted inputs and rolls
// back when a confirmed tick differs; with 0 it is lockstep, every tick
// waiting for its confirmed inputs.
//
// A dedicated server, and a headless player:
//
//	srv, err := netplay.NewServer(serverEngine, cfg) // cfg from DefaultServerConfig
//	ln, err := net.Listen("tcp", ":7000")
//	go srv.Serve(ln)
//
//	c, err := netplay.Dial(ctx, "127.0.0.1:7000", clientCfg) // from DefaultClientConfig
//	e, err := engine.New(engineConfigFrom(c.Welcome()))      // the server's tick rate and parameters
//	err = c.Attach(e, script)
//	err = c.RunHeadless(ctx)
//
// A windowed player gives its window c.LocalInput() for the device
// events, and lets the window's loop run the engine: the session does
// its rollbacks at the start of each frame, and the client steers the
// loop's tick clock to keep its place (see docs/multiplayer.md).
//
// A server that lets in only its matchmaker's players holds a token key
// (package token): each client presents a connect token naming its
// match and seat, and everything after the handshake is sealed with the
// token's session keys (package seal); a player whose connection drops
// may take its seat back within ServerConfig.RejoinGrace:
//
//	cfg.TokenKey, cfg.MatchID = &key, "m-42" // key from token.LoadKeyFile
//	cfg.RejoinGrace = 30 * time.Second
//
//	creds, err := token.Mint(key, token.Request{MatchID: "m-42", Seat: 0, TTL: time.Minute}, time.Now())
//	clientCfg.Credentials = &creds // the matchmaker hands them over HTTPS
//
// The protocol is in package wire; package netsim simulates a slow
// network for tests.
package netplay
