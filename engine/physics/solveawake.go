package physics

import (
	"cmp"
	"slices"
)

// Solving the awake bodies: the solver bodies, the substeps and sleep.

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
		// The gyroscopic term, for every free dynamic body whose principal
		// moments differ (a sphere's or a cube's do not: it would be 0).
		if ii := toVec3(b.InvInertia); b.Kind == Dynamic && b.Locks&(LockAngularX|LockAngularY|LockAngularZ) == 0 &&
			ii.x > 0 && ii.y > 0 && ii.z > 0 && (ii.x != ii.y || ii.y != ii.z) {
			frame := identity
			if c := sc.shapes[k].comp; c != nil {
				frame = c.frame
			}
			sc.gyro = append(sc.gyro, gyroBody{i: int32(len(sc.state) - 1), inertia: vec3{1 / ii.x, 1 / ii.y, 1 / ii.z}, frame: frame})
		}
	}

	// Contact constraints.
	hertz := min(cfg.ContactHertz, float32(0.25*invH))
	soft := makeSoft(hertz, cfg.ContactDampingRatio, h)
	staticSoft := makeSoft(float32(2*hertz), cfg.ContactDampingRatio, h)
	s.contactEdges()
	order := sc.orderEdges(len(sc.state))
	sc.cons = sc.cons[:0]
	sc.points = sc.points[:0]
	for _, ei := range order {
		e := &sc.edges[ei]
		mi, a, b := e.m, e.a, e.b
		m := &sc.next[mi]
		ka, kb := sc.kOf[m.a.Index()], sc.kOf[m.b.Index()]
		// Built in place: a constraint is some 300 bytes.
		sc.cons = append(sc.cons, constraint{})
		c := &sc.cons[len(sc.cons)-1]
		c.a, c.b, c.m, c.p0, c.n, c.normal = a, b, mi, int32(len(sc.points)), int32(m.n), m.normal
		c.t1, c.t2 = orthonormal(m.normal)
		c.friction, c.restitution = e.friction, e.restitution
		c.sv1, c.sv2 = e.surface.dot(c.t1), e.surface.dot(c.t2)
		mA, mB := &sc.mass[a], &sc.mass[b]
		c.soft = soft
		if mA.invM == (vec3{}) || mB.invM == (vec3{}) {
			c.soft = staticSoft
		}
		pa, pb := centreOfMass(&sc.shapes[ka], sc.poses[ka]), centreOfMass(&sc.shapes[kb], sc.poses[kb])
		// sc.impacts is in manifold order; the constraints are not.
		if ii, ok := slices.BinarySearchFunc(sc.impacts, mi, func(im impact, m int32) int { return cmp.Compare(im.m, m) }); ok {
			// Points found at the time of impact: the arms from where
			// the bodies are then.
			pa, pb = pa.add(sc.impacts[ii].sa), pb.add(sc.impacts[ii].sb)
			c.ccd = true
		}
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
		// An impact: the points approach faster than the restitution
		// threshold on average, or last step's impulses, applied again in
		// each substep by the warm start, would move them apart faster
		// than that (the step after an impact), or they are all apart and
		// meet in this step (meets).
		var rel, warmImp float32
		for j := range ps {
			p := &ps[j]
			p.relVel = sB.v.sub(sA.v).dot(c.normal) + sB.w.dot(p.rnB) - sA.w.dot(p.rnA)
			rel += p.relVel
			warmImp += p.nImp
		}
		// A contact apart by more than the speculative distance at the
		// start of the step (only a fast or CCD body has one) bounces
		// where its bodies meet, after the substeps (restitute), as
		// Jolt's linear cast does; a nearer one bounces from where it
		// is, in the first substep, as Jolt's discrete contacts do.
		minSep := ps[0].sep0
		for j := 1; j < len(ps); j++ {
			minSep = min(minSep, ps[j].sep0)
		}
		c.ccd = c.ccd || minSep > cfg.SpeculativeDistance
		thr := cfg.RestitutionThreshold
		all := c.restitution > 0
		var sumBounce float32
		for j := range ps {
			p := &ps[j]
			if !c.ccd && bounces(p, c.restitution, thr, dt) {
				p.bounce = float32(c.restitution * -p.relVel)
				sumBounce += p.bounce
			} else {
				all = false
			}
		}
		if len(ps) > 1 {
			row := commonRow(c, mA, mB, ps)
			// With a penetration slop every contact of several points
			// takes its common row first: within the slop its rows are
			// rigid, with no spring to undo the tilt that taking the
			// points in turn leaves, so a box placed on the floor would
			// walk a few tenths of a millimetre.
			c.impact = cfg.PenetrationSlop > 0 || rel < -float32(thr*float32(len(ps))) || warmImp > float32(thr*row.nMass) || meets(ps, rel, dt)
			if c.impact {
				sc.points = append(sc.points, row)
				if all {
					c.bounce = sumBounce / float32(len(ps))
				}
			}
		}
	}
	s.stats.Constraints = len(sc.cons)
	jointHertz := cfg.JointHertz
	if jointHertz == 0 {
		jointHertz = 60
	}
	jointSoft := makeSoft(min(jointHertz, float32(0.25*invH)), cfg.JointDampingRatio, h)
	s.prepareJoints(h)

	// The substeps.
	st, cons, pts := sc.state, sc.cons, sc.points
	maxL2 := float32(cfg.MaxLinearSpeed * cfg.MaxLinearSpeed)
	maxA2 := float32(cfg.MaxAngularSpeed * cfg.MaxAngularSpeed)
	for sub := range cfg.Substeps {
		st[0] = bodyState{}
		// The gyroscopic term first, on the substep's starting angular
		// velocity (explicit Euler, as Jolt orders it): a body pushed
		// from rest by a torque turns as I⁻¹τ says.
		for gi := range sc.gyro {
			g := &sc.gyro[gi]
			b := &st[g.i]
			b.w = gyroscopic(b.w, sc.bpose[g.i].q.mul(g.frame), g.inertia, h)
		}
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
		s.solveJoints(true, false, jointSoft, invH, h)
		warmStart(cons, pts, st)
		s.solveJoints(false, true, jointSoft, invH, h)
		solve(cons, pts, st, invH, cfg.MaxPushOut, cfg.PenetrationSlop, true, sub == 0)
		st[0] = bodyState{}
		for i := 1; i < len(st); i++ {
			b := &st[i]
			p := &sc.bpose[i]
			b.dp = b.dp.addScaled(b.v, h)
			b.dth = b.dth.addScaled(b.w, h)
			p.p = p.p.addScaled(b.v, h)
			p.q = p.q.integrate(b.w, h)
		}
		s.solveJoints(false, false, jointSoft, invH, h)
		solve(cons, pts, st, invH, cfg.MaxPushOut, cfg.PenetrationSlop, false, sub == 0)
	}
	st[0] = bodyState{}
	restitute(cons, pts, st, cfg.RestitutionThreshold)
	s.projectJoints(1)
	s.finishJoints(h)

	// Impulses to the cache.
	for ci := range cons {
		c := &cons[ci]
		m := &sc.next[c.m]
		ps := pts[c.p0 : c.p0+c.n]
		met := false
		for j := range ps {
			m.pts[j].normal, m.pts[j].impulse = ps[j].nImp, ps[j].total
			met = met || ps[j].maxNImp > 0
		}
		if met && !m.touching {
			s.hit(int(c.m))
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
		if b.HasTarget {
			// MoveKinematic's pose, exactly. A character stops there: it
			// moves only by MoveCharacter, and a tick without one (a game
			// that pauses its controls) must not carry it on at its last
			// velocity, through walls.
			p, b.HasTarget = pose{toVec3(b.Target), toQuat(b.TargetRot)}, false
			if e, _ := s.w.EntityAt(int(slot)); s.chars.Has(e) {
				v, w = vec3{}, vec3{}
			}
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
		if cfg.NoSleep || sc.noSleep[r] || b.NoSleep {
			b.SleepTime = 0
		} else {
			calm := sleepSpeed(st[i].dp, st[i].dth, maxExtent(&sc.shapes[k]), dt) <= cfg.SleepLinearSpeed &&
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
		sc.flips++
		wb.Vel[slot], wb.AngVel[slot] = fromVec3(vec3{}), fromVec3(vec3{})
		s.stats.Awake--
	}
}

// bounces reports whether the point p of a contact with restitution e
// bounces in this step of dt seconds: it approaches faster than the
// threshold thr at the start of the step, and fast enough to close its
// gap within the step (Jolt's rule: a speculative contact that the
// step's motion does not close does not bounce; if something else
// brings the bodies together it stops them without restitution).
func bounces(p *solverPoint, e, thr, dt float32) bool {
	return e > 0 && p.relVel < -thr && float32(-p.relVel*dt) > p.sep0
}

// meets reports whether the points ps of a contact (rel: the sum of their
// normal velocities at the start of the step), all apart at the start of
// the step of dt seconds, close the nearest one's gap within it at their
// mean approach speed: a face that reaches another face in this step,
// however slowly. Its points take the common row first (solve), as in a
// fast impact: taken in turn, the first point takes the most and the
// bodies turn about the normal, so two boxes that met face on at 0.6 m/s
// without friction parted at 0.025 m/s, spinning at 0.025 rad/s.
func meets(ps []solverPoint, rel, dt float32) bool {
	if rel >= 0 {
		return false
	}
	gap := ps[0].sep0
	for j := 1; j < len(ps); j++ {
		gap = min(gap, ps[j].sep0)
	}
	closing := float32(-rel / float32(len(ps)))
	return gap > 0 && gap < float32(closing*dt)
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
