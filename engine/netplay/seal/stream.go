package seal

import (
	"crypto/cipher"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"

	"golang.org/x/crypto/chacha20poly1305"
)

// Frame layout constants of a stream (TCP).
const (
	// FrameType is the byte after a sealed frame's length: no message of
	// the protocol has it, so a reader tells a sealed frame from a
	// message in clear.
	FrameType = 0xA5
	// MaxFrame is the most plaintext bytes of one frame: a longer write
	// is cut into frames.
	MaxFrame = 64 << 10
	// frameHeader is the length and the type byte.
	frameHeader = 4 + 1
	// refuseType is the protocol's Refuse message type (wire.TypeRefuse,
	// 3 in every version): the only message a client reads in clear
	// after its Hello (a server refusing its token has no keys).
	refuseType = 3
)

// ErrAuth is the error of a frame or a packet that does not open: it was
// altered, forged, replayed, or comes out of order.
var ErrAuth = errors.New("seal: message authentication failed")

// Conn is a stream connection (TCP) whose bytes, after the handshake,
// travel in sealed frames: each Write is sealed (ChaCha20-Poly1305 under
// the session key of its direction, the nonce a counter of the frames
// sent) into frames of at most MaxFrame bytes of plaintext:
//
//	length  uint32  the bytes after it: 1 + ciphertext + 16
//	type    uint8   FrameType
//	sealed  the plaintext's bytes, encrypted, then the 16-byte tag; the
//	        length and the type are its additional data
//
// Read opens the frames and returns their plaintext, the stream of
// messages above unchanged. A frame that does not open (ErrAuth), or
// whose length or type is wrong, ends the stream: every later Read
// returns the error.
//
// Before it is keyed, a Conn passes bytes through in clear, but Read
// stops at the end of the preamble and of each message in clear (their
// length fields frame them), so a reader that reads ahead never reads
// past the message after which the stream is sealed. Writes are safe
// for concurrent use; reads are for one goroutine.
type Conn struct {
	net.Conn
	preamble int // bytes of preamble still to pass in clear

	// The reading side.
	recv       cipher.AEAD
	recvN      uint64 // frames opened
	plainFirst bool   // a message in clear may come before the first frame
	frameLeft  int    // in clear: bytes of the current message still to pass
	hdr        [frameHeader]byte
	hdrN       int
	body       []byte // the frame being read
	bodyN      int
	plain      []byte // opened, not yet read
	clearLeft  int    // bytes of a message in clear being passed after keying
	err        error
	rnonce     [chacha20poly1305.NonceSize]byte

	// The writing side.
	wmu    sync.Mutex
	send   cipher.AEAD
	sendN  uint64
	wbuf   []byte
	wnonce [chacha20poly1305.NonceSize]byte
}

// NewConn returns c, passing bytes in clear both ways until it is keyed
// (SealWrites, SealReads): preamble is the bytes of the preamble this
// side reads first (wire.PreambleSize), after which it reads messages.
func NewConn(c net.Conn, preamble int) *Conn {
	return &Conn{Conn: c, preamble: preamble}
}

func newAEAD(key [KeySize]byte) cipher.AEAD {
	a, err := chacha20poly1305.New(key[:])
	if err != nil {
		panic("seal: " + err.Error()) // the key's size is fixed: unreachable
	}
	return a
}

// SealWrites seals every Write from now on under key.
func (c *Conn) SealWrites(key [KeySize]byte) {
	c.wmu.Lock()
	c.send = newAEAD(key)
	c.wmu.Unlock()
}

// SealReads opens every frame read from now on under key; call it from
// the reading goroutine, between two messages. With plainFirst, one
// message in clear may come first, if it is a Refuse (a server that
// refuses a client's token has no keys to seal its refusal with); the
// stream ends after it.
func (c *Conn) SealReads(key [KeySize]byte, plainFirst bool) {
	c.recv, c.plainFirst = newAEAD(key), plainFirst
}

// Read reads the plaintext of the stream.
func (c *Conn) Read(p []byte) (int, error) {
	if len(c.plain) > 0 {
		n := copy(p, c.plain)
		c.plain = c.plain[n:]
		return n, nil
	}
	if c.err != nil {
		return 0, c.err
	}
	if c.recv == nil || c.preamble > 0 {
		return c.readClear(p)
	}
	if c.clearLeft > 0 {
		n, err := c.Conn.Read(p[:min(len(p), c.clearLeft)])
		c.clearLeft -= n
		if c.clearLeft == 0 && err == nil {
			c.err = fmt.Errorf("seal: the server refused this client in clear: %w", io.EOF)
		}
		return n, err
	}
	for {
		if c.hdrN < frameHeader {
			for c.hdrN < frameHeader {
				n, err := c.Conn.Read(c.hdr[c.hdrN:])
				c.hdrN += n
				if c.hdrN < frameHeader && err != nil {
					if err == io.EOF && c.hdrN > 0 {
						err = io.ErrUnexpectedEOF
					}
					return 0, c.keep(err)
				}
			}
			if err := c.header(); err != nil {
				return c.passClear(p, err)
			}
		}
		n, err := c.Conn.Read(c.body[c.bodyN:])
		c.bodyN += n
		if c.bodyN < len(c.body) {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			if err == nil {
				continue
			}
			return 0, c.keep(err)
		}
		if err := c.open(); err != nil {
			return 0, err
		}
		if len(c.plain) > 0 {
			k := copy(p, c.plain)
			c.plain = c.plain[k:]
			return k, nil
		}
	}
}

// errClear is header's answer to a message in clear that may pass.
var errClear = errors.New("seal: a message in clear")

// header checks a frame's header, once its bytes are in.
func (c *Conn) header() error {
	n := binary.LittleEndian.Uint32(c.hdr[:])
	if c.hdr[4] != FrameType {
		if c.plainFirst && c.recvN == 0 && c.hdr[4] == refuseType && n <= 1<<16 {
			return errClear
		}
		// A sealed peer never sends this: the stream was altered.
		return c.fail(fmt.Errorf("%w: a message in clear (type %d) where a sealed frame was due", ErrAuth, c.hdr[4]))
	}
	if n < 1+Overhead || n > 1+MaxFrame+Overhead {
		// The length is outside the seal, so an altered one shows here.
		return c.fail(fmt.Errorf("%w: a frame of %d bytes, want %d to %d", ErrAuth, n, 1+Overhead, 1+MaxFrame+Overhead))
	}
	if cap(c.body) < int(n)-1 {
		c.body = make([]byte, n-1, max(n-1, 4<<10))
	}
	c.body, c.bodyN = c.body[:n-1], 0
	return nil
}

// passClear returns the header of a message in clear that may pass, and
// lets its body through after it.
func (c *Conn) passClear(p []byte, err error) (int, error) {
	if err != errClear {
		return 0, err
	}
	c.plainFirst = false
	c.clearLeft = int(binary.LittleEndian.Uint32(c.hdr[:])) - 1
	c.plain = append(c.body[:0], c.hdr[:]...)
	c.hdrN = 0
	k := copy(p, c.plain)
	c.plain = c.plain[k:]
	return k, nil
}

// open opens the frame read in full.
func (c *Conn) open() error {
	out, err := c.recv.Open(c.body[:0], nonce(&c.rnonce, c.recvN), c.body, c.hdr[:])
	if err != nil {
		return c.fail(fmt.Errorf("%w: frame %d of %d bytes (altered, forged, replayed or out of order)", ErrAuth, c.recvN, len(c.body)))
	}
	c.recvN++
	c.plainFirst = false
	c.plain, c.hdrN = out, 0
	return nil
}

// keep returns err; io.EOF and faults of the stream stay: every later
// Read returns them.
func (c *Conn) keep(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		c.err = err
	}
	return err
}

func (c *Conn) fail(err error) error {
	c.err = err
	return err
}

// readClear passes bytes in clear, up to the end of the preamble or of
// the current message.
func (c *Conn) readClear(p []byte) (int, error) {
	if c.preamble > 0 {
		n, err := c.Conn.Read(p[:min(len(p), c.preamble)])
		c.preamble -= n
		return n, err
	}
	if c.frameLeft == 0 {
		// A message's length first, then its bytes.
		for c.hdrN < 4 {
			n, err := c.Conn.Read(c.hdr[c.hdrN:4])
			c.hdrN += n
			if c.hdrN < 4 && err != nil {
				if err == io.EOF && c.hdrN > 0 {
					err = io.ErrUnexpectedEOF
				}
				return 0, err
			}
		}
		c.hdrN = 0
		c.frameLeft = int(binary.LittleEndian.Uint32(c.hdr[:]))
		c.plain = append(c.plain[:0], c.hdr[:4]...)
		k := copy(p, c.plain)
		c.plain = c.plain[k:]
		return k, nil
	}
	n, err := c.Conn.Read(p[:min(len(p), c.frameLeft)])
	c.frameLeft -= n
	return n, err
}

// Write writes p, sealed once SealWrites was called.
func (c *Conn) Write(p []byte) (int, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.send == nil {
		return c.Conn.Write(p)
	}
	b := c.wbuf[:0]
	for rest := p; len(rest) > 0; {
		chunk := rest[:min(len(rest), MaxFrame)]
		rest = rest[len(chunk):]
		b = c.appendFrame(b, chunk)
	}
	_, err := c.Conn.Write(b)
	if cap(b) <= 1<<20 {
		c.wbuf = b
	} else {
		c.wbuf = nil
	}
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

// appendFrame appends plain, sealed in a frame, to b.
func (c *Conn) appendFrame(b, plain []byte) []byte {
	start := len(b)
	b = binary.LittleEndian.AppendUint32(b, uint32(1+len(plain)+Overhead))
	b = append(b, FrameType)
	b = c.send.Seal(b, nonce(&c.wnonce, c.sendN), plain, b[start:start+frameHeader])
	c.sendN++
	return b
}

// CloseWrite closes the sending side when the connection has one (a
// TCP connection's), and otherwise returns an error.
func (c *Conn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return errors.New("seal: the connection cannot close its sending side alone")
}
