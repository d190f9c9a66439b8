package seal

import (
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/binary"

	"golang.org/x/crypto/chacha20poly1305"
)

// The sizes of the sealing.
const (
	// KeySize is the bytes of a key.
	KeySize = chacha20poly1305.KeySize
	// SaltSize is the bytes of a connection's salt.
	SaltSize = 16
	// Overhead is the bytes an AEAD tag adds to each sealed frame or
	// packet.
	Overhead = chacha20poly1305.Overhead
)

// Keys are one end's session keys of one connection: it seals what it
// sends under Send and opens what it receives under Recv.
type Keys struct {
	Send [KeySize]byte // seals what this end sends
	Recv [KeySize]byte // opens what it receives
}

// ClientKeys and ServerKeys derive a connection's session keys, for the
// client's end and for the server's, from the two keys a connect token
// carries (client to server, server to client) and the salt the client
// drew for the connection: each is HKDF-SHA256 of the token's key with
// the salt, so that a token used for two connections (a rejoin) never
// seals two streams under one key and one nonce.
func ClientKeys(c2s, s2c [KeySize]byte, salt [SaltSize]byte) Keys {
	return Keys{Send: derive(c2s, salt, "nebula seal c2s"), Recv: derive(s2c, salt, "nebula seal s2c")}
}

// ServerKeys: see ClientKeys.
func ServerKeys(c2s, s2c [KeySize]byte, salt [SaltSize]byte) Keys {
	return Keys{Send: derive(s2c, salt, "nebula seal s2c"), Recv: derive(c2s, salt, "nebula seal c2s")}
}

func derive(key [KeySize]byte, salt [SaltSize]byte, info string) [KeySize]byte {
	b, err := hkdf.Key(sha256.New, key[:], salt[:], info, KeySize)
	if err != nil {
		panic("seal: " + err.Error()) // 32 bytes of SHA-256: unreachable
	}
	return [KeySize]byte(b)
}

// nonce writes the nonce of message counter n: the counter in its first
// 8 bytes, little-endian, then zeros (every key seals one direction of
// one connection, so a counter never repeats under a key).
func nonce(b *[chacha20poly1305.NonceSize]byte, n uint64) []byte {
	binary.LittleEndian.PutUint64(b[:], n)
	return b[:]
}
