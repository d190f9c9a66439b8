package physics

import "github.com/nebulaengine/nebula/engine"

// scratch holds the buffers a Step reuses. Nothing in it survives from one
// step to the next as information: each Step rebuilds it from the world.
type scratch struct {
	// Per body of the step, k = index in the Body component's Indices.
	poses  []pose    // at the start of the step
	shapes []shape   // the body's shape
	boxes  []aabb    // grown by the speculative distance
	ext    []float32 // how far a CCD body may travel in the step
	active []bool    // awake dynamic, or kinematic
	sb     []int32   // solver body, 0 when not in the solver
	kOf    []int32   // slot -> k, -1 for slots without a body
	pairs  []pair
	next   []cachedManifold // the cache being built

	meshOut  []manifold // a mesh or compound pair's manifolds
	partBox  []aabb     // a compound's parts' boxes (collideParts)
	ended    bool       // keepOrEnd recorded the end of the pair endedKey
	endedKey uint64

	// Islands.
	isl     islands
	awake   []bool    // per root: some body awake
	noSleep []bool    // per root: touches a moving kinematic body
	minRest []float32 // per root: least sleep time of its bodies

	// Solver bodies; 0 is the fixed body (static or sleeping).
	state  []bodyState
	mass   []bodyMass
	motion []bodyMotion
	bpose  []pose
	bodyK  []int32    // solver body -> k
	gyro   []gyroBody // the dynamic compounds among them (the gyroscopic term)
	cons   []constraint
	points []solverPoint // the constraints' points
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
	n := s.gather()
	s.collidePairs(n)
	s.buildIslands(n)
	s.solveAwake(n)
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
	sc.kOf = grow(sc.kOf, w.Slots())
	for i := range sc.kOf {
		sc.kOf[i] = -1
	}
	awake := 0
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
		sc.active[k] = act
		if act {
			awake++
		}
		var ext float32
		if b.CCD && act {
			ext = float32(v.length() * dt)
		}
		sc.ext[k] = ext
		sc.boxes[k] = sc.shapes[k].aabb(p).grow(half + ext)
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

// collidePairs runs the broad phase and the narrow phase and builds the
// new cache in sc.next from the old one: manifolds of pairs where a body
// moves are computed afresh (warm-started from the old ones by point id),
// those between two bodies that do not move are kept. It records the
// begin and end events.
func (s *Space) collidePairs(n int) {
	sc := &s.sc
	vals, _ := s.bodies.Slices()
	idx := s.bodies.Indices()
	sc.pairs = s.bp.pairs(sc.boxes[:n], sc.active[:n], sc.pairs)
	s.stats.Pairs, s.stats.PairsDropped = len(sc.pairs), s.bp.dropped
	old := s.contacts.Ptr().m
	next := sc.next[:0]
	sc.ended = false
	oi := 0
	var m manifold
	for _, pr := range sc.pairs {
		sa, sb := idx[pr.a], idx[pr.b]
		key := uint64(sa)<<32 | uint64(sb)
		for oi < len(old) && old[oi].key() < key {
			next = s.keepOrEnd(&old[oi], next)
			oi++
		}
		ea, _ := s.w.EntityAt(int(sa))
		eb, _ := s.w.EntityAt(int(sb))
		// The pair's old manifolds: one, or one per triangle of a mesh.
		oj := oi
		for oj < len(old) && old[oj].key() == key {
			oj++
		}
		prevs := old[oi:oj]
		oi = oj
		if len(prevs) > 0 && (prevs[0].a != ea || prevs[0].b != eb) {
			// The slots hold other bodies now.
			s.endPair(prevs)
			prevs = nil
		}
		ba, bb := &vals[sa], &vals[sb]
		if ba.Kind != Dynamic && bb.Kind != Dynamic || !collides(ba, bb) {
			continue
		}
		margin := s.cfg.SpeculativeDistance + sc.ext[pr.a] + sc.ext[pr.b]
		shA, shB := &sc.shapes[pr.a], &sc.shapes[pr.b]
		sensor := ba.Sensor || bb.Sensor
		if shA.kind >= Mesh || shB.kind >= Mesh {
			next = s.multiPair(pr, ea, eb, sensor, margin, prevs, next)
			continue
		}
		if shA.kind <= shB.kind {
			collide(shA, sc.poses[pr.a], shB, sc.poses[pr.b], margin, &m)
		} else {
			collide(shB, sc.poses[pr.b], shA, sc.poses[pr.a], margin, &m)
			m.normal = m.normal.neg()
		}
		var prev *cachedManifold
		if len(prevs) > 0 {
			prev = &prevs[0]
		}
		cm := s.newCached(&m, prev, ea, eb, sensor)
		was := prev != nil && prev.touching
		switch {
		case cm.touching && !was:
			s.events = append(s.events, event(Begin, &cm))
		case !cm.touching && was:
			s.events = append(s.events, event(End, prev))
		}
		if m.n > 0 {
			next = append(next, cm)
		}
	}
	for ; oi < len(old); oi++ {
		next = s.keepOrEnd(&old[oi], next)
	}
	sc.next = next
}

// warm gives each point of cm the impulses of the point of prev with the
// same id (the nearest, when several have it; ids are meant to be unique)
// or else of the nearest point of prev within sqrt(dist2), each point of
// prev used once, and returns how many points it matched so. The points
// left share what the unmatched points of prev had.
func warm(cm, prev *cachedManifold, dist2 float32) int {
	var used, done [maxPoints]bool
	n := 0
	for pass := range 2 {
		for j := range int(cm.n) {
			if done[j] {
				continue
			}
			q := &cm.pts[j]
			best, bestD := -1, float32(0)
			for i := range int(prev.n) {
				o := &prev.pts[i]
				if used[i] || pass == 0 && o.id != q.id {
					continue
				}
				d := o.p.sub(q.p).lengthSq()
				if pass == 1 && d > dist2 {
					continue
				}
				if best < 0 || d < bestD {
					best, bestD = i, d
				}
			}
			if best >= 0 {
				used[best], done[j] = true, true
				q.normal, q.friction = prev.pts[best].normal, prev.pts[best].friction
				n++
			}
		}
	}
	// The impulses of the old points nobody took are shared by the new
	// points nobody matched: when the narrow phase picks another set of
	// points on the same faces (four of a clipped octagon, say), the
	// contact still starts with the force that held it.
	var restN float32
	var restF vec3
	for i := range int(prev.n) {
		if !used[i] {
			restN += prev.pts[i].normal
			restF = restF.add(prev.pts[i].friction)
		}
	}
	if left := int(cm.n) - n; left > 0 && restN > 0 {
		k := 1 / float32(left)
		for j := range int(cm.n) {
			if !done[j] {
				cm.pts[j].normal = float32(restN * k)
				cm.pts[j].friction = restF.scale(k)
			}
		}
	}
	return n
}

// newCached returns the cache's record of manifold m between ea and eb,
// its points warm-started from prev's (warm; prev may be nil), and counts
// its points in the stats.
func (s *Space) newCached(m *manifold, prev *cachedManifold, ea, eb engine.Entity, sensor bool) cachedManifold {
	cm := cachedManifold{a: ea, b: eb, sub: m.sub, normal: m.normal, n: uint8(m.n), sensor: sensor}
	for j := range m.n {
		q := &m.pts[j]
		cp := &cm.pts[j]
		cp.id, cp.p, cp.sep = q.id, q.p, q.sep
		if q.sep <= s.cfg.TouchDistance {
			cm.touching = true
		}
	}
	if prev != nil {
		s.stats.WarmPoints += warm(&cm, prev, float32(s.cfg.WarmStartDistance*s.cfg.WarmStartDistance))
	}
	s.stats.Points += int(cm.n)
	return cm
}

// multiPair collides a pair whose shapes have parts (pair pr, one of the
// two a mesh or a compound): a manifold for each touching pair of parts
// (collideParts), warm-started from the old manifold with the same sub
// among prevs, appended to next. The pair begins to touch when its first
// manifold does and ends when its last one stops.
func (s *Space) multiPair(pr pair, ea, eb engine.Entity, sensor bool, margin float32, prevs, next []cachedManifold) []cachedManifold {
	sc := &s.sc
	shA, shB := &sc.shapes[pr.a], &sc.shapes[pr.b]
	if shA.kind == Mesh && shB.kind == Mesh {
		return next // two meshes (static) never collide
	}
	sc.meshOut = s.collideParts(shA, sc.poses[pr.a], shB, sc.poses[pr.b], margin, sc.meshOut[:0])
	was, now := -1, -1
	for i := range prevs {
		if prevs[i].touching {
			was = i
			break
		}
	}
	pi := 0
	for i := range sc.meshOut {
		m := &sc.meshOut[i]
		for pi < len(prevs) && prevs[pi].sub < m.sub {
			pi++
		}
		var prev *cachedManifold
		if pi < len(prevs) && prevs[pi].sub == m.sub {
			prev = &prevs[pi]
		}
		cm := s.newCached(m, prev, ea, eb, sensor)
		if cm.touching && now < 0 {
			now = len(next)
		}
		next = append(next, cm)
	}
	switch {
	case now >= 0 && was < 0:
		s.events = append(s.events, event(Begin, &next[now]))
	case now < 0 && was >= 0:
		s.events = append(s.events, event(End, &prevs[was]))
	}
	return next
}

// endPair records the end of the pair whose old manifolds are prevs, if
// one of them touched.
func (s *Space) endPair(prevs []cachedManifold) {
	for i := range prevs {
		if prevs[i].touching {
			s.events = append(s.events, event(End, &prevs[i]))
			return
		}
	}
}

// keepOrEnd appends the old manifold m to next when both its bodies are
// still there and neither moves (so the broad phase did not look at
// them), and otherwise records its end when it touched.
func (s *Space) keepOrEnd(m *cachedManifold, next []cachedManifold) []cachedManifold {
	if s.bodies.Has(m.a) && s.bodies.Has(m.b) {
		ka, kb := s.sc.kOf[m.a.Index()], s.sc.kOf[m.b.Index()]
		if !s.sc.active[ka] && !s.sc.active[kb] {
			return append(next, *m)
		}
	}
	// A pair with a mesh or a compound has a manifold for each pair of
	// parts: it ends once.
	if m.touching && !(s.sc.ended && s.sc.endedKey == m.key()) {
		s.events = append(s.events, event(End, m))
		// A sleeping body that loses a support wakes (and its island
		// with it, in buildIslands).
		for _, e := range [2]engine.Entity{m.a, m.b} {
			if b := s.bodies.Ptr(e); b != nil && b.Kind == Dynamic && b.Asleep {
				wake(b)
				s.sc.active[s.sc.kOf[e.Index()]] = true
				s.stats.Awake++
			}
		}
		s.sc.ended, s.sc.endedKey = true, m.key()
	}
	return next
}

// buildIslands joins touching dynamic bodies into islands and wakes every
// island with an awake body in it.
func (s *Space) buildIslands(n int) {
	sc := &s.sc
	vals, _ := s.bodies.Slices()
	idx := s.bodies.Indices()
	wb := s.w.Bodies()
	sc.isl.reset(n)
	next := sc.next
	for i := range next {
		m := &next[i]
		if !m.touching || m.sensor {
			continue
		}
		ka, kb := sc.kOf[m.a.Index()], sc.kOf[m.b.Index()]
		da, db := vals[idx[ka]].Kind == Dynamic, vals[idx[kb]].Kind == Dynamic
		if da && db {
			sc.isl.union(ka, kb)
		}
	}
	sc.awake = grow(sc.awake, n)
	sc.noSleep = grow(sc.noSleep, n)
	sc.minRest = grow(sc.minRest, n)
	clear(sc.awake[:n])
	clear(sc.noSleep[:n])
	for k, slot := range idx {
		if b := &vals[slot]; b.Kind == Dynamic && !b.Asleep {
			sc.awake[sc.isl.find(int32(k))] = true
		}
		sc.minRest[k] = s.cfg.TimeToSleep + 1
	}
	// A body touching a moving kinematic body stays awake.
	for i := range next {
		m := &next[i]
		if !m.touching || m.sensor {
			continue
		}
		ka, kb := sc.kOf[m.a.Index()], sc.kOf[m.b.Index()]
		for _, kk := range [2][2]int32{{ka, kb}, {kb, ka}} {
			kin, dyn := idx[kk[0]], idx[kk[1]]
			if vals[kin].Kind == Kinematic && vals[dyn].Kind == Dynamic &&
				(toVec3(wb.Vel[kin]).lengthSq() != 0 || toVec3(wb.AngVel[kin]).lengthSq() != 0) {
				r := sc.isl.find(kk[1])
				sc.awake[r], sc.noSleep[r] = true, true
			}
		}
	}
	islands := 0
	for k, slot := range idx {
		b := &vals[slot]
		if b.Kind != Dynamic {
			continue
		}
		r := sc.isl.find(int32(k))
		if int(r) == k && sc.awake[r] {
			islands++
		}
		if b.Asleep && sc.awake[r] {
			wake(b)
			sc.active[k] = true
			s.stats.Awake++
		}
	}
	s.stats.Islands = islands
}

// solveAwake builds the solver bodies and contact constraints, runs the
// substeps, writes the bodies back to the world and the impulses to the
// cache, and puts islands that have rested long enough to sleep.
func (s *Space) solveAwake(n int) {
	sc := &s.sc
	cfg := &s.cfg
	vals, _ := s.bodies.Slices()
	idx := s.bodies.Indices()
	wb := s.w.Bodies()
	dt := 1 / float32(cfg.TickRate)
	h := dt / float32(cfg.Substeps)
	invH := float32(cfg.TickRate * cfg.Substeps)
	g := toVec3(cfg.Gravity)

	// Solver bodies.
	sc.sb = grow(sc.sb, n)
	sc.state = append(sc.state[:0], bodyState{})
	sc.mass = append(sc.mass[:0], bodyMass{})
	sc.motion = append(sc.motion[:0], bodyMotion{})
	sc.bpose = append(sc.bpose[:0], pose{q: identity})
	sc.bodyK = append(sc.bodyK[:0], -1)
	sc.gyro = sc.gyro[:0]
	for k, slot := range idx {
		if !sc.active[k] {
			sc.sb[k] = 0
			continue
		}
		b := &vals[slot]
		sc.sb[k] = int32(len(sc.state))
		v, w := toVec3(wb.Vel[slot]), toVec3(wb.AngVel[slot])
		var bm bodyMass
		var mo bodyMotion
		mo.ld, mo.ad = 1, 1
		if b.Kind == Dynamic {
			lm, am := linearMask(b.Locks), angularMask(b.Locks)
			v, w = v.mul(lm), w.mul(am)
			bm.invM = lm.scale(b.InvMass)
			bm.invI = worldInvInertia(inertiaFrame(&sc.shapes[k], sc.poses[k].q), toVec3(b.InvInertia), b.Locks)
			mo.acc = lm.mul(g.scale(b.GravityScale).add(toVec3(b.Force).scale(b.InvMass)))
			mo.angAcc = bm.invI.mulVec(toVec3(b.Torque))
			mo.ld = 1 / (1 + float32(h*b.LinearDamping))
			mo.ad = 1 / (1 + float32(h*b.AngularDamping))
			mo.dynamic = true
		}
		sc.state = append(sc.state, bodyState{v: v, w: w})
		sc.mass = append(sc.mass, bm)
		sc.motion = append(sc.motion, mo)
		// A solver body's pose is its centre of mass's (a compound's is
		// not its entity's position).
		sc.bpose = append(sc.bpose, pose{centreOfMass(&sc.shapes[k], sc.poses[k]), sc.poses[k].q})
		sc.bodyK = append(sc.bodyK, int32(k))
		if c := sc.shapes[k].comp; c != nil && b.Kind == Dynamic && b.Locks&(LockAngularX|LockAngularY|LockAngularZ) == 0 {
			if ii := toVec3(b.InvInertia); ii.x > 0 && ii.y > 0 && ii.z > 0 {
				sc.gyro = append(sc.gyro, gyroBody{i: int32(len(sc.state) - 1), inertia: vec3{1 / ii.x, 1 / ii.y, 1 / ii.z}, frame: c.frame})
			}
		}
	}

	// Contact constraints.
	hertz := min(cfg.ContactHertz, float32(0.25*invH))
	soft := makeSoft(hertz, cfg.ContactDampingRatio, h)
	staticSoft := makeSoft(float32(2*hertz), cfg.ContactDampingRatio, h)
	sc.cons = sc.cons[:0]
	sc.points = sc.points[:0]
	for mi := range sc.next {
		m := &sc.next[mi]
		if m.sensor || m.n == 0 {
			continue
		}
		ka, kb := sc.kOf[m.a.Index()], sc.kOf[m.b.Index()]
		a, b := sc.sb[ka], sc.sb[kb]
		if a == 0 && b == 0 {
			continue
		}
		ba, bb := &vals[idx[ka]], &vals[idx[kb]]
		// Built in place: a constraint is some 300 bytes.
		sc.cons = append(sc.cons, constraint{})
		c := &sc.cons[len(sc.cons)-1]
		c.a, c.b, c.m, c.p0, c.n, c.normal = a, b, int32(mi), int32(len(sc.points)), int32(m.n), m.normal
		c.t1, c.t2 = orthonormal(m.normal)
		c.friction = float32((ba.Friction + bb.Friction) * 0.5)
		c.restitution = float32((ba.Restitution + bb.Restitution) * 0.5)
		mA, mB := &sc.mass[a], &sc.mass[b]
		c.soft = soft
		if mA.invM == (vec3{}) || mB.invM == (vec3{}) {
			c.soft = staticSoft
		}
		pa, pb := centreOfMass(&sc.shapes[ka], sc.poses[ka]), centreOfMass(&sc.shapes[kb], sc.poses[kb])
		sA, sB := &sc.state[a], &sc.state[b]
		var rA, rB [maxPoints]vec3
		for range m.n {
			sc.points = append(sc.points, solverPoint{})
		}
		ps := sc.points[c.p0:]
		// The patch friction's impulses from the points' (patchFriction's
		// inverse): the sum of their tangent impulses and of their moments
		// about the normal through the centre.
		cen, off, radius, sq := patch(m)
		c.cen, c.sq = cen, sq
		var lin vec3
		var tw float32
		for j := range ps {
			q := &m.pts[j]
			p := &ps[j]
			rA[j], rB[j] = q.p.sub(pa), q.p.sub(pb)
			p.sep0 = q.sep
			p.nImp = q.normal
			lin = lin.add(q.friction)
			tw += c.normal.dot(off[j].cross(q.friction))
		}
		c.t1Imp, c.t2Imp, c.twImp, c.radius = lin.dot(c.t1), lin.dot(c.t2), tw, radius
		c.prepare(mA, mB, &rA, &rB, cen.sub(pa), cen.sub(pb), ps)
		for j := range ps {
			p := &ps[j]
			p.relVel = sB.v.sub(sA.v).dot(c.normal) + sB.w.dot(p.rnB) - sA.w.dot(p.rnA)
		}
	}
	s.stats.Constraints = len(sc.cons)

	// The substeps.
	st, cons, pts := sc.state, sc.cons, sc.points
	maxL2 := float32(cfg.MaxLinearSpeed * cfg.MaxLinearSpeed)
	maxA2 := float32(cfg.MaxAngularSpeed * cfg.MaxAngularSpeed)
	for range cfg.Substeps {
		st[0] = bodyState{}
		for i := 1; i < len(st); i++ {
			mo := &sc.motion[i]
			if !mo.dynamic {
				continue
			}
			b := &st[i]
			v := b.v.addScaled(mo.acc, h).scale(mo.ld)
			w := b.w.addScaled(mo.angAcc, h).scale(mo.ad)
			if l2 := v.lengthSq(); l2 > maxL2 {
				v = v.scale(cfg.MaxLinearSpeed / sqrt(l2))
			}
			if a2 := w.lengthSq(); a2 > maxA2 {
				w = w.scale(cfg.MaxAngularSpeed / sqrt(a2))
			}
			b.v, b.w = v, w
		}
		for gi := range sc.gyro {
			g := &sc.gyro[gi]
			b := &st[g.i]
			b.w = gyroscopic(b.w, sc.bpose[g.i].q.mul(g.frame), g.inertia, h)
		}
		warmStart(cons, pts, st)
		solve(cons, pts, st, invH, cfg.MaxPushOut, true)
		st[0] = bodyState{}
		for i := 1; i < len(st); i++ {
			b := &st[i]
			p := &sc.bpose[i]
			b.dp = b.dp.addScaled(b.v, h)
			b.dth = b.dth.addScaled(b.w, h)
			p.p = p.p.addScaled(b.v, h)
			p.q = p.q.integrate(b.w, h)
		}
		solve(cons, pts, st, invH, cfg.MaxPushOut, false)
	}
	st[0] = bodyState{}
	restitute(cons, pts, st, cfg.RestitutionThreshold)

	// Impulses to the cache.
	for ci := range cons {
		c := &cons[ci]
		m := &sc.next[c.m]
		ps := pts[c.p0 : c.p0+c.n]
		for j := range ps {
			m.pts[j].normal = ps[j].nImp
		}
		patchFriction(m, c.cen, c.sq, c.t1.scale(c.t1Imp).add(c.t2.scale(c.t2Imp)), c.twImp)
	}

	// Bodies back to the world, and sleep.
	for i := 1; i < len(st); i++ {
		k := sc.bodyK[i]
		slot := idx[k]
		b := &vals[slot]
		p, v, w := sc.bpose[i], st[i].v, st[i].w
		if c := sc.shapes[k].comp; c != nil {
			p.p = p.p.sub(p.q.rotate(c.com)) // the entity's position
		}
		if !p.p.finite() || !p.q.finite() || !v.finite() || !w.finite() {
			p, v, w = sc.poses[k], vec3{}, vec3{}
			s.stats.Resets++
		}
		wb.Pos[slot], wb.Rot[slot] = fromVec3(p.p), fromQuat(p.q)
		wb.Vel[slot], wb.AngVel[slot] = fromVec3(v), fromVec3(w)
		if b.Kind != Dynamic {
			continue
		}
		b.Force, b.Torque = fromVec3(vec3{}), fromVec3(vec3{})
		r := sc.isl.find(k)
		var rest float32
		if cfg.NoSleep || sc.noSleep[r] {
			b.SleepTime = 0
		} else {
			calm := v.lengthSq() <= float32(cfg.SleepLinearSpeed*cfg.SleepLinearSpeed) &&
				w.lengthSq() <= float32(cfg.SleepAngularSpeed*cfg.SleepAngularSpeed)
			b.SleepTime, rest = restTime(b.SleepTime, dt, calm)
		}
		sc.minRest[r] = min(sc.minRest[r], rest)
	}
	if cfg.NoSleep {
		return
	}
	for i := 1; i < len(st); i++ {
		k := sc.bodyK[i]
		slot := idx[k]
		b := &vals[slot]
		if b.Kind != Dynamic || sc.minRest[sc.isl.find(k)] < cfg.TimeToSleep {
			continue
		}
		b.Asleep = true
		wb.Vel[slot], wb.AngVel[slot] = fromVec3(vec3{}), fromVec3(vec3{})
		s.stats.Awake--
	}
}

// patch returns the centre of m's points, their offsets from it in the
// contact plane (patchOffset), their mean distance from it and the sum of
// their squared distances.
func patch(m *cachedManifold) (cen vec3, off [maxPoints]vec3, radius, sq float32) {
	n := int(m.n)
	for j := range n {
		cen = cen.add(m.pts[j].p)
	}
	fn := float32(n)
	cen = vec3{cen.x / fn, cen.y / fn, cen.z / fn}
	for j := range n {
		o := patchOffset(m.pts[j].p, cen, m.normal)
		off[j] = o
		l2 := o.lengthSq()
		radius += sqrt(l2)
		sq += l2
	}
	return cen, off, radius / fn, sq
}

// patchOffset returns p's offset from the centre cen in the plane of the
// normal n.
func patchOffset(p, cen, n vec3) vec3 {
	o := p.sub(cen)
	return o.sub(n.scale(o.dot(n)))
}

// patchFriction stores a manifold's patch friction, the tangent impulse
// lin at its centre cen and the impulse tw about its normal, as impulses
// at its points: lin shared evenly and tw as tangent impulses n×o·tw/sq
// at the offsets o from the centre (sq = Σ|o|², patch's), whose sum is
// lin and whose moment about the centre is tw. The cache keeps friction
// per point so the next step's points, matched by id, inherit their
// share.
func patchFriction(m *cachedManifold, cen vec3, sq float32, lin vec3, tw float32) {
	n := int(m.n)
	share := lin.scale(1 / float32(n))
	var k float32
	if sq > 0 {
		k = tw / sq
	}
	for j := range n {
		m.pts[j].friction = share.add(m.normal.cross(patchOffset(m.pts[j].p, cen, m.normal)).scale(k))
	}
}
