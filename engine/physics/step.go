package physics

// scratch holds the buffers a Step reuses. Nothing in it survives from one
// step to the next as information: each Step rebuilds it from the world.
type scratch struct {
	// Per body of the step, k = index in the Body component's Indices.
	poses  []pose    // at the start of the step
	shapes []shape   // the body's shape
	boxes  []aabb    // grown by the speculative distance
	ext    []float32 // how far a CCD or fast body may travel in the step
	active []bool    // awake dynamic, or kinematic
	// find is what the broad phase looks for pairs of: active, or moving
	// when some sleeping body's contacts are not known (unknownContacts).
	find   []bool
	moving []bool
	sb     []int32 // solver body, 0 when not in the solver
	kOf    []int32 // slot -> k, -1 for slots without a body
	pairs  []pair
	next   []cachedManifold // the cache being built
	// The manifolds of next found at a time of impact (impactManifold),
	// in index order.
	impacts []impact

	meshOut  []manifold // a mesh or compound pair's manifolds
	partBox  []aabb     // a compound's parts' boxes (collideParts)
	ended    bool       // keepOrEnd recorded the end of the pair endedKey
	endedKey uint64

	// Islands.
	isl   islands
	awake []bool // per root: some body awake
	// Sleep events: each body's Asleep at the start of the step, and how
	// many times a body fell asleep or woke in it.
	wasAsleep []bool
	flips     int
	noSleep   []bool    // per root: touches a moving kinematic body
	minRest   []float32 // per root: least sleep time of its bodies

	// Solver bodies; 0 is the fixed body (static or sleeping).
	state  []bodyState
	mass   []bodyMass
	motion []bodyMotion
	bpose  []pose
	bodyK  []int32    // solver body -> k
	gyro   []gyroBody // the dynamic compounds among them (the gyroscopic term)
	cons   []constraint
	points []solverPoint // the constraints' points
	joints []solverJoint // the joints with a body in the solver
	// jointed holds, sorted, the slot pairs (lower slot << 32 | higher)
	// of the joints whose bodies do not collide (CollideConnected off).
	jointed []uint64

	// The solver's order (orderEdges).
	edges    []edge
	adjStart []int32
	adj      []int32
	fill     []int32
	seen     []bool
	done     []bool
	order    []int32
	queue    []int32
	settings ContactSettings // what the contact hook is given
}

// Step advances the world by one step of 1/Config.TickRate s. It runs
// the broad and narrow phases, wakes and puts islands to sleep, solves
// the contacts of the awake bodies, moves them, and records the contact
// events (Events) and the contact cache (the world's Contacts). It reads
// and writes only the world: two worlds with the same state step to the
// same bits, whatever Space steps them.
//
// A body whose state is not finite at the start of the step (NaN or
// infinite, written into the world by the game) is put back at its
// previous tick's transform, at rest; one whose state becomes non-finite
// in the step (overflow, or a neighbour's NaN reaching it through a
// contact within the step) is put back where it started the step, at
// rest. Either is counted in Stats.Resets: NaN never stays in the world.
// A rotation that is not of unit length (within 1e-3) is normalised.
//
// Bodies that start out overlapping are pushed apart at up to
// Config.MaxPushOut per contact; where many overlap at once the pushes
// add up, and they fly apart fast (1,000 cubes spawned in one spot leave
// it at up to about 300 m/s), without NaN. The broad phase keeps at most
// DefaultMaxPairs pairs a step (the first in slot order), so such a spot
// costs bounded memory; Stats.Pairs tells.
func (s *Space) Step() {
	s.events = s.events[:0]
	s.broken = s.broken[:0]
	n := s.gather()
	s.collidePairs(n)
	s.buildIslands(n)
	s.solveAwake(n)
	s.eventImpulses()
	s.recordSleepEvents()
	cp := s.contacts.Ptr()
	s.sc.next, cp.m = cp.m[:0], s.sc.next
	s.stats.Manifolds = len(cp.m)
}

// gather fills the per-body arrays and the boxes, and returns the number
// of bodies.
func (s *Space) gather() int {
	sc := &s.sc
	w := s.w
	wb := w.Bodies()
	vals, _ := s.bodies.Slices()
	idx := s.bodies.Indices()
	n := len(idx)
	dt := 1 / float32(s.cfg.TickRate)
	half := float32(s.cfg.SpeculativeDistance * 0.5)

	sc.poses = grow(sc.poses, n)
	sc.shapes = grow(sc.shapes, n)
	sc.boxes = grow(sc.boxes, n)
	sc.ext = grow(sc.ext, n)
	sc.active = grow(sc.active, n)
	sc.wasAsleep = grow(sc.wasAsleep, n)
	sc.flips = 0
	sc.kOf = grow(sc.kOf, w.Slots())
	for i := range sc.kOf {
		sc.kOf[i] = -1
	}
	awake, unknown := 0, 0
	for k, slot := range idx {
		b := &vals[slot]
		sc.kOf[slot] = int32(k)
		p := pose{toVec3(wb.Pos[slot]), toQuat(wb.Rot[slot])}
		v := toVec3(wb.Vel[slot])
		if !p.p.finite() || !p.q.finite() || !v.finite() || !toVec3(wb.AngVel[slot]).finite() {
			p = s.resetBody(int(slot))
			v = vec3{}
		} else if l := p.q.lengthSq(); l < 0.999 || l > 1.001 {
			// A rotation the game wrote into the world unnormalised.
			p.q = p.q.normalize()
			wb.Rot[slot] = fromQuat(p.q)
		}
		sc.poses[k] = p
		sc.shapes[k] = s.bodyShape(b.Shape)
		act := b.Kind == Kinematic || b.Kind == Dynamic && !b.Asleep
		sc.wasAsleep[k] = b.Asleep
		if unknownContacts(b) {
			unknown++
		}
		sc.active[k] = act
		if act {
			awake++
		}
		var ext float32
		if act && (b.CCD || b.Kind == Dynamic && !s.cfg.NoAutoCCD && fast(&sc.shapes[k], v, dt)) {
			ext = float32(v.length() * dt)
		}
		sc.ext[k] = ext
		sc.boxes[k] = sc.shapes[k].aabb(p).grow(half + ext)
	}
	sc.find = sc.active[:n]
	if unknown > 0 {
		// Pairs of these sleepers are found and collided as if they
		// moved, so that their islands are known before anything is
		// solved: an awake body must not meet, through a sleeper it
		// wakes, sleepers it has no contacts with (a row of boxes added
		// asleep, one of them pushed, would be passed through).
		sc.moving = grow(sc.moving, n)
		for k, slot := range idx {
			sc.moving[k] = sc.active[k] || unknownContacts(&vals[slot])
		}
		sc.find = sc.moving
	}
	s.stats = Stats{Bodies: n, Awake: awake, Resets: s.stats.Resets}
	return n
}

// resetBody puts the body in slot back at its previous tick's transform
// (the origin when that is not finite either), at rest, and returns its
// pose.
func (s *Space) resetBody(slot int) pose {
	wb := s.w.Bodies()
	e, _ := s.w.EntityAt(slot)
	t := s.w.PrevTransform(e)
	p := pose{toVec3(t.Pos), toQuat(t.Rot).normalize()}
	if !p.p.finite() || !p.q.finite() {
		p = pose{q: identity}
	}
	wb.Pos[slot], wb.Rot[slot] = fromVec3(p.p), fromQuat(p.q)
	wb.Vel[slot], wb.AngVel[slot] = fromVec3(vec3{}), fromVec3(vec3{})
	s.stats.Resets++
	return p
}

// autoCCDFraction is the part of a body's inner radius (innerRadius) that
// it must travel in a step to get continuous collision against static
// bodies without BodyDef.CCD: Box2D v3's safety factor for the same test.
const autoCCDFraction = 0.5

// fast reports whether a body of shape sh moving at v travels at least
// autoCCDFraction of its inner radius in a step of dt seconds.
func fast(sh *shape, v vec3, dt float32) bool {
	l := float32(float32(autoCCDFraction*innerRadius(sh)) / dt)
	return v.lengthSq() >= float32(l*l)
}

// innerRadius returns the least distance from the centre of a shape to
// its surface: a sphere's or capsule's radius, a box's least half extent,
// a cylinder's radius or half height, a hull's nearest face plane, the
// least of a compound's parts'. A body that moves less than that in a
// step cannot pass through a static body in it.
func innerRadius(sh *shape) float32 {
	switch sh.kind {
	case Sphere, Capsule:
		return sh.radius
	case Box:
		return min(sh.half.x, sh.half.y, sh.half.z)
	case Compound:
		if sh.comp == nil || len(sh.comp.parts) == 0 {
			return 0
		}
		r := innerRadius(&sh.comp.parts[0].shape)
		for i := 1; i < len(sh.comp.parts); i++ {
			r = min(r, innerRadius(&sh.comp.parts[i].shape))
		}
		return r
	case Cylinder:
		return min(sh.radius, sh.halfHeight)
	case ConvexHull:
		if sh.hull == nil || len(sh.hull.faces) == 0 {
			return 0
		}
		r := sh.hull.faces[0].offset // face planes n·x = offset about the centre of mass
		for _, f := range sh.hull.faces[1:] {
			r = min(r, f.offset)
		}
		return r
	}
	return 0
}
