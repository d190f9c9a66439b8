package physics

// The narrow phase: the pairs' manifolds and the contact cache built from
// the last one.

import "github.com/nebulaengine/nebula/engine"

// collidePairs runs the broad phase and the narrow phase and builds the
// new cache in sc.next from the old one: manifolds of pairs where a body
// moves are computed afresh (warm-started from the old ones by point id),
// those between two bodies that do not move are kept. It records the
// begin and end events.
func (s *Space) collidePairs(n int) {
	sc := &s.sc
	vals, _ := s.bodies.Slices()
	idx := s.bodies.Indices()
	sc.pairs = s.bp.pairs(sc.boxes[:n], sc.find, sc.pairs)
	s.stats.Pairs, s.stats.PairsDropped = len(sc.pairs), s.bp.dropped
	s.collectJointed()
	old := s.contacts.Ptr().m
	next := sc.next[:0]
	sc.impacts = sc.impacts[:0]
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
		sensor := ba.Sensor || bb.Sensor
		if !pairCollides(ba, bb, sensor) || s.jointedPair(int32(min(sa, sb)), int32(max(sa, sb))) {
			// A pair that collided before a body's kind or layers
			// changed (SetKind, SetLayers), or before a joint between
			// them (CollideConnected off), ends.
			s.endPair(prevs)
			continue
		}
		// A body's travel counts against static bodies, and against the
		// others when it has CCD (a fast body without CCD has its
		// travel only for the automatic CCD against static bodies).
		extA, extB := sc.ext[pr.a], sc.ext[pr.b]
		if !ba.CCD && bb.Kind != Static {
			extA = 0
		}
		if !bb.CCD && ba.Kind != Static {
			extB = 0
		}
		margin := s.cfg.SpeculativeDistance + extA + extB
		shA, shB := &sc.shapes[pr.a], &sc.shapes[pr.b]
		if shA.kind.hasParts() || shB.kind.hasParts() {
			next = s.multiPair(pr, ea, eb, sensor, margin, prevs, next)
			continue
		}
		// Two boxes that have barely moved against each other keep their
		// points (manifoldreuse.go); a fast body's travel never does.
		boxes := shA.kind == Box && shB.kind == Box && !sensor
		reused := boxes && extA+extB == 0 && len(prevs) > 0 &&
			reuseBoxes(&prevs[0], shA, sc.poses[pr.a], shB, sc.poses[pr.b], &m)
		m.lastRefB = boxes && len(prevs) > 0 && prevs[0].n > 0 && lastRefB(prevs[0].pts[0].id)
		switch {
		case reused:
		case shA.kind <= shB.kind:
			collideWith(shA, sc.poses[pr.a], shB, sc.poses[pr.b], margin, &s.mq.gen, &m)
		default:
			collideWith(shB, sc.poses[pr.b], shA, sc.poses[pr.a], margin, &s.mq.gen, &m)
			m.normal = m.normal.neg()
		}
		if m.n == 0 && extA+extB > 0 {
			s.impactManifold(pr, int32(len(next)), &m)
		}
		var prev *cachedManifold
		if len(prevs) > 0 {
			prev = &prevs[0]
		}
		// The record is built in place at the end of next (a manifold is
		// some 200 bytes: no copies) and dropped again when m is empty.
		next = append(next, cachedManifold{})
		cm := &next[len(next)-1]
		s.fillCached(cm, &m, prev, ea, eb, sensor)
		switch {
		case reused:
			cm.reuse, cm.reusable = prev.reuse, true
		case boxes && m.n > 0:
			recordBoxes(cm, shA, sc.poses[pr.a], shB, sc.poses[pr.b])
		}
		was := prev != nil && prev.touching
		switch {
		case cm.touching && !was:
			s.events = append(s.events, event(Begin, cm))
		case !cm.touching && was:
			s.events = append(s.events, event(End, prev))
		}
		if m.n == 0 {
			next = next[:len(next)-1]
		}
	}
	for ; oi < len(old); oi++ {
		next = s.keepOrEnd(&old[oi], next)
	}
	sc.next = next
}

// pairCollides reports whether the bodies a and b get a manifold: their
// layers let them, and one is dynamic or, when one of them is a sensor
// (sensor), kinematic: a sensor reports a kinematic body and a kinematic
// sensor reports static and kinematic bodies (as Jolt's sensors do),
// while two bodies that are not dynamic never push each other.
func pairCollides(a, b *Body, sensor bool) bool {
	if !collides(a, b) {
		return false
	}
	return a.Kind == Dynamic || b.Kind == Dynamic || sensor && (a.Kind == Kinematic || b.Kind == Kinematic)
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
	var cm cachedManifold
	s.fillCached(&cm, m, prev, ea, eb, sensor)
	return cm
}

// fillCached is newCached writing into cm, which must be zero.
func (s *Space) fillCached(cm *cachedManifold, m *manifold, prev *cachedManifold, ea, eb engine.Entity, sensor bool) {
	cm.a, cm.b, cm.sub, cm.normal, cm.n, cm.sensor = ea, eb, m.sub, m.normal, uint8(m.n), sensor
	for j := range m.n {
		q := &m.pts[j]
		cp := &cm.pts[j]
		cp.id, cp.p, cp.sep = q.id, q.p, q.sep
		if q.sep <= s.cfg.TouchDistance {
			cm.touching = true
		}
	}
	if prev != nil {
		s.stats.WarmPoints += warm(cm, prev, float32(s.cfg.WarmStartDistance*s.cfg.WarmStartDistance))
	}
	s.stats.Points += int(cm.n)
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
	if ba, bb := s.bodies.Ptr(m.a), s.bodies.Ptr(m.b); ba != nil && bb != nil &&
		pairCollides(ba, bb, ba.Sensor || bb.Sensor) {
		ka, kb := s.sc.kOf[m.a.Index()], s.sc.kOf[m.b.Index()]
		if !s.sc.find[ka] && !s.sc.find[kb] {
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
				s.sc.flips++
				k := s.sc.kOf[e.Index()]
				s.sc.active[k], s.sc.find[k] = true, true
				s.stats.Awake++
			}
		}
		s.sc.ended, s.sc.endedKey = true, m.key()
	}
	return next
}

// hit records that the bodies of manifold sc.next[mi], apart at the start
// of the step (not touching), met within it: its points took a normal
// impulse (a fast body's speculative contact, CCD). It marks the manifold
// touching and records the pair's Begin event in the step of the hit, as
// Jolt's and Box2D's continuous collision do, unless the pair already
// touches through another manifold (a mesh's or a compound's) or its End
// was recorded in this step (it touched last step: the End is taken back,
// the contact goes on).
func (s *Space) hit(mi int) {
	next := s.sc.next
	m := &next[mi]
	if m.touching {
		return
	}
	key := m.key()
	for j := mi - 1; j >= 0 && next[j].key() == key; j-- {
		if next[j].touching {
			m.touching = true
			return
		}
	}
	for j := mi + 1; j < len(next) && next[j].key() == key; j++ {
		if next[j].touching {
			m.touching = true
			return
		}
	}
	m.touching = true
	for i := range s.events {
		if ev := &s.events[i]; ev.Kind == End && ev.A == m.a && ev.B == m.b {
			s.events = append(s.events[:i], s.events[i+1:]...)
			return
		}
	}
	s.events = append(s.events, event(Begin, m))
}

// impact is a manifold of the step's cache (index m in sc.next) found
// where its bodies meet during the step (impactManifold), with how far
// each body had moved there: its points' lever arms are taken from there.
type impact struct {
	m      int32
	sa, sb vec3 // the bodies' displacements at the time of impact
}

// impactManifold writes into m, for the pair pr whose shapes have no
// contact within the margin at the start of the step although one of them
// travels far (CCD), the contact where they first meet along their
// relative motion in the step: a shape cast of one along its motion
// relative to the other, the manifold at the time of impact, each point's
// separation put back to what it is at the start of the step along the
// normal. So a fast body that reaches another across the other's face (an
// oblique hit, whose faces do not face each other at the start, the
// manifold at the start being empty) is stopped, not passed through. It
// records the displacements in sc.impacts for the points' lever arms (mi:
// the index m takes in sc.next). m.n stays 0 when they do not meet.
func (s *Space) impactManifold(pr pair, mi int32, m *manifold) {
	sc := &s.sc
	wb := s.w.Bodies()
	idx := s.bodies.Indices()
	dt := 1 / float32(s.cfg.TickRate)
	da := toVec3(wb.Vel[idx[pr.a]]).scale(dt)
	db := toVec3(wb.Vel[idx[pr.b]]).scale(dt)
	if !sc.active[pr.a] {
		da = vec3{}
	}
	if !sc.active[pr.b] {
		db = vec3{}
	}
	rel := da.sub(db) // a's motion relative to b
	shA, shB := &sc.shapes[pr.a], &sc.shapes[pr.b]
	if shA.kind >= Mesh || shB.kind >= Mesh {
		return
	}
	ca, cb := convexOf(shA, sc.poses[pr.a]), convexOf(shB, sc.poses[pr.b])
	t, _, hit := cast(&ca, &cb, rel, float32(0.5*s.cfg.SpeculativeDistance))
	if !hit {
		return
	}
	// The cast stops within its target gap: on to where they touch, so
	// the manifold is that of the contact itself (a face reached across
	// another is clipped where it meets it, not a little before).
	ca.p.p = ca.p.p.addScaled(rel, t)
	if d, n := distance(&ca, &cb); d > 0 {
		if cl := rel.dot(n); cl > 0 {
			t = min(1, t+d/cl)
		}
	}
	// Both bodies moved on by the fraction t: a at pa + t·da, b at
	// pb + t·db.
	sa, sb := da.scale(t), db.scale(t)
	pa, pb := sc.poses[pr.a], sc.poses[pr.b]
	pa.p, pb.p = pa.p.add(sa), pb.p.add(sb)
	if shA.kind <= shB.kind {
		collideWith(shA, pa, shB, pb, s.cfg.SpeculativeDistance, &s.mq.gen, m)
	} else {
		collideWith(shB, pb, shA, pa, s.cfg.SpeculativeDistance, &s.mq.gen, m)
		m.normal = m.normal.neg()
	}
	if m.n == 0 {
		return
	}
	// At the start of the step the gap along the normal was larger by
	// the part of the relative motion along it.
	back := float32(t * rel.dot(m.normal))
	for j := range m.n {
		m.pts[j].sep += back
	}
	sc.impacts = append(sc.impacts, impact{m: mi, sa: sa, sb: sb})
}
