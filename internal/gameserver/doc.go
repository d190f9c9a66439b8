// Package gameserver is a dedicated game server's program: one match of
// a game per process, pure Go (no GL, no GLFW: CGO_ENABLED=0 builds it),
// with what an operator needs around the match (package netplay's
// Server): flags and environment variables, a JSON or text log, exit
// statuses, SIGTERM, an operator port with /healthz and /metrics (package
// serverops), and a bot subcommand of headless players. cmd/nebula-server
// is the demo's; a game registers itself in a few lines, its own server's
// main:
//
//	func main() {
//		os.Exit(gameserver.Main(gameserver.Program{
//			Name: "mygame-server",
//			Game: gameserver.Game{
//				Scene: "mygame",                         // the id its clients run
//				Setup: func(e *engine.Engine) error {     // its world and systems
//					mygame.Setup(e)
//					return nil
//				},
//			},
//		}, os.Args[1:], os.LookupEnv, os.Stdout, os.Stderr))
//	}
//
// Game.Flags and Game.Params add the game's own flags and send their
// values to the clients (as app.Game.Params does for its windowed
// program), Game.CheckOptions checks them (app.Game.Check's shape: one
// function serves both programs); Game.Script gives the bots their input
// and Game.Actions, the game's declared actions (the same input.ActionMap
// as its app.Game.Actions), turns the keys they press into actions.
//
// # Flags and environment
//
// -addr (every interface), -port and -udp-port (7777 each: the match takes
// clients of both transports; 0 picks a free port, -1 turns one off),
// -players, -max-players, -spectators, -match (the match id, in every log
// line and the metrics), -tick-rate, -ticks (0: until SIGTERM), -seed,
// -log-format (json, the default, or text), -log-level, -ops (the
// operator port's host:port, off by default), -ops-linger, -stall-after,
// and connect tokens: -key (the key file: clients must present a token
// of the match, package token, and their traffic is sealed),
// -rejoin-grace, -spectators-without-token. Every flag,
// the game's and the extensions' too, is also an environment variable:
// NEBULA_ and its name in capitals, '_' for '-' (NEBULA_UDP_PORT=7000;
// EnvName); a flag given on the command line wins.
//
// # Exit statuses
//
//	0 (ExitOK)      the match ended at its last tick (-ticks), or SIGTERM or SIGINT ended it
//	1 (ExitFailed)  the match failed: a panic in a system, a listener that failed, an extension's error
//	2 (ExitUsage)   bad usage, nothing started: a bad flag or environment variable, a value out
//	                of range, or a file named by a flag that cannot be used
//	3 (ExitListen)  a well-formed port (-port, -udp-port, -ops) could not be opened
//
// A failure prints one line "<program>: <what went wrong>" on stderr,
// beside the log's own.
//
// # Signals
//
// A match that fails (a panic in a system) sends its clients the end with
// the reason "failed" (wire.EndFailed).
//
// SIGTERM or SIGINT ends the match: its players and spectators are sent
// the end with the reason "shutdown" (wire.EndShutdown; a client still in
// its handshake is refused with the same reason), the server waits up to
// two seconds for their goodbyes, logs "match ended", writes the match
// report, and exits 0. /healthz answers 503 from the signal on.
//
// # The log
//
// One line per event, JSON (logrus's JSONFormatter) or text, every line
// with the match id (field "match"). The line "listening" names the
// addresses (fields tcp, udp, ops: a port 0 shows the one picked), the
// match's size and the game's parameters; "match ended" (or "match
// failed") its ticks, duration, desyncs, tick time percentiles and final
// state hash.
//
// # Extensions
//
// An Extension joins the server's life without changing it: flags,
// a look at the configuration before the match is made (Configure), the
// making of the match's server itself (Server: a match resumed from its
// log), the server's events (Trace), the moment the ports are open (Listening,
// which may wait, say for an orchestrator to allocate the server) and the
// match's end (Ended). Program.Extensions lists them, in the order they
// are called.
//
// # Bots
//
// "<program> bot -connect HOST:PORT -n 4" runs 4 headless clients of the
// game in one process, each on its own engine with the game's bot script:
// they join, play the match to its end, and print one line each, "bot I:
// player P ticks T end REASON hash H"; the hash is the world's at the
// match's last tick, the one the server logs. -udp joins over UDP,
// -spectate as spectators; against a server with -key, "-key FILE -match
// ID" makes each bot mint its own token (seat -first-seat + I), or
// "-credentials FILE[,FILE...]" presents the credentials given, one file a
// bot (a matchmaker's, or the token subcommand's), with which a bot may
// also rejoin its seat. A bot exits ExitFailed when its client failed or
// the match failed on the server (announced as wire.EndFailed).
//
// # Tokens
//
// "<program> token -new-key FILE" writes a new key file (mode 0600, never
// over an existing file); "<program> token -key FILE -match ID -seat N
// -ttl 1m" mints a connect token for seat N (0 to 255, or spectator) of
// match ID and prints its credentials (token.Credentials) as a line of
// JSON: what a matchmaker hands a player, and what nebula-demo's
// -credentials file holds.
package gameserver
