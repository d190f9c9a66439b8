package physics

// islands is a union-find over the bodies of a step (indices into the
// step's body list): two dynamic bodies with a contact that will be
// solved (touching or speculative) are in one island. It is rebuilt every step from the contact cache, so it holds
// no state of its own between steps.
type islands struct {
	parent []int32
}

// reset makes n singleton islands.
func (u *islands) reset(n int) {
	u.parent = grow(u.parent, n)
	for i := range u.parent {
		u.parent[i] = int32(i)
	}
}

// find returns the root of i's island, halving the path on the way.
func (u *islands) find(i int32) int32 {
	p := u.parent
	for p[i] != i {
		p[i] = p[p[i]]
		i = p[i]
	}
	return i
}

// union joins the islands of a and b. The lower root becomes the root, so
// the result does not depend on the order of the unions' arguments.
func (u *islands) union(a, b int32) {
	ra, rb := u.find(a), u.find(b)
	switch {
	case ra < rb:
		u.parent[rb] = ra
	case rb < ra:
		u.parent[ra] = rb
	}
}

// grow returns s with length n, reusing its memory when it can. The
// values are left as they were (or zero when new).
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n, n+n/4)
	}
	return s[:n]
}

// restDecay is how much faster a body's rest time runs down while it
// moves than it builds up while it rests (see restTime).
const restDecay = 2

// restTime returns a dynamic body's rest time after a step of dt seconds
// in which it was calm (slower than the sleep thresholds) or not, and the
// time it gives its island's count: the least of its bodies' must reach
// Config.TimeToSleep for the island to sleep. A calm step adds dt; a step
// that is not calm takes restDecay·dt off (down to 0) instead of starting
// again from 0, so a body of a settled pile that the solver jolts now and
// then (a few steps in thirty) still comes to rest, while one that really
// moves (most of the time) does not. A body that is not calm in this step
// gives its island 0, so an island never sleeps with a body in motion.
func restTime(t, dt float32, calm bool) (rest, island float32) {
	if calm {
		t += dt
		return t, t
	}
	return max(0, t-float32(restDecay*dt)), 0
}

// buildIslands joins dynamic bodies in contact into islands and wakes every
// island with an awake body in it.
func (s *Space) buildIslands(n int) {
	sc := &s.sc
	vals, _ := s.bodies.Slices()
	idx := s.bodies.Indices()
	wb := s.w.Bodies()
	sc.isl.reset(n)
	next := sc.next
	// Every contact the solver will solve between two dynamic bodies joins
	// their islands, speculative ones (points not yet touching) too: the
	// solver must never meet a sleeping body across a contact, or it would
	// solve the contact against it as if it were fixed, and a body running
	// into a sleeper would stop dead (Box2D v3 links an island on a contact
	// with manifold points, Rapier wakes what an awake body has solver
	// contacts with).
	for i := range next {
		m := &next[i]
		if m.n == 0 || m.sensor {
			continue
		}
		ka, kb := sc.kOf[m.a.Index()], sc.kOf[m.b.Index()]
		da, db := vals[idx[ka]].Kind == Dynamic, vals[idx[kb]].Kind == Dynamic
		if da && db {
			sc.isl.union(ka, kb)
		}
	}
	// A joint joins its two dynamic bodies' islands, so they sleep and
	// wake together.
	s.jointIslands()
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
	// A body with a contact to a moving kinematic body wakes (the kinematic
	// body would otherwise be solved against it as if it were fixed, and
	// run into it), and stays awake while they touch.
	for i := range next {
		m := &next[i]
		if m.n == 0 || m.sensor {
			continue
		}
		ka, kb := sc.kOf[m.a.Index()], sc.kOf[m.b.Index()]
		for _, kk := range [2][2]int32{{ka, kb}, {kb, ka}} {
			kin, dyn := idx[kk[0]], idx[kk[1]]
			if vals[kin].Kind == Kinematic && vals[dyn].Kind == Dynamic &&
				(toVec3(wb.Vel[kin]).lengthSq() != 0 || toVec3(wb.AngVel[kin]).lengthSq() != 0) {
				r := sc.isl.find(kk[1])
				sc.awake[r] = true
				if m.touching {
					sc.noSleep[r] = true
				}
			}
		}
	}
	s.kinematicJoints()
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
		if b.Asleep && !sc.awake[r] && unknownContacts(b) {
			// Its contacts are known now: the next steps keep them.
			b.SleepTime = max(s.cfg.TimeToSleep, 1/float32(s.cfg.TickRate))
		}
		if b.Asleep && sc.awake[r] {
			wake(b)
			sc.flips++
			sc.active[k] = true
			s.stats.Awake++
		}
	}
	s.stats.Islands = islands
}
