package physics

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"unsafe"

	"github.com/nebulaengine/nebula/engine"
)

// Contacts is the contact cache, the world resource "physics.contacts":
// every pair of bodies whose shapes touched or nearly touched at the end
// of the last step, with the impulses the solver found for each point.
// The next step starts its solver from those impulses (warm starting),
// keeps the manifolds of sleeping bodies without recomputing them (and
// those of box pairs that have barely moved against each other: the pose
// their points were found at is kept with them), and
// compares its touching pairs with these to report begin and end events.
// It is part of the world's state, so a snapshot, a rollback or a replay
// carries it and the step after a LoadState gives the same bits as the
// step after the SaveState did.
//
// The manifolds are sorted by their pair's slots (A's, then B's; A in the
// lower slot). Contacts encodes itself with AppendBinary and
// UnmarshalBinary in a little-endian layout of its own.
type Contacts struct {
	m []cachedManifold
}

// Len returns the number of cached manifolds.
func (c *Contacts) Len() int { return len(c.m) }

// Touching returns the number of cached manifolds whose shapes touch.
func (c *Contacts) Touching() int {
	n := 0
	for i := range c.m {
		if c.m[i].touching {
			n++
		}
	}
	return n
}

// cachedPoint is a contact point as the cache keeps it.
type cachedPoint struct {
	id       uint32
	p        vec3    // world position at the end of the step's narrow phase
	sep      float32 // separation then
	normal   float32 // normal impulse the solver applied (per substep)
	friction vec3    // its share of the manifold's patch friction impulse (per substep), world frame (patchFriction)
	impulse  float32 // normal impulse applied in the step, N·s (0 when the pair was not solved)
}

// cachedManifold is the contact of one pair of bodies.
type cachedManifold struct {
	a, b     engine.Entity // a in the lower slot
	sub      uint32        // the manifold's sub: a mesh's triangle, compound parts, 0 otherwise
	normal   vec3          // from a to b
	n        uint8         // points used
	touching bool          // some point has sep <= 0 (sensors: the shapes overlap)
	sensor   bool          // one of the two is a sensor
	reusable bool          // reuse holds: a box–box manifold (manifoldreuse.go)
	pts      [maxPoints]cachedPoint
	reuse    boxReuse
}

// key returns the manifold's sort key.
func (m *cachedManifold) key() uint64 {
	return uint64(m.a.Index())<<32 | uint64(m.b.Index())
}

// before reports whether m comes before o in the cache: by key, then sub.
func (m *cachedManifold) before(o *cachedManifold) bool {
	return m.key() < o.key() || m.key() == o.key() && m.sub < o.sub
}

// The encoding: a version byte, a uint32 count, then per manifold the two
// entities (slot and generation, uint32 each), the sub, the normal, a flags byte
// (touching 1, sensor 2, reusable 4), the point count byte and for each
// point id, position, separation, normal impulse, friction impulse and
// (version 2) the step's normal impulse; then (version 3), when reusable,
// the reuse data: the relative rotation and centre, the normal, the two
// half extents and each point's two ends. UnmarshalBinary reads versions 1
// and 2 too (their manifolds are not reused).
const (
	contactsVersion   = 3
	manifoldHeadBytes = 4*4 + 4 + 3*4 + 2
	pointBytes        = 4 + 3*4 + 4 + 4 + 3*4 + 4
	pointBytesV1      = pointBytes - 4
	reuseHeadBytes    = 4*4 + 4*3*4
	reusePointBytes   = 2 * 3 * 4
	maxCacheManifolds = 1 << 24
)

// AppendBinary appends the cache's encoding to b.
func (c Contacts) AppendBinary(b []byte) ([]byte, error) {
	b = append(b, contactsVersion)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(c.m)))
	for i := range c.m {
		m := &c.m[i]
		ai, ag := entityBits(m.a)
		bi, bg := entityBits(m.b)
		b = binary.LittleEndian.AppendUint32(b, ai)
		b = binary.LittleEndian.AppendUint32(b, ag)
		b = binary.LittleEndian.AppendUint32(b, bi)
		b = binary.LittleEndian.AppendUint32(b, bg)
		b = binary.LittleEndian.AppendUint32(b, m.sub)
		b = appendVec3(b, m.normal)
		var flags byte
		if m.touching {
			flags |= 1
		}
		if m.sensor {
			flags |= 2
		}
		if m.reusable {
			flags |= 4
		}
		b = append(b, flags, m.n)
		for j := range int(m.n) {
			p := &m.pts[j]
			b = binary.LittleEndian.AppendUint32(b, p.id)
			b = appendVec3(b, p.p)
			b = appendFloat(b, p.sep)
			b = appendFloat(b, p.normal)
			b = appendVec3(b, p.friction)
			b = appendFloat(b, p.impulse)
		}
		if m.reusable {
			r := &m.reuse
			b = appendVec3(appendFloat(b, r.relQ.x), vec3{r.relQ.y, r.relQ.z, r.relQ.w})
			b = appendVec3(appendVec3(appendVec3(appendVec3(b, r.relP), r.normal), r.ha), r.hb)
			for j := range int(m.n) {
				b = appendVec3(appendVec3(b, r.la[j]), r.lb[j])
			}
		}
	}
	return b, nil
}

// UnmarshalBinary replaces the cache with what AppendBinary wrote in b.
func (c *Contacts) UnmarshalBinary(b []byte) error {
	if len(b) < 5 {
		return errors.New("physics: contacts: truncated header")
	}
	pb, version := pointBytes, b[0]
	switch version {
	case contactsVersion, 2:
	case 1:
		pb = pointBytesV1
	default:
		return fmt.Errorf("physics: contacts: version %d, want 1 to %d", b[0], contactsVersion)
	}
	n := binary.LittleEndian.Uint32(b[1:])
	if n > maxCacheManifolds || int(n) > len(b)/manifoldHeadBytes {
		return fmt.Errorf("physics: contacts: %d manifolds in %d bytes", n, len(b))
	}
	b = b[5:]
	c.m = c.m[:0]
	for i := range int(n) {
		if len(b) < manifoldHeadBytes {
			return fmt.Errorf("physics: contacts: manifold %d truncated", i)
		}
		var m cachedManifold
		le := binary.LittleEndian
		m.a = entityFrom(le.Uint32(b[0:]), le.Uint32(b[4:]))
		m.b = entityFrom(le.Uint32(b[8:]), le.Uint32(b[12:]))
		m.sub = le.Uint32(b[16:])
		m.normal = readVec3(b[20:])
		flags, np := b[32], b[33]
		allowed := byte(3)
		if version == contactsVersion {
			allowed = 7
		}
		if flags&^allowed != 0 || np > maxPoints {
			return fmt.Errorf("physics: contacts: manifold %d has flags %#x and %d points (at most %d)", i, flags, np, maxPoints)
		}
		m.touching, m.sensor, m.reusable, m.n = flags&1 != 0, flags&2 != 0, flags&4 != 0, np
		b = b[manifoldHeadBytes:]
		if len(b) < int(np)*pb {
			return fmt.Errorf("physics: contacts: manifold %d's points truncated", i)
		}
		for j := range int(np) {
			p := &m.pts[j]
			p.id = le.Uint32(b)
			p.p = readVec3(b[4:])
			p.sep = readFloat(b[16:])
			p.normal = readFloat(b[20:])
			p.friction = readVec3(b[24:])
			if pb == pointBytes {
				p.impulse = readFloat(b[36:])
			}
			b = b[pb:]
		}
		if m.reusable {
			if len(b) < reuseHeadBytes+int(np)*reusePointBytes {
				return fmt.Errorf("physics: contacts: manifold %d's reuse data truncated", i)
			}
			r := &m.reuse
			r.relQ = quat{readFloat(b), readFloat(b[4:]), readFloat(b[8:]), readFloat(b[12:])}
			r.relP, r.normal, r.ha, r.hb = readVec3(b[16:]), readVec3(b[28:]), readVec3(b[40:]), readVec3(b[52:])
			b = b[reuseHeadBytes:]
			for j := range int(np) {
				r.la[j], r.lb[j] = readVec3(b), readVec3(b[12:])
				b = b[reusePointBytes:]
			}
		}
		if i > 0 && !c.m[i-1].before(&m) || m.a.Index() >= m.b.Index() {
			return fmt.Errorf("physics: contacts: manifold %d (%v, %v) is out of order", i, m.a, m.b)
		}
		c.m = append(c.m, m)
	}
	if len(b) != 0 {
		return fmt.Errorf("physics: contacts: %d bytes left over", len(b))
	}
	return nil
}

func appendFloat(b []byte, f float32) []byte {
	return binary.LittleEndian.AppendUint32(b, math.Float32bits(f))
}

func appendVec3(b []byte, v vec3) []byte {
	return appendFloat(appendFloat(appendFloat(b, v.x), v.y), v.z)
}

func readFloat(b []byte) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(b)) }

func readVec3(b []byte) vec3 { return vec3{readFloat(b), readFloat(b[4:]), readFloat(b[8:])} }

// entityBits returns e's slot and generation. engine.Entity is two uint32s
// (slot, generation) and gives no other way to read the generation; the
// cache needs it to encode the entities it names (TestEntityBits checks
// the layout).
func entityBits(e engine.Entity) (index, gen uint32) {
	p := (*[2]uint32)(unsafe.Pointer(&e))
	return p[0], p[1]
}

// entityFrom is entityBits' inverse.
func entityFrom(index, gen uint32) engine.Entity {
	var e engine.Entity
	p := (*[2]uint32)(unsafe.Pointer(&e))
	p[0], p[1] = index, gen
	return e
}

// Compile-time check that engine.Entity is 8 bytes.
var _ [8 - unsafe.Sizeof(engine.Entity{})]struct{}
var _ [unsafe.Sizeof(engine.Entity{}) - 8]struct{}
