package netplay

import (
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/nebulaengine/nebula/engine/netplay/seal"
	"github.com/nebulaengine/nebula/engine/netplay/token"
	"github.com/nebulaengine/nebula/engine/netplay/udp"
	"github.com/nebulaengine/nebula/engine/netplay/wire"
)

// refused tells the trace that a connection was refused before it
// joined the match, with reason's label.
func (s *Server) refused(reason string) {
	if t := s.cfg.Trace; t != nil && t.HandshakeRefused != nil {
		t.HandshakeRefused(reason)
	}
}

// A tokenRefusal is why a connect token is refused: the label for the
// trace, and the refusal the client is sent.
type tokenRefusal struct {
	label string
	err   error
}

func (r *tokenRefusal) Error() string { return r.err.Error() }

// checkToken checks the connect token of hello, a client's on p, when
// the server requires tokens: the token opens (token.Opener.Open), its
// seat fits the client's role, and it is not in use or used (tokenTable).
// It returns the token's claims and its entry in the table (nil for a
// spectator let in without a token).
func (s *Server) checkToken(hello *wire.Hello) (token.Claims, *tokenUse, error) {
	refuse := func(label, format string, args ...any) (token.Claims, *tokenUse, error) {
		return token.Claims{}, nil, &tokenRefusal{label, fmt.Errorf(format, args...)}
	}
	if s.opener == nil {
		if len(hello.Token) > 0 {
			return refuse("token-unexpected", "this server takes no connect tokens: connect without one")
		}
		return token.Claims{}, nil, nil
	}
	if len(hello.Token) == 0 {
		if hello.Role == wire.RoleSpectator && s.cfg.SpectatorsWithoutToken {
			return token.Claims{}, nil, nil
		}
		return refuse("token-missing", "this server requires a connect token (from its matchmaker)")
	}
	now := time.Now()
	claims, err := s.opener.Open(hello.Token, now)
	if err != nil {
		return token.Claims{}, nil, &tokenRefusal{token.Reason(err), err}
	}
	if (claims.Seat == token.Spectator) != (hello.Role == wire.RoleSpectator) {
		return refuse("token-role", "the token is a %s's, and this client joins as a %v", roleOfSeat(claims.Seat), hello.Role)
	}
	if claims.Seat != token.Spectator && int(claims.Seat) >= s.cfg.MaxPlayers {
		return refuse("token-seat", "the token's seat %d is beyond this match's %d players", claims.Seat, s.cfg.MaxPlayers)
	}
	use, label, err := s.tokens.claim(claims, hello.Salt, now, s.cfg.RejoinGrace)
	if err != nil {
		return token.Claims{}, nil, &tokenRefusal{label, err}
	}
	return claims, use, nil
}

func roleOfSeat(s token.Seat) string {
	if s == token.Spectator {
		return "spectator"
	}
	return "player"
}

// seal seals p's connection after its handshake with the session keys
// of claims and the client's salt.
func (s *Server) seal(p *peer, claims token.Claims, salt [wire.SaltSize]byte) {
	keys := seal.ServerKeys([seal.KeySize]byte(claims.Keys.ClientToServer), [seal.KeySize]byte(claims.Keys.ServerToClient), salt)
	switch c := p.conn.(type) {
	case *udp.Conn:
		c.Seal(seal.NewPackets(keys))
	case *seal.Conn:
		c.SealReads(keys.Recv, false)
		c.SealWrites(keys.Send)
	}
}

// sealClient readies a client's connection conn for its token: hello
// gets the token and a new random salt, and the connection is sealed
// with the session keys they make, over UDP by the transport, over TCP
// by a seal.Conn whose writes are sealed once sealWrites is called
// (after the Hello).
//
//srccheck:wrapped by Dial, as "netplay: client: ..."
func sealClient(conn net.Conn, hello *wire.Hello, cr *token.Credentials) (net.Conn, func(), error) {
	if _, err := rand.Read(hello.Salt[:]); err != nil {
		return conn, nil, fmt.Errorf("netplay: client: no randomness for the connection's salt: %w", err)
	}
	hello.Token = cr.Token
	keys := seal.ClientKeys([seal.KeySize]byte(cr.Keys.ClientToServer), [seal.KeySize]byte(cr.Keys.ServerToClient), hello.Salt)
	if uc, ok := conn.(*udp.Conn); ok {
		uc.Seal(seal.NewPackets(keys))
		return conn, nil, nil
	}
	sc := seal.NewConn(conn, wire.PreambleSize)
	sc.SealReads(keys.Recv, true)
	return sc, func() { sc.SealWrites(keys.Send) }, nil
}

// tokenTable is the connect tokens a server has seen, by ID: a token in
// use by a connection is refused; one whose connection ended comes back
// only within the rejoin grace (to take its seat back), and never with a
// salt it came with before (a recorded Hello played again). An entry is
// forgotten once its token has expired (the token opens nothing then),
// or when the match refused the token's client (it may try again).
type tokenTable struct {
	mu    sync.Mutex
	m     map[token.ID]*tokenUse
	sweep int // the table's size that triggers the next sweep
}

// tokenUse is a token's entry.
type tokenUse struct {
	id      token.ID
	expires time.Time
	live    bool      // a connection holds it
	ended   time.Time // when its last connection ended
	salts   [][wire.SaltSize]byte
}

// maxRejoins bounds the connections a token makes (its salts kept).
const maxRejoins = 64

// claim records that a connection holds the token of claims, or says why
// it may not (the trace's label, and the error).
//
//srccheck:wrapped by Server.handshake into the text of a Refuse, which the client's error quotes ("netplay: client: server ...: refused: token refused: ...")
func (t *tokenTable) claim(claims token.Claims, salt [wire.SaltSize]byte, now time.Time, grace time.Duration) (*tokenUse, string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m == nil {
		t.m, t.sweep = map[token.ID]*tokenUse{}, 64
	}
	if len(t.m) >= t.sweep {
		for id, u := range t.m {
			if !u.live && !now.Before(u.expires) {
				delete(t.m, id)
			}
		}
		t.sweep = max(64, 2*len(t.m))
	}
	u := t.m[claims.ID]
	switch {
	case u == nil:
		u = &tokenUse{id: claims.ID, expires: claims.Expires, live: true, salts: [][wire.SaltSize]byte{salt}}
		t.m[claims.ID] = u
		return u, "", nil
	case u.live:
		return nil, "token-in-use", errors.New("the token is in use by another connection")
	case grace == 0:
		return nil, "token-used", errors.New("the token was used already (this match keeps no seat for a player that left)")
	case now.Sub(u.ended) > grace:
		return nil, "token-used", fmt.Errorf("the token was used already, and its connection ended more than the rejoin grace (%v) ago", grace)
	case len(u.salts) >= maxRejoins:
		return nil, "token-used", fmt.Errorf("the token has connected %d times, the most one may", maxRejoins)
	}
	for _, s := range u.salts {
		if s == salt {
			return nil, "token-replayed", errors.New("the token came with a salt it came with before (a recorded handshake played again)")
		}
	}
	u.live = true
	u.salts = append(u.salts, salt)
	return u, "", nil
}

// end records that the connection holding u ended at now.
func (t *tokenTable) end(u *tokenUse, now time.Time) {
	if u == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m[u.id] == u && u.live {
		u.live, u.ended = false, now
	}
}

// expire marks u's token used for good: its player's seat was freed
// once the rejoin grace was over.
func (t *tokenTable) expire(u *tokenUse) {
	if u == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m[u.id] == u && !u.live {
		u.ended = time.Time{}
	}
}

// forget undoes the claim of u: the match refused its client (full, its
// seat taken), and its token may try again.
func (t *tokenTable) forget(u *tokenUse) {
	if u == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case t.m[u.id] != u:
	case len(u.salts) == 1:
		delete(t.m, u.id)
	default:
		u.live = false
	}
}
