// Package wire is Nebula's multiplayer protocol: the messages an
// authoritative server and its clients exchange over TCP, their encoding,
// and the handshake that starts a connection.
//
// The server owns the tick clock. Each client sends its input for the
// ticks to come (Input); at each tick's deadline the server confirms one
// input per player, using a player's previous input when theirs has not
// arrived, and sends the confirmed inputs, not the world, to every client
// (Confirmed), with feedback on how early the receiver's own input came.
// Every client simulates the same ticks from the same inputs. A client may
// simulate ahead on predicted inputs and simulate again when the confirmed
// ones arrive; the messages are the same. A late joiner gets a Snapshot
// of a confirmed tick, then the Confirmed ticks after it. Every 60 ticks a
// client sends its state hash (Hash); on a mismatch the server says so
// (Desync) and the client resynchronises from a Snapshot.
//
// Encoding a message and reading it back:
//
//	var buf []byte
//	buf = wire.AppendMessage(buf[:0], &wire.Hash{Tick: 600, Hash: h}) // no allocation once buf has room
//
//	r := wire.NewReader(conn, wire.MaxServerMessage)
//	m, err := r.ReadMessage() // an *wire.Error names the kind, type, byte and field of a fault
//	switch m := m.(type) {
//	case *wire.Confirmed: // valid until the next ReadMessage
//	}
//
// Everything here is pure Go; the code that dials, listens and sets
// TCP_NODELAY is elsewhere.
//
// # Handshake
//
// A client connects and sends the preamble (Magic, "NEBULAnp", and
// Version as a uint16) and a Hello. The server sends its own preamble,
// then a Welcome or a Refuse. A server reading anything but Magic refuses
// the connection at the first byte that differs (ErrNotClient: an HTTP
// request or a port scanner is known by its first bytes), and so does a
// client that reached something other than a Nebula server (ErrNotServer).
// On a version mismatch the server answers with its preamble and
// RefuseVersion; the preamble and the Refuse message (type 3: a reason
// byte, a uint16 length and text) are the same in every version of the
// protocol, so either side can always say what went wrong. A server that
// drops a client later (silent too long, flooding, a bad message, reading
// too slowly) sends a Refuse with ReasonDropped before it closes the
// connection.
//
// A server that requires connect tokens (package token) finds the token
// in the Hello and refuses a bad one with ReasonToken, in clear. Once it
// accepts it, everything after the Hello, both ways, is sealed with the
// connection's session keys (package seal): the Welcome, or a refusal
// for any other reason (another scene or schema, a full match, a seat
// taken), is the server's first sealed message.
//
// # Encoding
//
// All integers are little-endian. A message is
//
//	length  uint32  the bytes of type and body: 1 to the reader's cap
//	type    uint8   a Type
//	body            the type's fields, below; nothing may follow them
//
// A Reader checks the length against its cap before it reads or
// allocates anything for the body: MaxClientMessage (64 KiB) for what a
// server reads from a client, MaxServerMessage (64 MiB and 13 bytes, for
// a Snapshot) for what a client reads from its server. Every count and
// length inside a body is checked against its limit and against the bytes
// the body has left before anything is allocated for it.
//
// # Messages
//
// Offsets are from the start of the body (byte 5 of the encoded message); "text" is
// UTF-8 without control characters.
//
//	Hello (1), client to server
//	  0  version      uint16  the client's Version
//	  2  role         uint8   1 player, 2 spectator
//	  3  scene        uint8 length (<= 64) + text
//	     fingerprint  uint64  the client's engine.Schema.Fingerprint
//	     name         uint8 length (<= 32) + text
//	     token        uint8 length (<= 255) + bytes: the connect token (package token), or none
//	     salt         [16]byte  random per connection with a token (package seal); zeros without
//
//	Welcome (2), server to client
//	  0  player       uint16  0 to 255, or 0xffff for a spectator
//	  2  tick rate    uint16  Hz, >= 1
//	  4  scene        uint8 length (<= 64) + text
//	     fingerprint  uint64
//	     params       uint16 length (<= 4096) + bytes, defined by the game
//	     input delay  uint8   ticks
//	     first tick   uint64  the first tick the client simulates
//	     snapshot     uint64  a late join: the tick of the Snapshot that follows; 0 none
//	     join tick    uint64  a rejoin: the tick the player joined at (no Confirmed names it); 0 none
//
//	Refuse (3), either way; the same in every version
//	  0  reason       uint8   Reason
//	  1  text         uint16 length (<= 256) + text
//
//	Input (4), client to server
//	  0  first tick   uint64
//	  8  count        uint8   1 to 64
//	  9  inputs       count x input, for ticks first, first+1, ...
//
//	Confirmed (5), server to client
//	  0  first tick   uint64
//	  8  count        uint16  1 to 1024
//	 10  ticks        count x, for ticks first, first+1, ...:
//	       joins      uint16 count (<= 256) + count x uint16 player, ascending
//	       leaves     uint16 count (<= 256) + count x uint16 player, ascending
//	       inputs     uint16 count (<= 256) + count x (uint16 player, input), ascending players
//	       flags      uint8   0x01: the receiver's input was substituted
//	       early      int32   microseconds the receiver's input came before the deadline
//
//	Hash (6), client to server:    tick uint64, hash uint64
//	Desync (7), server to client:  tick uint64, server's hash uint64, client's hash uint64
//	Snapshot (8), server to client: tick uint64, uint32 length (<= 64 MiB) + engine snapshot
//	Ping (9), either way:          time int64 (ns on the sender's clock)
//	Pong (10), either way:         echo int64 (the Ping's time), time int64 (the responder's clock)
//	End (11), server to client:    last tick uint64, reason uint8 (1 last tick, 2 shutdown, 3 failed)
//	Bye (12), client to server:    no body
//
// An input is an input.Sample's words (input.Sample.Words) in a compact
// form: a 2-byte mask of the words 0 to 14 that are not zero (bit i of the
// little-endian mask for word i) whose bit 15 says that a 3-byte mask of
// the words 15 to 38 that are not zero follows (present only when one of
// them is not zero: the gamepads' and actions' words), then for each such
// word, lowest first, a byte whose bit j marks the word's byte j as not
// zero, then those bytes, lowest first. An input with one key held is 4
// bytes, the zero input 2: an input of keys and mouse alone has the form
// of protocol version 1. Only this canonical form is read (a byte marked
// non-zero must not be zero, an extension must not be zero), so a message
// that decodes encodes to the same bytes.
//
// # Errors
//
// Every fault a Reader finds is an *Error with its kind (ErrTooLarge,
// ErrUnknownType, ErrMalformed, ErrTruncated, ErrVersion, ErrNotClient,
// ErrNotServer; errors.Is works with each), the message's type, and the
// byte offset and field where it is. Nothing in this package panics on
// bad input. Writer.WriteMessage checks a message (Check) before it sends
// it, so that what it sends a Reader accepts.
package wire
