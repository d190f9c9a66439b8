package physics

import (
	"errors"
	"fmt"

	"github.com/go-gl/mathgl/mgl32"
)

// Hull is a convex shape (the ConvexHull kind) made from points: the smallest convex
// solid holding them (or, past the vertex limit, the farthest of them).
// Like meshes and compounds it is an asset: a game builds the same hulls
// from the same points, in the same order, in every run, adds them to
// the Space (Space.AddConvexHull) and names one in a body's Shape
// (HullShape). Its vertices are kept relative to its centre of mass, so
// a body made of it has its position at that centre, as every other
// shape does (CenterOfMass says where that was among the points).
//
// Building is deterministic: the same points give the same hull, to the
// bit, on every machine (float64 arithmetic with every product rounded
// on its own, points taken farthest first, ties by index).
type Hull struct {
	verts []vec3 // relative to the centre of mass
	// faces are the hull's faces, each a convex polygon of vertex
	// indices in counter-clockwise order seen from outside.
	faces []hullFace
	idx   []uint16 // the faces' vertex indices
	next  []uint16 // for each entry of idx, the entry of the next corner of its face
	// edges are the directions of the hull's edges (each once), for the
	// separating-axis test.
	edges []vec3
	// edgeEnds are the hull's edges, each once: the vertices at its ends,
	// the lower first, in the order of the faces.
	edgeEnds [][2]uint16
	// adj lists each vertex's neighbours along the edges,
	// adj[adjStart[i]:adjStart[i+1]] for vertex i, in ascending order;
	// empty for a hull of at most climbMinVertices vertices, whose
	// support scans them all.
	adjStart, adj []uint16
	com           vec3 // the centre of mass, in the points' frame
	// At density 1: the volume, the principal axes (frame turns the
	// principal frame into the hull's) and the principal moments.
	volume  float32
	frame   quat
	moments vec3
}

// hullFace is one face of a hull: its outward unit normal, its plane's
// offset (dot(normal, x) = offset on it) and its corners idx[first :
// first+count].
type hullFace struct {
	normal       vec3
	offset       float32
	first, count uint16
}

// Limits of NewConvexHull.
const (
	// MaxHullVertices is the most vertices a hull keeps, and the
	// largest maxVertices NewConvexHull takes.
	MaxHullVertices = 256
	// MaxHullPoints is the most points NewConvexHull takes.
	MaxHullPoints = 1 << 16
	// DefaultHullVertices is the vertex limit a maxVertices of 0 asks
	// for.
	DefaultHullVertices = 64
)

// ErrFlatHull is returned by NewConvexHull when the points do not span a
// solid: fewer than four of them are not in one plane.
var ErrFlatHull = errors.New("physics: NewConvexHull: the points need at least 4 not in one plane (within 1 mm, or 1e-5 of their size)")

// NewConvexHull builds the convex hull of points, keeping at most
// maxVertices vertices (0: DefaultHullVertices; at most MaxHullVertices).
// Past the limit the hull is that of the points taken so far, farthest
// first, so it holds the shape's extremes and misses only the smaller
// details. Points less than 1 mm (or 1e-5 of the hull's size, when that
// is more) outside the hull of the others are dropped, so a box's 8 corners give a hull of 8 vertices and 6 square
// faces.
//
// It returns an error for more than MaxHullPoints points, a point that is
// not finite or farther than 10,000 m from the origin on an axis, a
// maxVertices out of range, and points that do not span a solid
// (ErrFlatHull): fewer than 4, or all in one plane or on one line.
//
//	cube, err := physics.NewConvexHull([]mgl32.Vec3{
//		{-1, -1, -1}, {1, -1, -1}, {-1, 1, -1}, {1, 1, -1},
//		{-1, -1, 1}, {1, -1, 1}, {-1, 1, 1}, {1, 1, 1},
//	}, 0)
//	id, err := space.AddConvexHull(cube)
//	err = space.AddBody(e, physics.NewBodyDef(physics.Dynamic, physics.HullShape(id)))
func NewConvexHull(points []mgl32.Vec3, maxVertices int) (*Hull, error) {
	if maxVertices == 0 {
		maxVertices = DefaultHullVertices
	}
	if maxVertices < 4 || maxVertices > MaxHullVertices {
		return nil, fmt.Errorf("physics: NewConvexHull: the vertex limit must be in [4, %d] (or 0 for %d), got %d", MaxHullVertices, DefaultHullVertices, maxVertices)
	}
	if len(points) > MaxHullPoints {
		return nil, fmt.Errorf("physics: NewConvexHull: at most %d points, got %d", MaxHullPoints, len(points))
	}
	pts := make([]dvec, len(points))
	for i, p := range points {
		v := toVec3(p)
		if !v.finite() || abs(v.x) > maxShapeSize || abs(v.y) > maxShapeSize || abs(v.z) > maxShapeSize {
			return nil, fmt.Errorf("physics: NewConvexHull: point %d, %v, must be finite and within %g m of the origin on each axis", i, p, float32(maxShapeSize))
		}
		pts[i] = dvec{float64(v.x), float64(v.y), float64(v.z)}
	}
	if len(pts) < 4 {
		return nil, ErrFlatHull
	}
	b := hullBuilder{pts: pts}
	if err := b.build(maxVertices); err != nil {
		return nil, err
	}
	h, err := b.hull()
	if err != nil {
		return nil, err
	}
	return h, nil
}

// Vertices returns the hull's vertices, relative to its centre of mass.
func (h *Hull) Vertices() []mgl32.Vec3 {
	out := make([]mgl32.Vec3, len(h.verts))
	for i, v := range h.verts {
		out[i] = fromVec3(v)
	}
	return out
}

// Faces returns how many faces the hull has (coplanar triangles merged
// into one polygon).
func (h *Hull) Faces() int { return len(h.faces) }

// CenterOfMass returns the hull's centre of mass in the frame of the
// points it was built from: a body of this hull placed at p has its
// points where they were when p is their frame's origin plus this.
func (h *Hull) CenterOfMass() mgl32.Vec3 { return fromVec3(h.com) }

// Volume returns the hull's volume, m³ (a body's mass is its density
// times this).
func (h *Hull) Volume() float32 { return h.volume }

// HullID names a Hull added to a Space (Space.AddConvexHull), from
// 1; 0 is no hull.
type HullID uint32

// HullShape returns the Shape of a body made of the hull id:
// Shape{Kind: ConvexHull, Hull: id}.
func HullShape(id HullID) Shape { return Shape{Kind: ConvexHull, Hull: id} }

// MaxHulls is the most hulls a Space takes.
const MaxHulls = 1 << 16

// AddConvexHull adds h to the Space and returns the HullID a body's Shape
// names it by (HullShape(id)). Hulls are assets, like meshes: add the same
// hulls in the same order in every run and on every peer, and to a new
// Space made for a restored world, before its first Step.
func (s *Space) AddConvexHull(h *Hull) (HullID, error) {
	if h == nil || len(h.faces) == 0 {
		return 0, errors.New("physics: AddConvexHull: the hull is nil or empty (make it with NewConvexHull)")
	}
	if len(s.hulls) >= MaxHulls {
		return 0, fmt.Errorf("physics: AddConvexHull: a Space holds at most %d hulls", MaxHulls)
	}
	s.hulls = append(s.hulls, h)
	return HullID(len(s.hulls)), nil
}

// climbMinVertices is the most vertices a hull has for its support to
// scan them all; past it, the support climbs along the edges.
const climbMinVertices = 12

// support returns the index of the vertex farthest along d (local frame),
// the lowest index among equals; from is where a climb starts (any
// vertex; a vertex near the answer, such as the last answer for a
// direction near d, makes it short).
//
// A hull of more than climbMinVertices vertices climbs: from vertex from
// to the first neighbour farther along d (or as far and of a lower index),
// until none is (PhysX climbs so on its hulls of many vertices). On a
// convex hull a vertex no neighbour beats is the farthest; where rounding
// makes two vertices of a face within a few ulps, the climb may stop at
// either, as the same climb does on every machine.
func (h *Hull) support(d vec3, from int) int {
	if len(h.adj) == 0 {
		best, bd := 0, h.verts[0].dot(d)
		for i := 1; i < len(h.verts); i++ {
			if v := h.verts[i].dot(d); v > bd {
				best, bd = i, v
			}
		}
		return best
	}
	best, bd := from, h.verts[from].dot(d)
	for moved := true; moved; {
		moved = false
		for _, j := range h.adj[h.adjStart[best]:h.adjStart[best+1]] {
			if v := h.verts[j].dot(d); v > bd || (v == bd && int(j) < best) {
				best, bd, moved = int(j), v, true
				break
			}
		}
	}
	return best
}

// bestFace returns the index of the face whose normal is most along d
// (local frame), the lowest among equals.
func (h *Hull) bestFace(d vec3) int {
	best, bd := 0, h.faces[0].normal.dot(d)
	for i := 1; i < len(h.faces); i++ {
		if v := h.faces[i].normal.dot(d); v > bd {
			best, bd = i, v
		}
	}
	return best
}

// aabb returns the box around the hull carried at p: for each world axis,
// the vertices' extremes along it.
func (h *Hull) aabb(p pose) aabb {
	r := p.q.rotation() // rows: the world axes in the hull's frame
	var lo, hi vec3
	for k, ax := range [3]vec3{r.r0, r.r1, r.r2} {
		mn, mx := h.verts[0].dot(ax), h.verts[0].dot(ax)
		for _, v := range h.verts[1:] {
			d := v.dot(ax)
			mn, mx = min(mn, d), max(mx, d)
		}
		switch k {
		case 0:
			lo.x, hi.x = mn, mx
		case 1:
			lo.y, hi.y = mn, mx
		default:
			lo.z, hi.z = mn, mx
		}
	}
	return aabb{p.p.add(lo), p.p.add(hi)}
}

// raycast is the first hit of the ray o + t·d (t >= 0, the hull's frame)
// on the hull: the ray clipped by every face's half-space. The normal is
// the face entered last (the lowest index among equals).
func (h *Hull) raycast(o, d vec3) (float32, vec3, bool) {
	enter, exit := float32(0), float32(maxFloat32)
	face := -1
	for i := range h.faces {
		f := &h.faces[i]
		dist := o.dot(f.normal) - f.offset // > 0 outside this face's plane
		dn := d.dot(f.normal)
		if dn == 0 {
			if dist > 0 {
				return 0, vec3{}, false
			}
			continue
		}
		t := -dist / dn
		if dn < 0 { // entering
			if t > enter {
				enter, face = t, i
			}
		} else if t < exit {
			exit = t
		}
		if enter > exit {
			return 0, vec3{}, false
		}
	}
	if face < 0 {
		return 0, vec3{}, true // the origin is inside
	}
	return enter, h.faces[face].normal, true
}

// maxFloat32 is the largest finite float32.
const maxFloat32 = 3.4028234663852886e38
