package physics

// Position projection of the joints, after the substeps.

// projectJoints moves the joints' bodies to close what the substeps left
// of each joint's error, without touching the velocities: one pass of
// non-linear Gauss–Seidel on the positions, as Jolt's position steps and
// Box2D v2's position solver do (beta, the fraction of each error closed,
// is 1). The soft rows alone leave a joint under a steady load open by
// g/ω² (0.07 mm at 60 Hz: a spring's sag); this closes it, and a chain's
// joints after a whip, without the energy a stiffer spring would add.
func (s *Space) projectJoints(beta float32) {
	sc := &s.sc
	for i := range sc.joints {
		j := &sc.joints[i]
		mA, mB := &sc.mass[j.a], &sc.mass[j.b]
		def := j.def
		g := s.geom(j)
		// A joint that holds rotation is projected as a weld: its anchor
		// and its rotation error together, the rotation it leaves free
		// kept as it is, except the part past a limit, so that closing
		// one error does not reopen another.
		switch j.kind {
		case JointFixed:
			s.projectRigid(j, &g, g.d, rotError(&g, j), beta)
			continue
		case JointRevolute:
			var past float32
			if def.Limits {
				_, angle := axis(j, &g)
				past = pastLimit(angle, def.Lower, def.Upper)
			}
			s.projectRigid(j, &g, g.d, g.ua.cross(g.ub).add(g.ua.scale(past)), beta)
			continue
		case JointPrismatic:
			slide := g.d.dot(g.ua)
			var past float32
			if def.Limits {
				past = pastLimit(slide, def.Lower, def.Upper)
			}
			// The anchor back onto the axis, and to the limit.
			s.projectRigid(j, &g, g.d.sub(g.ua.scale(slide-past)), rotError(&g, j), beta)
			continue
		case JointSpherical:
			// Past a limit, as a weld; within them its rotation is free,
			// and its anchors come together as a ball's do.
			var rot vec3
			if w, ok := swingRow(&g); ok && def.SwingLimit > 0 {
				if past := atan2(g.ua.cross(g.ub).length(), g.ua.dot(g.ub)) - def.SwingLimit; past > 0 {
					rot = w.scale(past)
				}
			}
			if def.Limits {
				rot = rot.add(twistAxis(&g).scale(pastLimit(twistAngle(&g, j), def.Lower, def.Upper)))
			}
			if rot != (vec3{}) {
				s.projectRigid(j, &g, g.d, rot, beta)
				continue
			}
			p := pointMass(mA, mB, g.rA, g.rB).solve3(g.d).scale(-beta)
			s.moveJoint(j, p, g.rA, g.rB)
		case JointDistance:
			if !def.Spring {
				s.projectAxial(j, beta)
			}
		}
	}
}

// pastLimit returns how far c is past [lo, hi] (negative below lo), or 0
// within it.
func pastLimit(c, lo, hi float32) float32 {
	switch {
	case c < lo:
		return c - lo
	case c > hi:
		return c - hi
	}
	return 0
}

// projectRigid closes a joint's anchor gap d (gap) and its rotation error
// e (rot: the rotation vector that carries A's frame to where B's is, in
// the world) together: the position impulse P at the anchors and the angular one L
// that solve the coupled system
//
//	K11 P + K12 L = −d, K21 P + K22 L = −e
//
// (K11 the point's effective mass, K22 = IA⁻¹ + IB⁻¹, K12 L = −rA×(IA⁻¹L)
// − rB×(IB⁻¹L), K21 P = IA⁻¹(rA×P) + IB⁻¹(rB×P)), by its Schur complement,
// so closing one does not reopen the other.
func (s *Space) projectRigid(j *solverJoint, g *jointGeom, gap, rot vec3, beta float32) {
	sc := &s.sc
	mA, mB := &sc.mass[j.a], &sc.mass[j.b]
	d, e := gap.scale(beta), rot.scale(beta)
	k22 := mA.invI.add(mB.invI)
	k12 := func(l vec3) vec3 {
		return g.rA.cross(mA.invI.mulVec(l)).add(g.rB.cross(mB.invI.mulVec(l))).neg()
	}
	k21 := func(p vec3) vec3 {
		return mA.invI.mulVec(g.rA.cross(p)).add(mB.invI.mulVec(g.rB.cross(p)))
	}
	k11 := pointMass(mA, mB, g.rA, g.rB)
	// S = K11 − K12 K22⁻¹ K21, column by column.
	var cols [3]vec3
	for c := range 3 {
		var u vec3
		switch c {
		case 0:
			u.x = 1
		case 1:
			u.y = 1
		default:
			u.z = 1
		}
		cols[c] = k11.mulVec(u).sub(k12(k22.solve3(k21(u))))
	}
	sm := mat3{
		vec3{cols[0].x, cols[1].x, cols[2].x},
		vec3{cols[0].y, cols[1].y, cols[2].y},
		vec3{cols[0].z, cols[1].z, cols[2].z},
	}
	p := sm.solve3(d.neg().add(k12(k22.solve3(e))))
	l := k22.solve3(e.neg().sub(k21(p)))
	if j.a != 0 {
		s.nudge(j.a, mA.invM.mul(p).neg(), mA.invI.mulVec(g.rA.cross(p).add(l)).neg())
	}
	if j.b != 0 {
		s.nudge(j.b, mB.invM.mul(p), mB.invI.mulVec(g.rB.cross(p).add(l)))
	}
}

// projectAxial closes the part of a joint's coordinate past its limits (a
// revolute joint's angle, a prismatic joint's position, a spherical
// joint's twist) or a rope's stretch past its length.
func (s *Space) projectAxial(j *solverJoint, beta float32) {
	sc := &s.sc
	jb := jointBodies{&sc.state[j.a], &sc.state[j.b], &sc.mass[j.a], &sc.mass[j.b]}
	g := s.geom(j)
	def := j.def
	var row axialRow
	var c, lo, hi float32
	switch j.kind {
	case JointSpherical:
		row = axialRow{dir: twistAxis(&g), angular: true}
		c, lo, hi = twistAngle(&g, j), def.Lower, def.Upper
	case JointDistance:
		row, c = axis(j, &g)
		lo, hi = def.MinLength, def.MaxLength
	default:
		row, c = axis(j, &g)
		lo, hi = def.Lower, def.Upper
	}
	var e float32 // the coordinate's excess past the nearer bound
	switch {
	case c < lo && (j.kind != JointDistance || lo > 0):
		e = c - lo
	case c > hi:
		e = c - hi
	default:
		return
	}
	row.prepare(&jb)
	lambda := -float32(float32(beta*row.mass) * e)
	if row.angular {
		s.turnJoint(j, row.dir.scale(lambda))
		return
	}
	s.moveJoint(j, row.dir.scale(lambda), row.sA, row.sB)
}

// moveJoint moves j's bodies as the position impulse p at arms rA (to A,
// negated) and rB would.
func (s *Space) moveJoint(j *solverJoint, p, rA, rB vec3) {
	mA, mB := &s.sc.mass[j.a], &s.sc.mass[j.b]
	if j.a != 0 {
		s.nudge(j.a, mA.invM.mul(p).neg(), mA.invI.mulVec(rA.cross(p)).neg())
	}
	if j.b != 0 {
		s.nudge(j.b, mB.invM.mul(p), mB.invI.mulVec(rB.cross(p)))
	}
}

// turnJoint turns j's bodies as the angular position impulse l (to A,
// negated) would.
func (s *Space) turnJoint(j *solverJoint, l vec3) {
	mA, mB := &s.sc.mass[j.a], &s.sc.mass[j.b]
	if j.a != 0 {
		s.nudge(j.a, vec3{}, mA.invI.mulVec(l).neg())
	}
	if j.b != 0 {
		s.nudge(j.b, vec3{}, mB.invI.mulVec(l))
	}
}

// nudge moves solver body i by dp and turns it by the rotation vector dth.
func (s *Space) nudge(i int32, dp, dth vec3) {
	b, p := &s.sc.state[i], &s.sc.bpose[i]
	b.dp, b.dth = b.dp.add(dp), b.dth.add(dth)
	p.p = p.p.add(dp)
	p.q = p.q.integrate(dth, 1)
}
