// Package udp carries Nebula's multiplayer protocol (package wire) over
// UDP. A Conn is a net.Conn: the server and the client write and read the
// same stream of wire messages as over TCP, and the Conn, which knows
// the messages, sends each kind the way it needs:
//
//   - Input (client to server) and Confirmed (server to client) are split
//     into tick items, numbered in the order they were written. Every
//     packet repeats every item the peer has not acknowledged, oldest
//     first, as many as fit: a lost packet costs one packet interval (the
//     next packet carries its ticks), never a round trip.
//   - Ping and Pong go once, never again: they measure round trips.
//   - Everything else (the preamble, Hello, Welcome, Refuse, Hash, Desync,
//     Snapshot, End, Bye, and a tick too large for a packet) is a record
//     of the reliable stream, cut into numbered segments, resent on a
//     timer (RFC 6298's, from 30 ms to 1 s) until acknowledged; a segment
//     of up to 128 bytes (a Hash, an End) is also repeated in every packet,
//     like a tick item.
//
// The reading side delivers one ordered stream: the tick items in order,
// without duplicates or gaps, merged back into Input and Confirmed messages
// of consecutive ticks (with the right first tick, up to wire.MaxInputRun
// and wire.MaxConfirmedRun ticks), and each record only after the tick
// items written before it (each record carries the count of tick items
// before it, each item the count of records before it), so an End never
// overtakes the last Confirmed and a Snapshot stays between the ticks
// around it. Duplicated and reordered packets are harmless. CloseWrite
// ends the stream (the peer reads io.EOF after the rest); Close resends
// what the peer has not acknowledged for up to 2 s in the background,
// then tells the peer.
//
//	ln := udp.Listen(pc, udp.ListenConfig{})  // a net.Listener: netplay's Server.Serve(ln), or Server.ServeUDP(pc)
//	c, err := udp.Dial(ctx, "127.0.0.1:7000", udp.DialConfig{})
//
// # Handshake
//
// The client sends a connect packet with a random nonce, again after 100,
// 200, 400 ms and so on (up to a second apart), until the server answers
// with a challenge: the nonce and a cookie, the server's time and an
// HMAC-SHA256 (cut to 16 bytes) of that time, the client's address, port
// and nonce under a secret the server drew from crypto/rand. The server
// keeps nothing for a connect: a sender that cannot receive at its source
// address costs it one MAC and one packet back, never a connection. The
// client then sends a response echoing the nonce and the cookie, on the
// same schedule, until the server answers with an accept packet: the
// nonce and the connection's token, 64 random bits. Only a response whose
// cookie the server made, for that address, port and nonce, within the
// last 5 s (compared in constant time) makes a connection; a client whose
// cookie is 2.5 s old asks for another with a connect. A copy of the
// response that comes after its connection ended (a resend that crossed
// the accept) makes no new one. Every later packet,
// either way, carries the token; the server drops a packet whose token is
// not the connection's of its source address, or that comes from an
// address without a connection, so a spoofed source address cannot
// inject input. (The token only protects against those who cannot read
// the traffic.)
//
// A connection whose ends have session keys (a connect token's, package
// seal: Conn.Seal) seals its data packets: a sealed packet (kind 7) is
// the data packet's magic, kind and token in clear, then its counter and
// the rest of the data packet encrypted with ChaCha20-Poly1305, and the
// tag; a packet that does not open, or whose counter was seen or is too
// old, is dropped and counted (Stats.Unauthentic). The client's end
// sends in clear until the server's first sealed packet opens.
//
// Before an address is proven, no answer is larger than the packet that
// provoked it, so the server amplifies nothing: a connect (35 bytes) is
// padded to the size of a response and answered by a challenge (34); a
// response (35) by an accept (18); anything else, a malformed or cut
// packet, a forged or expired cookie, by nothing.
//
// # Packets
//
// Fixed-size integers are little-endian; "varint" is encoding/binary's
// unsigned varint, in its shortest form. A packet is at most MaxPacket
// (1,180) bytes: under 1,200, which crosses any IPv4 or IPv6 path whole.
//
//	magic   uint8   0xB7
//	kind    uint8   1 connect, 2 accept, 3 data, 4 close, 5 challenge, 6 response, 7 sealed
//
//	connect:   version uint8 (2), nonce uint64, 24 zero bytes
//	challenge: nonce uint64, cookie
//	response:  version uint8 (2), nonce uint64, cookie
//	cookie:    time uint64 (the server's, in ms), MAC [16]byte
//	accept:    nonce uint64, token uint64
//	sealed:  token uint64, counter uint64, then the data packet's bytes
//	         after its token, encrypted, and a 16-byte tag
//	close:   token uint64
//	data:    token    uint64
//	         seq      varint  the packet's number (for the loss count)
//	         tick ack varint  every tick item below this index arrived
//	         rel ack  varint  every reliable segment below this one arrived
//	         rel bits varint  bit i: segment rel ack+1+i arrived
//	         chunks, in this order of kind:
//	           1 ticks:   type uint8 (Input 4, Confirmed 5), index varint,
//	                      tick varint, records before varint, count uint8 (1..255),
//	                      count x (length varint, the tick's body as in its wire message)
//	           2 segment: seq varint, length varint, bytes
//	           3 message: records before varint, length varint, a Ping or Pong message
//
// A player's packet at 60 Hz is about 60 bytes: 14 of header, a run of
// the few inputs in flight.
//
// The reliable stream is records: tick items before uint32, kind uint8
// (0 data, 1 end of stream), length uint32, then the bytes (a preamble or
// a wire message).
//
// # Limits
//
// A receiver holds at most 8,192 tick items and 64 segments beyond what
// it has delivered, a record of at most its cap (the encoded size of the largest
// message it accepts), and 4 MiB plus that cap for a reader that does not
// read; beyond those it drops the peer's data unacknowledged, and the
// peer sends it again. A sender keeps at most 65,536 unacknowledged tick
// items and wire.MaxServerMessage plus 16 MiB of reliable bytes: beyond,
// Write fails. A Listener drops, and reports to ListenConfig.Drop, every
// packet that is malformed (parsed field by field, never a panic), too
// large, from an unknown address, with a wrong token or cookie, beyond a
// connection's 1,000 packets a second, or a response beyond the backlog.
// A stream that breaks the rules (a record over the cap, ticks and records
// that wait for each other) makes Read fail with an error that says so.
package udp
