package physics

import (
	"errors"
	"fmt"
	"slices"

	"github.com/go-gl/mathgl/mgl32"
)

// TriangleMesh is static level geometry: triangles in the frame of the
// body that carries it, with a bounding-volume hierarchy over them built
// once. Meshes are assets, like models: a game makes the same ones, in the
// same order, in every run (Space.AddMesh), and a body refers to one by its
// MeshID. Only static and kinematic bodies carry meshes.
//
// Triangles are two-sided: a shape touching a triangle is pushed out on
// the side its centre is on.
type TriangleMesh struct {
	verts []vec3
	tris  [][3]uint32
	nodes []meshNode // nodes[0] is the root; empty for a mesh without triangles
	order []uint32   // triangle indices in leaf order
	box   aabb       // bounds of every vertex
	// active has a bit for each edge of each triangle (bit i: the edge
	// from corner i to corner i+1) that is a real edge of the surface: on
	// the mesh's boundary, or where it folds. Contacts on the other edges
	// (inside a flat stretch, such as the diagonal of a floor's square)
	// would push bodies sideways over seams that are not there: they take
	// the face's normal, or are left to the neighbouring triangle's face.
	active []uint8
}

// creaseCos is the cosine of the angle between two triangles' normals
// above which their shared edge counts as flat (inactive).
const creaseCos = 0.996 // about 5 degrees

// meshNode is a node of a mesh's hierarchy: an inner node's children are
// left and left+1; a leaf holds order[first : first+count].
type meshNode struct {
	box          aabb
	left         uint32 // first child (inner nodes)
	first, count uint32 // triangles (leaves: count > 0)
}

// meshLeafSize is the most triangles a leaf of a mesh's hierarchy holds.
const meshLeafSize = 4

// MaxMeshTriangles is the most triangles a TriangleMesh takes.
const MaxMeshTriangles = 1 << 24

// ErrEmptyMesh is returned by NewTriangleMesh for a mesh with no triangle
// that has an area.
var ErrEmptyMesh = errors.New("physics: the mesh has no triangle with an area")

// NewTriangleMesh makes a mesh of the triangles indices lists, three
// indices into positions each. It refuses (with an error that says which)
// an index count that is not a multiple of three, an index out of range, a
// non-finite position and more than MaxMeshTriangles triangles; it drops
// triangles without area (two corners equal, or all three in a line), and
// refuses a mesh left with none.
func NewTriangleMesh(positions []mgl32.Vec3, indices []uint32) (*TriangleMesh, error) {
	if len(indices)%3 != 0 {
		return nil, fmt.Errorf("physics: a mesh's index count must be a multiple of 3, got %d", len(indices))
	}
	if len(indices)/3 > MaxMeshTriangles {
		return nil, fmt.Errorf("physics: a mesh has at most %d triangles, got %d", MaxMeshTriangles, len(indices)/3)
	}
	m := &TriangleMesh{verts: make([]vec3, len(positions))}
	for i, p := range positions {
		v := toVec3(p)
		if !v.finite() {
			return nil, fmt.Errorf("physics: mesh position %d is not finite: %v", i, p)
		}
		m.verts[i] = v
	}
	m.tris = make([][3]uint32, 0, len(indices)/3)
	for t := 0; t < len(indices); t += 3 {
		tri := [3]uint32{indices[t], indices[t+1], indices[t+2]}
		for _, i := range tri {
			if int64(i) >= int64(len(positions)) {
				return nil, fmt.Errorf("physics: mesh triangle %d uses vertex %d of %d", t/3, i, len(positions))
			}
		}
		a, b, c := m.verts[tri[0]], m.verts[tri[1]], m.verts[tri[2]]
		if b.sub(a).cross(c.sub(a)).lengthSq() == 0 {
			continue
		}
		m.tris = append(m.tris, tri)
	}
	if len(m.tris) == 0 {
		return nil, ErrEmptyMesh
	}
	m.build()
	m.findActiveEdges()
	return m, nil
}

// findActiveEdges sets m.active: an edge shared by exactly two triangles
// is inactive when they are nearly coplanar; every other edge (a
// boundary, a fold, an edge of three triangles or more) is active. Corners are matched by position, so meshes
// whose triangles do not share vertex indices (separate parts of a model)
// are joined too. The result depends only on the triangles.
func (m *TriangleMesh) findActiveEdges() {
	// Canonical corner ids: the first vertex at each position.
	order := make([]uint32, len(m.verts))
	for i := range order {
		order[i] = uint32(i)
	}
	less := func(a, b vec3) int {
		for k := range 3 {
			if x, y := a.at(k), b.at(k); x != y {
				if x < y {
					return -1
				}
				return 1
			}
		}
		return 0
	}
	slices.SortFunc(order, func(a, b uint32) int {
		if c := less(m.verts[a], m.verts[b]); c != 0 {
			return c
		}
		return int(a) - int(b)
	})
	canon := make([]uint32, len(m.verts))
	for i, v := range order {
		if i > 0 && less(m.verts[order[i-1]], m.verts[v]) == 0 {
			canon[v] = canon[order[i-1]]
		} else {
			canon[v] = v
		}
	}
	type edge struct {
		lo, hi uint32
		tri    uint32
		side   uint8
	}
	edges := make([]edge, 0, 3*len(m.tris))
	for t, tri := range m.tris {
		for i := range 3 {
			a, b := canon[tri[i]], canon[tri[(i+1)%3]]
			edges = append(edges, edge{min(a, b), max(a, b), uint32(t), uint8(i)})
		}
	}
	slices.SortFunc(edges, func(a, b edge) int {
		switch {
		case a.lo != b.lo:
			return cmpU32(a.lo, b.lo)
		case a.hi != b.hi:
			return cmpU32(a.hi, b.hi)
		case a.tri != b.tri:
			return cmpU32(a.tri, b.tri)
		}
		return int(a.side) - int(b.side)
	})
	m.active = make([]uint8, len(m.tris))
	for i := 0; i < len(edges); {
		j := i + 1
		for j < len(edges) && edges[j].lo == edges[i].lo && edges[j].hi == edges[i].hi {
			j++
		}
		if j-i != 2 || m.folds(edges[i].tri, edges[i+1].tri) {
			for _, e := range edges[i:j] {
				m.active[e.tri] |= 1 << e.side
			}
		}
		i = j
	}
}

// folds reports whether triangles a and b, which share an edge, are not
// nearly coplanar (either winding): the edge between them is real.
func (m *TriangleMesh) folds(a, b uint32) bool {
	return abs(m.normal(a).dot(m.normal(b))) <= creaseCos
}

// normal returns triangle i's unit normal (counter-clockwise corners).
func (m *TriangleMesh) normal(i uint32) vec3 {
	a, b, c := m.triangle(i)
	n, _ := b.sub(a).cross(c.sub(a)).normalize()
	return n
}

func cmpU32(a, b uint32) int {
	if a < b {
		return -1
	}
	return 1
}

// Triangles returns how many triangles the mesh kept.
func (m *TriangleMesh) Triangles() int { return len(m.tris) }

// triangle returns triangle i's corners.
func (m *TriangleMesh) triangle(i uint32) (a, b, c vec3) {
	t := m.tris[i]
	return m.verts[t[0]], m.verts[t[1]], m.verts[t[2]]
}

// build makes the hierarchy: the triangles' centres are split at the
// median of the longest axis of their bounds, until a leaf holds
// meshLeafSize or fewer. The result depends only on the triangles.
func (m *TriangleMesh) build() {
	n := len(m.tris)
	m.order = make([]uint32, n)
	centres := make([]vec3, n)
	boxes := make([]aabb, n)
	for i := range m.tris {
		m.order[i] = uint32(i)
		a, b, c := m.triangle(uint32(i))
		boxes[i] = aabb{a.min(b).min(c), a.max(b).max(c)}
		centres[i] = boxes[i].min.add(boxes[i].max).scale(0.5)
	}
	m.nodes = make([]meshNode, 1, 2*(n/meshLeafSize+1))
	type job struct{ node, first, count uint32 }
	stack := []job{{0, 0, uint32(n)}}
	for len(stack) > 0 {
		j := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		tris := m.order[j.first : j.first+j.count]
		box := boxes[tris[0]]
		cb := aabb{centres[tris[0]], centres[tris[0]]}
		for _, t := range tris[1:] {
			box = box.union(boxes[t])
			cb = cb.union(aabb{centres[t], centres[t]})
		}
		if j.count <= meshLeafSize {
			m.nodes[j.node] = meshNode{box: box, first: j.first, count: j.count}
			continue
		}
		ext := cb.max.sub(cb.min)
		axis := 0
		if ext.y > ext.at(axis) {
			axis = 1
		}
		if ext.z > ext.at(axis) {
			axis = 2
		}
		slices.SortFunc(tris, func(a, b uint32) int {
			ca, cb := centres[a].at(axis), centres[b].at(axis)
			switch {
			case ca < cb:
				return -1
			case ca > cb:
				return 1
			}
			return int(a) - int(b)
		})
		half := j.count / 2
		left := uint32(len(m.nodes))
		m.nodes = append(m.nodes, meshNode{}, meshNode{})
		m.nodes[j.node] = meshNode{box: box, left: left}
		stack = append(stack, job{left + 1, j.first + half, j.count - half}, job{left, j.first, half})
	}
	m.box = m.nodes[0].box
}

// overlapping appends to out the triangles whose bounds overlap box (in the
// mesh's frame), in ascending order, and returns it.
func (m *TriangleMesh) overlapping(box aabb, out []uint32, stack []uint32) ([]uint32, []uint32) {
	start := len(out)
	stack = m.visit(stack,
		func(b *aabb) bool { return b.overlaps(box) },
		func(t uint32) {
			a, b, c := m.triangle(t)
			if (aabb{a.min(b).min(c), a.max(b).max(c)}).overlaps(box) {
				out = append(out, t)
			}
		})
	slices.Sort(out[start:])
	return out, stack
}

// visit walks m's hierarchy depth first, the first child first, into the
// nodes whose box enter accepts, and calls leaf for every triangle of the
// leaves it reaches. stack is scratch, returned for reuse.
func (m *TriangleMesh) visit(stack []uint32, enter func(*aabb) bool, leaf func(t uint32)) []uint32 {
	stack = append(stack[:0], 0)
	for len(stack) > 0 {
		n := &m.nodes[stack[len(stack)-1]]
		stack = stack[:len(stack)-1]
		if !enter(&n.box) {
			continue
		}
		if n.count == 0 {
			stack = append(stack, n.left+1, n.left)
			continue
		}
		for _, t := range m.order[n.first : n.first+n.count] {
			leaf(t)
		}
	}
	return stack
}
