package physics

import (
	"slices"

	"github.com/nebulaengine/nebula/engine"
)

// Joints in the solver. Each substep warm-starts, solves (with the soft
// push-out of the joint's errors, Config.JointHertz) and relaxes (rigid,
// no push-out) every joint before the contacts, as Box2D v3 does; the
// rows are rebuilt from the bodies' current poses in each pass, so a
// chain that swings fast is held where it is, not where it was. The
// impulses are kept per row between substeps and steps (the warm start):
// the anchor rows as a world vector, the rotation rows as a world vector
// (fixed and prismatic joints) or per row (a hinge's two), the axial rows
// (limits, motor, rope, spring) per row.

// solverJoint is a joint of the step between solver bodies a and b (0: a
// fixed end, whose pose is fixA or fixB: the world, a static body or a
// sleeping one), with its accumulated impulses.
type solverJoint struct {
	slot       int32 // the joint's entity slot
	a, b       int32 // solver bodies (0: fixed)
	kind       JointKind
	fixA, fixB pose     // the fixed ends' centre-of-mass poses
	la, lb     vec3     // the anchors from the centres of mass, in the bodies' frames
	fa, fb     quat     // the frames, in the bodies' frames
	def        *Joint   // the component (read only during the step)
	spring     softness // a distance joint's spring
	lin, ang   vec3
	lower      float32
	upper      float32
	motor      float32
}

// jointPose returns body i's centre-of-mass pose in the substep, or fix
// for a fixed end.
func (s *Space) jointPose(i int32, fix pose) pose {
	if i == 0 {
		return fix
	}
	return s.sc.bpose[i]
}

// prepareJoints collects the step's joints that have a body in the solver,
// in slot order.
func (s *Space) prepareJoints(h float32) {
	sc := &s.sc
	sc.joints = sc.joints[:0]
	if s.joints.Len() == 0 {
		return
	}
	vals, _ := s.joints.Slices()
	for _, slot := range s.joints.Indices() {
		j := &vals[slot]
		if j.Broken {
			continue
		}
		ka, kb, ok := s.jointEnds(j)
		if !ok {
			// A body was removed: the joint holds nothing, and starts
			// afresh if a body is added to that entity again.
			j.lin, j.ang, j.lower, j.upper, j.motorI = vec3{}, vec3{}, 0, 0, 0
			continue
		}
		sj := solverJoint{slot: slot, kind: j.Kind, def: j, fa: j.fa, fb: j.fb,
			lin: j.lin, ang: j.ang, lower: j.lower, upper: j.upper, motor: j.motorI}
		sj.b = sc.sb[kb]
		shB := &sc.shapes[kb]
		sj.lb = toVec3(j.AnchorB).sub(comLocal(shB))
		if sj.b == 0 {
			sj.fixB = pose{centreOfMass(shB, sc.poses[kb]), sc.poses[kb].q}
		}
		if ka < 0 {
			sj.fixA = pose{q: identity}
			sj.la = toVec3(j.AnchorA)
		} else {
			sj.a = sc.sb[ka]
			shA := &sc.shapes[ka]
			sj.la = toVec3(j.AnchorA).sub(comLocal(shA))
			if sj.a == 0 {
				sj.fixA = pose{centreOfMass(shA, sc.poses[ka]), sc.poses[ka].q}
			}
		}
		if sj.a == 0 && sj.b == 0 {
			continue // both ends asleep or fixed
		}
		if j.Kind == JointDistance && j.Spring {
			sj.spring = s.springSoftness(&sj, j, h)
		}
		sc.joints = append(sc.joints, sj)
	}
}

// bodyK returns the step's body index of entity e, or −1 when e is not a
// live body.
func (s *Space) bodyK(e engine.Entity) int32 {
	if !s.bodies.Has(e) {
		return -1
	}
	return s.sc.kOf[e.Index()]
}

// comLocal returns the centre of mass of a body's shape in the body's
// frame (a compound's; 0 for the others).
func comLocal(sh *shape) vec3 {
	if sh.comp != nil {
		return sh.comp.com
	}
	return vec3{}
}

// jointGeom is a joint's geometry in one pass: the bodies' poses, the
// world anchors' arms and the frames' world axes.
type jointGeom struct {
	pA, pB         pose
	rA, rB         vec3 // arms from the centres of mass
	d              vec3 // B's anchor minus A's
	ua, na, ub, nb vec3 // world axes and normals
}

func (s *Space) geom(j *solverJoint) jointGeom {
	var g jointGeom
	g.pA, g.pB = s.jointPose(j.a, j.fixA), s.jointPose(j.b, j.fixB)
	g.rA, g.rB = g.pA.q.rotate(j.la), g.pB.q.rotate(j.lb)
	g.d = g.pB.p.add(g.rB).sub(g.pA.p.add(g.rA))
	wa, wb := g.pA.q.mul(j.fa), g.pB.q.mul(j.fb)
	g.ua, g.na = wa.rotate(vec3{1, 0, 0}), wa.rotate(vec3{0, 1, 0})
	g.ub, g.nb = wb.rotate(vec3{1, 0, 0}), wb.rotate(vec3{0, 1, 0})
	return g
}

// rotError returns the rotation that carries A's world frame onto B's as a
// rotation vector (2·the quaternion's vector part, the short way round):
// 0 in the rest pose.
func rotError(g *jointGeom, j *solverJoint) vec3 {
	e := g.pB.q.mul(j.fb).mul(g.pA.q.mul(j.fa).conj())
	v := vec3{e.x, e.y, e.z}.scale(2)
	if e.w < 0 {
		v = v.neg()
	}
	return v
}

// jointRows applies impulses to the two bodies of a joint.
type jointBodies struct {
	a, b   *bodyState
	mA, mB *bodyMass
}

// applyLinear applies the impulse p at arms rA (to A, negated) and rB.
func (jb *jointBodies) applyLinear(p, rA, rB vec3) {
	jb.a.v = jb.a.v.sub(jb.mA.invM.mul(p))
	jb.a.w = jb.a.w.sub(jb.mA.invI.mulVec(rA.cross(p)))
	jb.b.v = jb.b.v.add(jb.mB.invM.mul(p))
	jb.b.w = jb.b.w.add(jb.mB.invI.mulVec(rB.cross(p)))
}

// applyAngular applies the angular impulse l (to A, negated).
func (jb *jointBodies) applyAngular(l vec3) {
	jb.a.w = jb.a.w.sub(jb.mA.invI.mulVec(l))
	jb.b.w = jb.b.w.add(jb.mB.invI.mulVec(l))
}

// axialRow is a one-dimensional row along dir, with A's arm sA and B's
// arm sB (linear), or an angular row about dir (angular).
type axialRow struct {
	dir, sA, sB vec3
	angular     bool
	mass        float32
}

func (r *axialRow) prepare(jb *jointBodies) {
	var k float32
	if r.angular {
		k = r.dir.dot(jb.mA.invI.mulVec(r.dir)) + r.dir.dot(jb.mB.invI.mulVec(r.dir))
	} else {
		ca, cb := r.sA.cross(r.dir), r.sB.cross(r.dir)
		k = r.dir.dot(jb.mA.invM.mul(r.dir)) + r.dir.dot(jb.mB.invM.mul(r.dir)) +
			ca.dot(jb.mA.invI.mulVec(ca)) + cb.dot(jb.mB.invI.mulVec(cb))
	}
	r.mass = inv(k)
}

// rate returns the row's velocity of B relative to A.
func (r *axialRow) rate(jb *jointBodies) float32 {
	if r.angular {
		return jb.b.w.sub(jb.a.w).dot(r.dir)
	}
	va := jb.a.v.add(jb.a.w.cross(r.sA))
	vb := jb.b.v.add(jb.b.w.cross(r.sB))
	return vb.sub(va).dot(r.dir)
}

// apply applies the impulse lambda along the row.
func (r *axialRow) apply(jb *jointBodies, lambda float32) {
	if r.angular {
		jb.applyAngular(r.dir.scale(lambda))
		return
	}
	jb.applyLinear(r.dir.scale(lambda), r.sA, r.sB)
}

// limitSide solves one side of a limit on a coordinate c whose rate along
// the row is the row's rate (sign +1: the lower side, c >= bound; −1: the
// upper side, c <= bound), with its accumulated impulse acc (>= 0), as
// Box2D v3's joints do: apart, the gap may close within the substep
// (speculative); past it, the soft push-out in the solve pass, rigid in
// relax.
func limitSide(r *axialRow, jb *jointBodies, c, bound, sign float32, acc *float32, soft softness, invH float32, useBias bool) {
	gap := float32(sign * (c - bound))
	bias, massScale, impScale := float32(0), float32(1), float32(0)
	if gap > 0 {
		bias = float32(gap * invH)
	} else if useBias {
		bias, massScale, impScale = float32(soft.biasRate*gap), soft.massScale, soft.impulseScale
	}
	cdot := float32(sign * r.rate(jb))
	imp := -float32(float32(r.mass*massScale)*(cdot+bias)) - float32(impScale**acc)
	n := max(*acc+imp, 0)
	imp = n - *acc
	*acc = n
	r.apply(jb, float32(sign*imp))
}

// solveJoints runs one pass over the step's joints: warm (apply the
// accumulated impulses), solve (useBias: the soft push-out) or relax.
func (s *Space) solveJoints(warm, useBias bool, soft softness, invH, h float32) {
	sc := &s.sc
	for i := range sc.joints {
		j := &sc.joints[i]
		jb := jointBodies{&sc.state[j.a], &sc.state[j.b], &sc.mass[j.a], &sc.mass[j.b]}
		g := s.geom(j)
		if warm {
			s.warmJoint(j, &g, &jb)
			continue
		}
		s.solveJoint(j, &g, &jb, soft, invH, h, useBias)
	}
	sc.state[0] = bodyState{}
}

// The axial rows of a joint in a pass.
func axis(j *solverJoint, g *jointGeom) (row axialRow, coord float32) {
	switch j.kind {
	case JointRevolute:
		row = axialRow{dir: g.ua, angular: true}
		coord = atan2(g.ua.dot(g.na.cross(g.nb)), g.na.dot(g.nb))
	case JointPrismatic:
		row = axialRow{dir: g.ua, sA: g.rA.add(g.d), sB: g.rB}
		coord = g.d.dot(g.ua)
	case JointDistance:
		dir, l := direction(g.d, vec3{})
		if l == 0 {
			dir, _ = direction(g.pB.p.sub(g.pA.p), vec3{0, 1, 0})
		}
		row = axialRow{dir: dir, sA: g.rA, sB: g.rB}
		coord = l
	}
	return row, coord
}

// warmJoint applies j's accumulated impulses along the current rows.
func (s *Space) warmJoint(j *solverJoint, g *jointGeom, jb *jointBodies) {
	switch j.kind {
	case JointFixed, JointSpherical, JointRevolute:
		jb.applyLinear(j.lin, g.rA, g.rB)
	case JointPrismatic:
		n1, n2 := sliderCross(g)
		jb.applyLinear(n1.scale(j.lin.x).add(n2.scale(j.lin.y)), g.rA.add(g.d), g.rB)
	}
	switch j.kind {
	case JointFixed, JointPrismatic:
		jb.applyAngular(j.ang)
	case JointRevolute:
		c1, c2 := hingeRows(g)
		jb.applyAngular(c1.scale(j.ang.x).add(c2.scale(j.ang.y)))
	case JointSpherical:
		if sw, ok := swingRow(g); ok {
			jb.applyAngular(sw.scale(-j.ang.x))
		}
		if j.def.Limits {
			jb.applyAngular(twistAxis(g).scale(j.lower - j.upper))
		}
	}
	if j.kind == JointRevolute || j.kind == JointPrismatic || j.kind == JointDistance {
		row, _ := axis(j, g)
		row.apply(jb, j.motor+j.lower-j.upper)
	}
}

// hingeRows returns a revolute joint's two rotation rows: b2 × a1 and b3 ×
// a1, with a1 A's axis and b2, b3 perpendicular to B's (Jolt's
// HingeRotationConstraintPart): the rates of a1·b2 and a1·b3, which are 0
// when the axes coincide.
func hingeRows(g *jointGeom) (c1, c2 vec3) {
	b2, b3 := hingeCross(g)
	return b2.cross(g.ua), b3.cross(g.ua)
}

// hingeCross returns two unit vectors across B's axis that turn with B:
// its normal and axis × normal. (Vectors picked from the axis alone, as
// orthonormal picks them, jump when the axis crosses a branch of the
// choice, and the impulses kept per row would then be applied along
// other rows than they were solved on.)
func hingeCross(g *jointGeom) (b2, b3 vec3) {
	return g.nb, g.ub.cross(g.nb)
}

// sliderCross returns two unit vectors across A's axis that turn with A,
// the prismatic joint's rows across its axis: A's normal and axis ×
// normal.
func sliderCross(g *jointGeom) (n1, n2 vec3) {
	return g.na, g.ua.cross(g.na)
}

// swingRow returns the axis about which a spherical joint's swing (the
// angle from A's axis to B's) grows, and whether the axes are apart
// enough for it to be defined.
func swingRow(g *jointGeom) (vec3, bool) {
	w, l := direction(g.ua.cross(g.ub), vec3{})
	return w, l > 1e-6
}

// twistAxis returns the axis of a spherical joint's twist: between A's
// and B's axes.
func twistAxis(g *jointGeom) vec3 {
	t, l := direction(g.ua.add(g.ub), g.ua)
	if l == 0 {
		return g.ua
	}
	return t
}

// twistAngle returns how far B's frame is turned about its axis from A's,
// after the swing that carries A's axis onto B's (the swing–twist split
// of the relative rotation).
func twistAngle(g *jointGeom, j *solverJoint) float32 {
	r := g.pA.q.mul(j.fa).conj().mul(g.pB.q.mul(j.fb))
	if r.w < 0 {
		r = quat{-r.x, -r.y, -r.z, -r.w}
	}
	return float32(2 * atan2(r.x, r.w))
}

// solveJoint runs one solve or relax pass of j.
func (s *Space) solveJoint(j *solverJoint, g *jointGeom, jb *jointBodies, soft softness, invH, h float32, useBias bool) {
	def := j.def
	// Axial rows first (spring, motor, limits), then the rotation, then
	// the anchors, as Box2D orders them: the hard rows last.
	if j.kind == JointRevolute || j.kind == JointPrismatic || j.kind == JointDistance {
		row, c := axis(j, g)
		row.prepare(jb)
		switch {
		case j.kind == JointDistance && def.Spring:
			cdot := row.rate(jb)
			bias := float32(j.spring.biasRate * (c - def.MaxLength))
			imp := -float32(float32(row.mass*j.spring.massScale)*(cdot+bias)) - float32(j.spring.impulseScale*j.motor)
			j.motor += imp
			row.apply(jb, imp)
		case j.kind == JointDistance:
			if def.MinLength > 0 {
				limitSide(&row, jb, c, def.MinLength, 1, &j.lower, soft, invH, useBias)
			}
			limitSide(&row, jb, c, def.MaxLength, -1, &j.upper, soft, invH, useBias)
		default:
			if def.Motor {
				cdot := row.rate(jb) - def.MotorSpeed
				imp := -float32(row.mass * cdot)
				maxImp := float32(def.MaxMotorForce * h)
				n := clamp(j.motor+imp, -maxImp, maxImp)
				row.apply(jb, n-j.motor)
				j.motor = n
			}
			if def.Limits {
				limitSide(&row, jb, c, def.Lower, 1, &j.lower, soft, invH, useBias)
				limitSide(&row, jb, c, def.Upper, -1, &j.upper, soft, invH, useBias)
			}
		}
	}
	switch j.kind {
	case JointSpherical:
		if def.SwingLimit > 0 {
			if w, ok := swingRow(g); ok {
				swing := atan2(g.ua.cross(g.ub).length(), g.ua.dot(g.ub))
				row := axialRow{dir: w, angular: true}
				row.prepare(jb)
				limitSide(&row, jb, swing, def.SwingLimit, -1, &j.ang.x, soft, invH, useBias)
			}
		}
		if def.Limits {
			row := axialRow{dir: twistAxis(g), angular: true}
			row.prepare(jb)
			tw := twistAngle(g, j)
			limitSide(&row, jb, tw, def.Lower, 1, &j.lower, soft, invH, useBias)
			limitSide(&row, jb, tw, def.Upper, -1, &j.upper, soft, invH, useBias)
		}
	case JointRevolute:
		c1, c2 := hingeRows(g)
		ki := jb.mA.invI.add(jb.mB.invI)
		k11, k12, k22 := c1.dot(ki.mulVec(c1)), c1.dot(ki.mulVec(c2)), c2.dot(ki.mulVec(c2))
		dw := jb.b.w.sub(jb.a.w)
		v1, v2 := dw.dot(c1), dw.dot(c2)
		massScale, impScale := float32(1), float32(0)
		if useBias {
			b2, b3 := hingeCross(g)
			v1 += float32(soft.biasRate * g.ua.dot(b2))
			v2 += float32(soft.biasRate * g.ua.dot(b3))
			massScale, impScale = soft.massScale, soft.impulseScale
		}
		x1, x2 := solve2(k11, k12, k22, v1, v2)
		l1 := -float32(massScale*x1) - float32(impScale*j.ang.x)
		l2 := -float32(massScale*x2) - float32(impScale*j.ang.y)
		j.ang.x += l1
		j.ang.y += l2
		jb.applyAngular(c1.scale(l1).add(c2.scale(l2)))
	case JointFixed, JointPrismatic:
		ki := jb.mA.invI.add(jb.mB.invI)
		cdot := jb.b.w.sub(jb.a.w)
		massScale, impScale := float32(1), float32(0)
		if useBias {
			cdot = cdot.add(rotError(g, j).scale(soft.biasRate))
			massScale, impScale = soft.massScale, soft.impulseScale
		}
		l := ki.solve3(cdot).scale(-massScale).sub(j.ang.scale(impScale))
		j.ang = j.ang.add(l)
		jb.applyAngular(l)
	}
	switch j.kind {
	case JointFixed, JointSpherical, JointRevolute:
		// The anchors together: 3×3.
		va := jb.a.v.add(jb.a.w.cross(g.rA))
		vb := jb.b.v.add(jb.b.w.cross(g.rB))
		cdot := vb.sub(va)
		massScale, impScale := float32(1), float32(0)
		if useBias {
			cdot = cdot.add(g.d.scale(soft.biasRate))
			massScale, impScale = soft.massScale, soft.impulseScale
		}
		k := pointMass(jb.mA, jb.mB, g.rA, g.rB)
		p := k.solve3(cdot).scale(-massScale).sub(j.lin.scale(impScale))
		j.lin = j.lin.add(p)
		jb.applyLinear(p, g.rA, g.rB)
	case JointPrismatic:
		// B's anchor on A's axis: the two rows across it, 2×2.
		n1, n2 := sliderCross(g)
		sA := g.rA.add(g.d)
		r1 := axialRow{dir: n1, sA: sA, sB: g.rB}
		r2 := axialRow{dir: n2, sA: sA, sB: g.rB}
		a1, b1 := sA.cross(n1), g.rB.cross(n1)
		a2, b2 := sA.cross(n2), g.rB.cross(n2)
		m := jb.mA.invM.add(jb.mB.invM)
		k11 := n1.dot(m.mul(n1)) + a1.dot(jb.mA.invI.mulVec(a1)) + b1.dot(jb.mB.invI.mulVec(b1))
		k12 := n1.dot(m.mul(n2)) + a1.dot(jb.mA.invI.mulVec(a2)) + b1.dot(jb.mB.invI.mulVec(b2))
		k22 := n2.dot(m.mul(n2)) + a2.dot(jb.mA.invI.mulVec(a2)) + b2.dot(jb.mB.invI.mulVec(b2))
		v1, v2 := r1.rate(jb), r2.rate(jb)
		massScale, impScale := float32(1), float32(0)
		if useBias {
			v1 += float32(soft.biasRate * g.d.dot(n1))
			v2 += float32(soft.biasRate * g.d.dot(n2))
			massScale, impScale = soft.massScale, soft.impulseScale
		}
		x1, x2 := solve2(k11, k12, k22, v1, v2)
		l1 := -float32(massScale*x1) - float32(impScale*j.lin.x)
		l2 := -float32(massScale*x2) - float32(impScale*j.lin.y)
		j.lin.x += l1
		j.lin.y += l2
		jb.applyLinear(n1.scale(l1).add(n2.scale(l2)), sA, g.rB)
	}
}

// springSoftness returns the soft constraint of a distance joint's spring
// (stiffness k, damping c) for the effective mass along the joint at the
// start of the step: ω = √(k/m), ζ = c/(2√(k m)).
func (s *Space) springSoftness(j *solverJoint, def *Joint, h float32) softness {
	g := s.geom(j)
	jb := jointBodies{&s.sc.state[j.a], &s.sc.state[j.b], &s.sc.mass[j.a], &s.sc.mass[j.b]}
	row, _ := axis(j, &g)
	row.prepare(&jb)
	m := row.mass
	if m <= 0 {
		return softness{0, 1, 0}
	}
	omega := sqrt(def.Stiffness / m)
	zeta := def.Damping / float32(2*sqrt(float32(def.Stiffness*m)))
	a1 := float32(2*zeta) + float32(h*omega)
	a2 := float32(float32(h*omega) * a1)
	a3 := 1 / (1 + a2)
	return softness{omega / a1, float32(a2 * a3), a3}
}

// finishJoints writes the step's impulses back to the joints, their
// forces, and breaks those over their bounds.
func (s *Space) finishJoints(h float32) {
	sc := &s.sc
	if len(sc.joints) == 0 {
		return
	}
	vals, _ := s.joints.Slices()
	invH := 1 / h
	for i := range sc.joints {
		sj := &sc.joints[i]
		j := &vals[sj.slot]
		j.lin, j.ang, j.lower, j.upper, j.motorI = sj.lin, sj.ang, sj.lower, sj.upper, sj.motor
		force, torque := float32(sj.lin.length()*invH), float32(sj.ang.length()*invH)
		axial := float32(abs(sj.motor+sj.lower-sj.upper) * invH)
		if sj.kind == JointRevolute || sj.kind == JointSpherical {
			torque += axial
		} else {
			force += axial
		}
		j.Force, j.Torque = force, torque
		if j.BreakForce > 0 && force > j.BreakForce || j.BreakTorque > 0 && torque > j.BreakTorque {
			j.Broken = true
			j.lin, j.ang, j.lower, j.upper, j.motorI = vec3{}, vec3{}, 0, 0, 0
			e, _ := s.w.EntityAt(int(sj.slot))
			s.broken = append(s.broken, e)
		}
	}
}

// jointEnds returns the step's body indices of joint j's bodies (A −1 for
// the world) and whether both exist.
func (s *Space) jointEnds(j *Joint) (ka, kb int32, ok bool) {
	ka, kb = -1, s.bodyK(j.B)
	if kb < 0 {
		return 0, 0, false
	}
	if j.A != (engine.Entity{}) {
		if ka = s.bodyK(j.A); ka < 0 {
			return 0, 0, false
		}
	}
	return ka, kb, true
}

// eachHeldJoint calls fn with the step's body indices of the two bodies
// of every joint that holds and joins two bodies (not the world), in slot
// order.
func (s *Space) eachHeldJoint(fn func(ka, kb int32)) {
	if s.joints.Len() == 0 {
		return
	}
	vals, _ := s.joints.Slices()
	for _, slot := range s.joints.Indices() {
		j := &vals[slot]
		if j.Broken {
			continue
		}
		if ka, kb, ok := s.jointEnds(j); ok && ka >= 0 {
			fn(ka, kb)
		}
	}
}

// jointIslands joins the islands of the two dynamic bodies of every joint
// that holds.
func (s *Space) jointIslands() {
	bodies, _ := s.bodies.Slices()
	idx := s.bodies.Indices()
	s.eachHeldJoint(func(ka, kb int32) {
		if bodies[idx[ka]].Kind == Dynamic && bodies[idx[kb]].Kind == Dynamic {
			s.sc.isl.union(ka, kb)
		}
	})
}

// kinematicJoints keeps awake the islands joined to a moving kinematic
// body (a platform carrying a hinged door).
func (s *Space) kinematicJoints() {
	bodies, _ := s.bodies.Slices()
	idx := s.bodies.Indices()
	wb := s.w.Bodies()
	s.eachHeldJoint(func(ka, kb int32) {
		for _, kk := range [2][2]int32{{ka, kb}, {kb, ka}} {
			kin, dyn := idx[kk[0]], idx[kk[1]]
			if bodies[kin].Kind == Kinematic && bodies[dyn].Kind == Dynamic &&
				(toVec3(wb.Vel[kin]).lengthSq() != 0 || toVec3(wb.AngVel[kin]).lengthSq() != 0) {
				r := s.sc.isl.find(kk[1])
				s.sc.awake[r] = true
				s.sc.noSleep[r] = true
			}
		}
	})
}

// collectJointed fills sc.jointed with the slot pairs whose bodies a joint
// keeps from colliding, sorted.
func (s *Space) collectJointed() {
	sc := &s.sc
	sc.jointed = sc.jointed[:0]
	if s.joints.Len() == 0 {
		return
	}
	vals, _ := s.joints.Slices()
	for _, slot := range s.joints.Indices() {
		j := &vals[slot]
		if j.Broken || j.CollideConnected || j.A == (engine.Entity{}) {
			continue
		}
		if _, _, ok := s.jointEnds(j); !ok {
			continue // a body was removed: its slot may hold another
		}
		a, b := uint64(j.A.Index()), uint64(j.B.Index())
		if a > b {
			a, b = b, a
		}
		sc.jointed = append(sc.jointed, a<<32|b)
	}
	slices.Sort(sc.jointed)
}

// jointedPair reports whether a joint keeps the bodies in slots a and b
// (a < b) from colliding.
func (s *Space) jointedPair(a, b int32) bool {
	if len(s.sc.jointed) == 0 {
		return false
	}
	_, ok := slices.BinarySearch(s.sc.jointed, uint64(a)<<32|uint64(b))
	return ok
}
