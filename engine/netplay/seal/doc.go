// Package seal encrypts and authenticates a connection's traffic after
// its handshake, with the session keys a connect token gave both ends
// (package token): ChaCha20-Poly1305, one key per direction, the nonce a
// counter of what that direction sent, so that nobody on the path reads
// the inputs and confirmed ticks or alters, forges, replays or reorders
// them unseen.
//
// The keys of a connection are derived (HKDF-SHA256) from the token's
// two keys and a salt the client draws for each connection (ClientKeys,
// ServerKeys), so a token that connects twice (a rejoin) seals each
// connection under keys of its own.
//
// Over a stream (TCP) a Conn wraps the connection: the protocol above
// writes and reads the same messages, and the Conn seals each write into
// frames and opens them back; a frame that does not open ends the
// stream with ErrAuth. Over UDP, package udp seals each datagram after
// its header with Packets, which also refuses a packet it has seen
// (ErrReplay); a packet that does not open is dropped and counted.
//
//	c := seal.NewConn(tcpConn, wire.PreambleSize) // in clear: the handshake
//	// ... the client's preamble and Hello, with its token and salt ...
//	keys := seal.ServerKeys([32]byte(claims.Keys.ClientToServer), [32]byte(claims.Keys.ServerToClient), hello.Salt)
//	c.SealReads(keys.Recv, false)
//	c.SealWrites(keys.Send) // every byte from here on is sealed
//
// The cost of a sealed message, measured by BenchmarkStream and
// BenchmarkPackets: 21 bytes a frame and 24 a datagram, and the time of
// one ChaCha20-Poly1305 seal and open of its bytes.
package seal
