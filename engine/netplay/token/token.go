package token

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"golang.org/x/crypto/chacha20poly1305"
)

// The layout's constants.
const (
	// Version is the token format this package mints and opens.
	Version = 1
	// KeySize is the bytes of the server's Key and of each SessionKey.
	KeySize = chacha20poly1305.KeySize
	// IDSize is the bytes of a token's ID, which is also the nonce its
	// private part is sealed with (XChaCha20-Poly1305's 24-byte nonce:
	// random nonces never collide in practice).
	IDSize = chacha20poly1305.NonceSizeX
	// MaxMatchID is the most bytes of a match id.
	MaxMatchID = 64
	// MaxTTL is the longest life Mint gives a token.
	MaxTTL = 24 * time.Hour
	// privateSize is the bytes of the sealed part, before its tag: the
	// seat and the two session keys.
	privateSize = 2 + 2*KeySize
	tagSize     = chacha20poly1305.Overhead
	// headerSize is the bytes before the match id: version, expiry,
	// match id length.
	headerSize = 1 + 8 + 1
	// MinSize and MaxSize bound a token's bytes: a match id of 1 to
	// MaxMatchID bytes.
	MinSize = headerSize + 1 + IDSize + privateSize + tagSize
	MaxSize = MinSize - 1 + MaxMatchID
)

// Key is the secret a match server holds (and the matchmaker that mints
// its tokens): tokens are sealed under it. Make one with GenerateKey and
// keep it in a key file (SaveKeyFile, LoadKeyFile).
type Key [KeySize]byte

// SessionKey is a key of one direction of a connection, which the token
// carries sealed and the matchmaker hands the client in clear. Its text
// form (JSON, key files) is standard base64.
type SessionKey [KeySize]byte

// MarshalText returns the key in standard base64.
func (k SessionKey) MarshalText() ([]byte, error) {
	return base64.StdEncoding.AppendEncode(nil, k[:]), nil
}

// UnmarshalText reads a key in standard base64.
func (k *SessionKey) UnmarshalText(b []byte) error {
	n, err := base64.StdEncoding.Decode(k[:], b)
	if err != nil || n != KeySize || base64.StdEncoding.DecodedLen(len(b)) > KeySize+2 {
		return fmt.Errorf("token: a session key is %d bytes in standard base64 (%d characters)", KeySize, base64.StdEncoding.EncodedLen(KeySize))
	}
	return nil
}

// Keys are a connection's two session keys: what the client sends is
// sealed under ClientToServer, what the server sends under
// ServerToClient (package seal derives each connection's own keys from
// them).
type Keys struct {
	ClientToServer SessionKey `json:"client_to_server"` // seals what the client sends
	ServerToClient SessionKey `json:"server_to_client"` // seals what the server sends
}

// Seat is the seat a token gives its holder: a player's number (0 to
// 255, the match's wire.PlayerID) or Spectator.
type Seat uint16

// Spectator is the seat of a spectator's token.
const Spectator Seat = 0xFFFF

// MaxSeat is the highest player seat.
const MaxSeat Seat = 255

// ID identifies a token: the server refuses a token already in use, or
// used (see the netplay package's rejoin rule).
type ID [IDSize]byte

// String returns the ID's first 8 bytes in hex: enough for logs.
func (id ID) String() string { return fmt.Sprintf("%x", id[:8]) }

// Request is what a matchmaker asks a token for.
type Request struct {
	MatchID string        // the match the token opens (1 to MaxMatchID bytes)
	Seat    Seat          // the holder's seat
	TTL     time.Duration // how long the token opens a connection (0 < TTL <= MaxTTL)
}

// Credentials are a minted token and what its holder needs besides it.
// The matchmaker hands them to the client over a secure channel (HTTPS):
// Keys are secret. Its JSON form is what `nebula-server token` prints.
type Credentials struct {
	// Token is the sealed token, opaque to the client: it sends it to
	// the server in its Hello.
	Token   []byte    `json:"token"`
	Keys    Keys      `json:"keys"`     // the session keys: secret, the client's alone
	MatchID string    `json:"match_id"` // the match the token opens
	Seat    Seat      `json:"seat"`     // the seat it gives (65535: a spectator)
	Expires time.Time `json:"expires"`  // it opens no connection from then on
	ID      ID        `json:"-"`        // its ID (inside Token)
}

// Claims are what Open finds in a valid token.
type Claims struct {
	MatchID string    // the match it is for (the Opener's)
	Seat    Seat      // the seat it gives
	Expires time.Time // when it stops opening connections
	ID      ID        // its ID, for the server's table of tokens seen
	Keys    Keys      // the connection's session keys
}

// Minter mints tokens under a Key. It is safe for concurrent use.
type Minter struct {
	aead interface {
		Seal(dst, nonce, plaintext, additionalData []byte) []byte
	}
}

// NewMinter returns a Minter of tokens sealed under key.
func NewMinter(key Key) *Minter {
	a, err := chacha20poly1305.NewX(key[:])
	if err != nil {
		panic("token: " + err.Error()) // the key's size is fixed: unreachable
	}
	return &Minter{aead: a}
}

// Mint mints a token for req at now, with fresh random session keys and
// ID. The expiry is kept to the millisecond.
func (m *Minter) Mint(req Request, now time.Time) (Credentials, error) {
	switch {
	case len(req.MatchID) < 1 || len(req.MatchID) > MaxMatchID:
		return Credentials{}, fmt.Errorf("token: match id %q: must be 1 to %d bytes", req.MatchID, MaxMatchID)
	case req.Seat > MaxSeat && req.Seat != Spectator:
		return Credentials{}, fmt.Errorf("token: seat %d: must be 0 to %d, or Spectator", uint16(req.Seat), MaxSeat)
	case req.TTL <= 0 || req.TTL > MaxTTL:
		return Credentials{}, fmt.Errorf("token: time to live %v: must be above 0 and at most %v", req.TTL, MaxTTL)
	}
	c := Credentials{MatchID: req.MatchID, Seat: req.Seat, Expires: now.Add(req.TTL).Truncate(time.Millisecond)}
	var secret [IDSize + 2*KeySize]byte
	if _, err := rand.Read(secret[:]); err != nil {
		return Credentials{}, fmt.Errorf("token: no randomness: %w", err)
	}
	copy(c.ID[:], secret[:IDSize])
	copy(c.Keys.ClientToServer[:], secret[IDSize:])
	copy(c.Keys.ServerToClient[:], secret[IDSize+KeySize:])
	b := make([]byte, 0, MinSize-1+len(req.MatchID))
	b = append(b, Version)
	b = binary.LittleEndian.AppendUint64(b, uint64(c.Expires.UnixMilli()))
	b = append(b, byte(len(req.MatchID)))
	b = append(b, req.MatchID...)
	b = append(b, c.ID[:]...)
	var private [privateSize]byte
	binary.LittleEndian.PutUint16(private[:], uint16(req.Seat))
	copy(private[2:], c.Keys.ClientToServer[:])
	copy(private[2+KeySize:], c.Keys.ServerToClient[:])
	c.Token = m.aead.Seal(b, c.ID[:], private[:], b)
	return c, nil
}

// Mint mints one token under key: NewMinter(key).Mint(req, now).
func Mint(key Key, req Request, now time.Time) (Credentials, error) {
	return NewMinter(key).Mint(req, now)
}

// The faults Open finds, one sentinel each, for errors.Is; Reason turns
// each into a label for a metric.
var (
	ErrSize    = errors.New("token: wrong size")
	ErrVersion = errors.New("token: unknown version")
	ErrExpired = errors.New("token: expired")
	ErrMatch   = errors.New("token: for another match")
	// ErrForged: the sealed part does not open under the server's key:
	// the token was altered, forged, or minted under another key.
	ErrForged = errors.New("token: forged or sealed under another key")
)

// Reason returns the label of Open's error err, fit for a metric and for
// netplay.ServerTrace.HandshakeRefused: "token-size", "token-version",
// "token-expired", "token-match" or "token-forged"; "token" for another
// error.
func Reason(err error) string {
	switch {
	case errors.Is(err, ErrSize):
		return "token-size"
	case errors.Is(err, ErrVersion):
		return "token-version"
	case errors.Is(err, ErrExpired):
		return "token-expired"
	case errors.Is(err, ErrMatch):
		return "token-match"
	case errors.Is(err, ErrForged):
		return "token-forged"
	}
	return "token"
}

// expiredError is Open's error for a token that expired that many
// milliseconds ago: its text is made only when asked for, so that a
// flood of expired tokens costs no formatting.
type expiredError int64

func (e expiredError) Error() string {
	return fmt.Sprintf("%v: %v ago", ErrExpired, time.Duration(e)*time.Millisecond)
}

// Is makes errors.Is(err, ErrExpired) true.
func (expiredError) Is(target error) bool { return target == ErrExpired }

// Opener opens the tokens of one match under a Key. It is safe for
// concurrent use.
type Opener struct {
	matchID string
	aead    interface {
		Open(dst, nonce, ciphertext, additionalData []byte) ([]byte, error)
	}
}

// NewOpener returns an Opener of the tokens of matchID sealed under key.
func NewOpener(key Key, matchID string) *Opener {
	a, err := chacha20poly1305.NewX(key[:])
	if err != nil {
		panic("token: " + err.Error()) // the key's size is fixed: unreachable
	}
	return &Opener{matchID: matchID, aead: a}
}

// Open checks token at now and returns its claims. It checks, cheapest
// first, and stops at the first fault: the size, the version, the expiry
// (a token expires at its Expires: now must be before it), the match id,
// then the seal (one XChaCha20-Poly1305 open, which authenticates the
// clear fields too). It never panics on bad input.
func (o *Opener) Open(token []byte, now time.Time) (Claims, error) {
	var c Claims
	if len(token) < MinSize || len(token) > MaxSize {
		return c, fmt.Errorf("%w: %d bytes, a token has %d to %d", ErrSize, len(token), MinSize, MaxSize)
	}
	if token[0] != Version {
		return c, fmt.Errorf("%w: version %d, this server opens version %d", ErrVersion, token[0], Version)
	}
	expires := int64(binary.LittleEndian.Uint64(token[1:]))
	if now.UnixMilli() >= expires {
		return c, expiredError(now.UnixMilli() - expires)
	}
	n := int(token[headerSize-1])
	if len(token) != MinSize-1+n {
		return c, fmt.Errorf("%w: %d bytes, a token of a %d-byte match id has %d", ErrSize, len(token), n, MinSize-1+n)
	}
	if string(token[headerSize:headerSize+n]) != o.matchID {
		return c, fmt.Errorf("%w: this server runs match %q", ErrMatch, o.matchID)
	}
	clear := headerSize + n + IDSize
	var private [privateSize]byte
	if _, err := o.aead.Open(private[:0], token[headerSize+n:clear], token[clear:], token[:clear]); err != nil {
		return c, ErrForged
	}
	c.MatchID = o.matchID
	c.Expires = time.UnixMilli(expires)
	copy(c.ID[:], token[headerSize+n:clear])
	c.Seat = Seat(binary.LittleEndian.Uint16(private[:]))
	copy(c.Keys.ClientToServer[:], private[2:])
	copy(c.Keys.ServerToClient[:], private[2+KeySize:])
	if c.Seat > MaxSeat && c.Seat != Spectator {
		// Sealed under the server's key, so minted by its matchmaker:
		// a minter that broke the rules, not an attacker.
		return Claims{}, fmt.Errorf("%w: seat %d out of range", ErrForged, uint16(c.Seat))
	}
	return c, nil
}
