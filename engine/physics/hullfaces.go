package physics

// hull turns the builder's triangles into a ConvexHull: coplanar
// neighbours merged into polygons, the mass properties, the vertices
// moved to the centre of mass.
func (b *hullBuilder) hull() (*Hull, error) {
	var tris []int
	for fi := range b.faces {
		if b.faces[fi].alive {
			tris = append(tris, fi)
		}
	}
	// Which triangle holds each directed edge.
	type dedge struct{ u, v int }
	owner := make(map[dedge]int, 3*len(tris))
	for ti, fi := range tris {
		f := &b.faces[fi]
		for k := range 3 {
			owner[dedge{f.v[k], f.v[(k+1)%3]}] = ti
		}
	}
	// Groups of coplanar neighbours, grown from the lowest triangle: a
	// neighbour joins when its corners are within a tenth of the
	// tolerance of the first triangle's plane, so the polygon's plane
	// stays that close to every point the builder dropped near it.
	mergeTol := float64(0.1 * b.eps)
	group := make([]int, len(tris))
	for i := range group {
		group[i] = -1
	}
	ng := 0
	var stack []int
	for start := range tris {
		if group[start] >= 0 {
			continue
		}
		g := ng
		ng++
		group[start] = g
		base := &b.faces[tris[start]]
		stack = append(stack[:0], start)
		for len(stack) > 0 {
			t := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			f := &b.faces[tris[t]]
			for k := range 3 {
				o, ok := owner[dedge{f.v[(k+1)%3], f.v[k]}]
				if !ok || group[o] >= 0 {
					continue
				}
				of := &b.faces[tris[o]]
				flat := of.n.dot(base.n) > 0.99999
				for _, v := range of.v {
					if d := b.dist(base, v); d > mergeTol || d < -mergeTol {
						flat = false
					}
				}
				if flat {
					group[o] = g
					stack = append(stack, o)
				}
			}
		}
	}
	h := &Hull{}
	// Each group's boundary, chained into a polygon; a group whose
	// boundary is not one simple loop stays triangles.
	var polys [][]int
	var normals []dvec
	for g := range ng {
		var members []int
		for t := range tris {
			if group[t] == g {
				members = append(members, t)
			}
		}
		next := map[int]int{}
		okLoop := true
		start := -1
		for _, t := range members {
			f := &b.faces[tris[t]]
			for k := range 3 {
				u, v := f.v[k], f.v[(k+1)%3]
				if o, ok := owner[dedge{v, u}]; ok && group[o] == g {
					continue
				}
				if _, dup := next[u]; dup {
					okLoop = false
				}
				next[u] = v
				if start < 0 || u < start {
					start = u
				}
			}
		}
		var poly []int
		if okLoop && start >= 0 {
			for u := start; ; {
				poly = append(poly, u)
				v, ok := next[u]
				if !ok || len(poly) > len(next) {
					okLoop = false
					break
				}
				if u = v; u == start {
					break
				}
			}
			okLoop = okLoop && len(poly) == len(next)
		}
		var n dvec
		for _, t := range members {
			f := &b.faces[tris[t]]
			pa := b.pts[f.v[0]]
			n = n.add(b.pts[f.v[1]].sub(pa).cross(b.pts[f.v[2]].sub(pa)))
		}
		n = n.scale(1 / sqrt64(n.dot(n)))
		if okLoop {
			polys = append(polys, poly)
			normals = append(normals, n)
			continue
		}
		for _, t := range members {
			f := &b.faces[tris[t]]
			polys = append(polys, []int{f.v[0], f.v[1], f.v[2]})
			normals = append(normals, f.n)
		}
	}
	// Vertex numbers: the corners of the faces, in the order of the
	// points (a point inside a merged face is none).
	num := make([]int, len(b.pts))
	for i := range num {
		num[i] = -1
	}
	for _, poly := range polys {
		for _, p := range poly {
			num[p] = 0
		}
	}
	var vpts []dvec
	for i := range num {
		if num[i] == 0 {
			num[i] = len(vpts)
			vpts = append(vpts, b.pts[i])
		}
	}
	// Mass properties about the vertices' mean, by tetrahedra from it to
	// each face's fan of triangles.
	var ref dvec
	for _, p := range vpts {
		ref = ref.add(p)
	}
	ref = ref.scale(1 / float64(len(vpts)))
	var vol float64
	var mom dvec          // sum of volume × centroid
	var cov [3][3]float64 // covariance about ref
	for _, poly := range polys {
		a := b.pts[poly[0]].sub(ref)
		for i := 1; i+1 < len(poly); i++ {
			c1, c2 := b.pts[poly[i]].sub(ref), b.pts[poly[i+1]].sub(ref)
			det := a.dot(c1.cross(c2))
			v := det / 6
			vol += v
			s := a.add(c1).add(c2)
			mom = mom.add(s.scale(float64(v / 4)))
			k := det / 120
			vs := [4][3]float64{{a.x, a.y, a.z}, {c1.x, c1.y, c1.z}, {c2.x, c2.y, c2.z}, {s.x, s.y, s.z}}
			for r := range 3 {
				for c := range 3 {
					sum := float64(0)
					for _, w := range vs {
						sum += float64(w[r] * w[c])
					}
					cov[r][c] += float64(k * sum)
				}
			}
		}
	}
	if !(vol > 0) {
		return nil, errHullDegenerate
	}
	com := mom.scale(1 / vol) // relative to ref
	cm := [3]float64{com.x, com.y, com.z}
	var t [3][3]float64 // the inertia tensor about the centre of mass
	for r := range 3 {
		for c := range 3 {
			cov[r][c] -= float64(vol * float64(cm[r]*cm[c]))
		}
	}
	tr := cov[0][0] + cov[1][1] + cov[2][2]
	for r := range 3 {
		for c := range 3 {
			t[r][c] = -cov[r][c]
			if r == c {
				t[r][c] += tr
			}
		}
	}
	centre := ref.add(com)
	h.com = vec3{float32(centre.x), float32(centre.y), float32(centre.z)}
	h.volume = float32(vol)
	tm := mat3{
		vec3{float32(t[0][0]), float32(t[0][1]), float32(t[0][2])},
		vec3{float32(t[1][0]), float32(t[1][1]), float32(t[1][2])},
		vec3{float32(t[2][0]), float32(t[2][1]), float32(t[2][2])},
	}
	h.moments, h.frame = principalAxes(tm)
	floor := float32(max(h.moments.x, h.moments.y, h.moments.z) * 1e-6)
	h.moments = h.moments.max(vec3{floor, floor, floor})
	if !(h.volume > 0) || !h.moments.finite() || !(h.moments.x > 0) {
		return nil, errHullDegenerate
	}
	h.verts = make([]vec3, len(vpts))
	for i, p := range vpts {
		d := p.sub(centre)
		h.verts[i] = vec3{float32(d.x), float32(d.y), float32(d.z)}
	}
	for i, poly := range polys {
		n := vec3{float32(normals[i].x), float32(normals[i].y), float32(normals[i].z)}
		n, _ = n.normalize()
		f := hullFace{normal: n, first: uint16(len(h.idx)), count: uint16(len(poly))}
		for j, p := range poly {
			v := uint16(num[p])
			h.idx = append(h.idx, v)
			if d := h.verts[v].dot(n); j == 0 || d > f.offset {
				f.offset = d
			}
		}
		h.faces = append(h.faces, f)
	}
	h.next = make([]uint16, len(h.idx))
	for _, f := range h.faces {
		for j := range int(f.count) {
			h.next[int(f.first)+j] = f.first + uint16((j+1)%int(f.count))
		}
	}
	for i := range h.idx {
		// Each edge is two faces' and runs opposite ways in them: keep it
		// where it runs up.
		if u, v := h.idx[i], h.idx[h.next[i]]; u < v {
			h.edgeEnds = append(h.edgeEnds, [2]uint16{u, v})
		}
	}
	h.buildAdjacency()
	// The edge directions, each once (parallel ones too).
	for _, f := range h.faces {
		for j := range int(f.count) {
			a := h.verts[h.idx[int(f.first)+j]]
			c := h.verts[h.idx[int(f.first)+(j+1)%int(f.count)]]
			e, l := c.sub(a).normalize()
			if l == 0 {
				continue
			}
			dup := false
			for _, o := range h.edges {
				if o.cross(e).lengthSq() < 1e-10 {
					dup = true
					break
				}
			}
			if !dup {
				h.edges = append(h.edges, e)
			}
		}
	}
	return h, nil
}

// buildAdjacency fills adjStart and adj from the faces, for a hull of more
// than climbMinVertices vertices.
func (h *Hull) buildAdjacency() {
	if len(h.verts) <= climbMinVertices {
		return
	}
	nv := len(h.verts)
	seen := make([]bool, nv*nv)
	for _, f := range h.faces {
		for j := range int(f.count) {
			u := h.idx[int(f.first)+j]
			v := h.idx[int(f.first)+(j+1)%int(f.count)]
			seen[int(u)*nv+int(v)], seen[int(v)*nv+int(u)] = true, true
		}
	}
	h.adjStart = make([]uint16, nv+1)
	for i := range nv {
		for j := range nv {
			if seen[i*nv+j] {
				h.adj = append(h.adj, uint16(j))
			}
		}
		h.adjStart[i+1] = uint16(len(h.adj))
	}
}

// face returns the corners of face i.
func (h *Hull) face(i int) []uint16 {
	f := &h.faces[i]
	return h.idx[f.first : f.first+f.count]
}
