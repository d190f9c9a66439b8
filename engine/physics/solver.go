package physics

import "math"

// The contact solver is Box2D v3's soft step (Erin Catto, "Solver2D" and
// Box2D v3's solver) in 3D: each step is cut into substeps; each substep
// integrates velocities, applies the impulses found so far (warm start),
// solves the contacts with soft constraints that push overlapping shapes
// apart (a spring of Config.ContactHertz with damping ratio
// Config.ContactDampingRatio), then their friction, integrates positions,
// and solves the contacts' normals again without the push-out (relax), so
// the push-out adds no energy (Box2D v3 solves friction in the relax pass
// too; here it does not, which saves a fifth of a pile's step). Friction
// is a patch's per manifold (two tangents and a twist at the manifold's
// centre, as BEPU's), not two tangents per point. After the substeps,
// restitution, and the impulses go to the cache for the next step's warm
// start. A contact's separation during the substeps is its separation at
// the start of the step plus the bodies' motion since, linearised:
// r' = r + dθ×r.

// bodyState is what a solver body's constraints read and write in the
// substeps.
type bodyState struct {
	v, w    vec3 // linear and angular velocity
	dp, dth vec3 // position and rotation (as a rotation vector) moved this step
}

// bodyMass is a solver body's inverse mass per world axis (0 on locked
// axes) and world inverse inertia.
type bodyMass struct {
	invM vec3
	invI mat3
}

// bodyMotion is what integrates a solver body's velocity each substep.
type bodyMotion struct {
	acc, angAcc vec3    // gravity and forces, m/s² and rad/s²
	ld, ad      float32 // damping factors 1/(1 + h·damping)
	dynamic     bool
}

// softness is a soft constraint's coefficients for one substep length
// (Box2D's b2Softness).
type softness struct {
	biasRate, massScale, impulseScale float32
}

// makeSoft returns the softness of a spring of hertz Hz with damping
// ratio zeta, for substeps of h seconds.
func makeSoft(hertz, zeta, h float32) softness {
	if hertz == 0 {
		return softness{0, 1, 0}
	}
	omega := float32(float32(2*math.Pi) * hertz)
	a1 := float32(2*zeta) + float32(h*omega)
	a2 := float32(float32(h*omega) * a1)
	a3 := 1 / (1 + a2)
	return softness{omega / a1, float32(a2 * a3), a3}
}

// solverPoint is one point of a contact constraint's normal. The lever
// arms and the inverse inertia are those at the start of the step, so the
// angular parts are computed once: r×n and I⁻¹(r×n) for each body.
type solverPoint struct {
	rnA, rnB, inA, inB vec3    // r×n, I⁻¹(r×n)
	sep0               float32 // separation at the start of the step
	nMass              float32 // effective mass along the normal
	nImp               float32 // accumulated impulse (per substep)
	maxNImp            float32 // largest normal impulse applied (restitution uses it)
	relVel             float32 // normal velocity at the start of the step
	bounce             float32 // restitution's normal velocity in the first substep, 0 for none
	total              float32 // normal impulse applied in the step so far (N·s)
}

// constraint is the contact of one manifold between solver bodies a and b
// (0 is a fixed body: static or sleeping). Its friction is a patch's, as
// BEPU's: two tangent rows at the manifold's centre and a twist about the
// normal, bounded by the friction coefficient times the sum of the
// points' normal impulses (and, for the twist, times the points' mean
// distance from the centre), rather than two tangent rows per point: a
// third of the rows for a four-point manifold, with the same Coulomb
// bounds on sliding and turning.
type constraint struct {
	// What every pass reads first (the relax pass little else).
	a, b     int32
	p0, n    int32 // its points: the step's points[p0 : p0+n]
	normal   vec3
	mnA, mnB vec3 // the bodies' inverse masses times the normal
	soft     softness

	// impact is set when the manifold has several points and they
	// approached faster than Config.RestitutionThreshold on average at
	// the start of the step, or its warm start alone would part them
	// faster than that, or they are all apart and meet within the step
	// (meets: a collision or the step after it, not a resting contact). Then its points' common row (commonRow) follows them in
	// the step's points, at points[p0+n], and solve takes it first.
	impact bool
	// bounce is the mean of the points' bounce when every point bounces
	// and the contact is an impact (the common row's target in the first
	// substep), 0 otherwise.
	bounce float32
	// ccd is set when the manifold was found at a time of impact
	// (impactManifold) or its points were all farther apart than the
	// speculative distance at the start of the step: its points bounce
	// after the substeps (restitute), where the bodies meet.
	ccd bool

	// Friction (the solve pass and the warm start).
	friction, radius       float32 // coefficient; the points' mean distance from the centre
	t1, t2                 vec3
	m1A, m1B, m2A, m2B     vec3 // the bodies' inverse masses times the tangents
	r1A, r1B, i1A, i1B     vec3 // first tangent at the centre: c×t1, I⁻¹(c×t1)
	r2A, r2B, i2A, i2B     vec3 // second tangent
	iwA, iwB               vec3 // twist: I⁻¹n
	t1Mass, t2Mass, twMass float32
	t1Imp, t2Imp, twImp    float32 // accumulated friction impulses (per substep)
	sv1, sv2               float32 // target tangent velocities of b relative to a (ContactSettings.SurfaceVelocity)

	// Before and after the substeps.
	m           int32 // the manifold's index in the step's cache
	restitution float32
	cen         vec3    // the centre (patch)
	sq          float32 // the sum of the points' squared distances from it
}

// prepare fills the lever arms and effective masses of c and its points
// ps from each point's arms rA and rB and the centre's arms cA and cB.
func (c *constraint) prepare(mA, mB *bodyMass, rA, rB *[maxPoints]vec3, cA, cB vec3, ps []solverPoint) {
	c.mnA, c.mnB = mA.invM.mul(c.normal), mB.invM.mul(c.normal)
	c.m1A, c.m1B = mA.invM.mul(c.t1), mB.invM.mul(c.t1)
	c.m2A, c.m2B = mA.invM.mul(c.t2), mB.invM.mul(c.t2)
	linN := c.normal.dot(c.mnA) + c.normal.dot(c.mnB)
	lin1 := c.t1.dot(c.m1A) + c.t1.dot(c.m1B)
	lin2 := c.t2.dot(c.m2A) + c.t2.dot(c.m2B)
	for j := range ps {
		p := &ps[j]
		p.rnA, p.rnB = rA[j].cross(c.normal), rB[j].cross(c.normal)
		p.inA, p.inB = mA.invI.mulVec(p.rnA), mB.invI.mulVec(p.rnB)
		p.nMass = inv(linN + p.rnA.dot(p.inA) + p.rnB.dot(p.inB))
	}
	c.r1A, c.r1B = cA.cross(c.t1), cB.cross(c.t1)
	c.r2A, c.r2B = cA.cross(c.t2), cB.cross(c.t2)
	c.i1A, c.i1B = mA.invI.mulVec(c.r1A), mB.invI.mulVec(c.r1B)
	c.i2A, c.i2B = mA.invI.mulVec(c.r2A), mB.invI.mulVec(c.r2B)
	c.iwA, c.iwB = mA.invI.mulVec(c.normal), mB.invI.mulVec(c.normal)
	c.t1Mass = inv(lin1 + c.r1A.dot(c.i1A) + c.r1B.dot(c.i1B))
	c.t2Mass = inv(lin2 + c.r2A.dot(c.i2A) + c.r2B.dot(c.i2B))
	c.twMass = inv(c.normal.dot(c.iwA) + c.normal.dot(c.iwB))
}

// commonRow returns the common row of constraint c's points ps (bodies'
// masses mA and mB; c prepared): the row of the mean of the points' rows,
// along which one impulse is shared evenly by the points. It is a
// solverPoint whose r×n and I⁻¹(r×n) are the means of the points' (the
// centre's arm times n, and I⁻¹ of it) and whose nMass is its effective
// mass.
func commonRow(c *constraint, mA, mB *bodyMass, ps []solverPoint) solverPoint {
	var r solverPoint
	for j := range ps {
		r.rnA, r.rnB = r.rnA.add(ps[j].rnA), r.rnB.add(ps[j].rnB)
	}
	k := 1 / float32(len(ps))
	r.rnA, r.rnB = r.rnA.scale(k), r.rnB.scale(k)
	r.inA, r.inB = mA.invI.mulVec(r.rnA), mB.invI.mulVec(r.rnB)
	r.nMass = inv(c.normal.dot(c.mnA) + c.normal.dot(c.mnB) + r.rnA.dot(r.inA) + r.rnB.dot(r.inB))
	return r
}

// warmStart applies the accumulated impulses of every constraint.
func warmStart(cons []constraint, pts []solverPoint, st []bodyState) {
	for ci := range cons {
		c := &cons[ci]
		a, b := &st[c.a], &st[c.b]
		vA, wA, vB, wB := a.v, a.w, b.v, b.w
		ps := pts[c.p0 : c.p0+c.n]
		for j := range ps {
			p := &ps[j]
			vA = vA.sub(c.mnA.scale(p.nImp))
			wA = wA.sub(p.inA.scale(p.nImp))
			vB = vB.add(c.mnB.scale(p.nImp))
			wB = wB.add(p.inB.scale(p.nImp))
		}
		vA = vA.sub(c.m1A.scale(c.t1Imp)).sub(c.m2A.scale(c.t2Imp))
		wA = wA.sub(c.i1A.scale(c.t1Imp)).sub(c.i2A.scale(c.t2Imp)).sub(c.iwA.scale(c.twImp))
		vB = vB.add(c.m1B.scale(c.t1Imp)).add(c.m2B.scale(c.t2Imp))
		wB = wB.add(c.i1B.scale(c.t1Imp)).add(c.i2B.scale(c.t2Imp)).add(c.iwB.scale(c.twImp))
		a.v, a.w = vA, wA
		b.v, b.w = vB, wB
	}
}

// solve runs one pass over the constraints: the normal, with the soft
// push-out, then friction (bounded by the normal impulses just found, as
// Box2D v3 does), when useBias (solve), in the reverse of the
// constraints' order; the normal alone, without the push-out, otherwise
// (relax), in their order (order.go says why). The relax pass, the
// substep's last, adds each point's impulse to its total for the step.
//
// With a penetration slop (slop, Config.PenetrationSlop, > 0) the rows
// are rigid, as Jolt's velocity constraints: a point overlapping by up to
// slop is not pushed out (no approach, no push), so a body resting on
// another stays where it landed; deeper, the depth beyond the slop is
// pushed out at the soft spring's rate (biasRate), without its softness,
// so it comes to rest at the slop rather than g/ω² below it. Without a
// slop the rows are Box2D v3's soft ones. In the first substep (first), a point that bounces (its bounce
// set) is driven to its bounce velocity in both passes, rigidly:
// restitution acts in the velocity solve of the step of the hit, as
// Jolt's does, so the body leaves from the contact in that step; in the
// later substeps it is a plain contact again, whose warm start the
// clamp at 0 takes back.
func solve(cons []constraint, pts []solverPoint, st []bodyState, invH, maxPush, slop float32, useBias, first bool) {
	nc := len(cons)
	for i := range nc {
		ci := i
		if useBias {
			ci = nc - 1 - i
		}
		c := &cons[ci]
		a, b := &st[c.a], &st[c.b]
		vA, wA, vB, wB := a.v, a.w, b.v, b.w
		ps := pts[c.p0 : c.p0+c.n]

		// Non-penetration. The separation now is the one at the start of
		// the step plus the bodies' motion since along the normal:
		// n·(dpB + dθB×rB - dpA - dθA×rA), and n·(dθ×r) = dθ·(r×n).
		ddp := b.dp.sub(a.dp).dot(c.normal)
		dthA, dthB := a.dth, b.dth
		if c.impact {
			minSep, minImp, maxSep := float32(0), float32(0), float32(0)
			for j := range ps {
				p := &ps[j]
				sep := p.sep0 + (ddp + dthB.dot(p.rnB) - dthA.dot(p.rnA))
				if j == 0 || sep > maxSep {
					maxSep = sep
				}
				if j == 0 || sep < minSep {
					minSep = sep
				}
				if j == 0 || p.nImp < minImp {
					minImp = p.nImp
				}
			}
			// The common row first, in an impact: the points' mean normal velocity
			// brought up to what the nearest point allows (its gap closed
			// in one substep when it is apart, no more approach when it
			// touches), one impulse shared evenly, so a face that meets
			// another face square on (a fast box hitting a wall: large
			// impulses at once) is stopped square on. Taken in turn, the
			// points' rows alone leave it spinning (the first point takes
			// the whole impulse and turns the body, the others cannot undo
			// it in one pass). The points' rows then share the impulse
			// out as the contact needs, each clamped at 0 as before.
			bias := float32(0)
			if first && c.bounce > 0 {
				bias = -c.bounce
			} else if minSep > 0 {
				bias = float32(minSep * invH)
			} else if deep := maxSep + slop; useBias && slop > 0 && deep < 0 {
				// Every point deeper than the slop: the push-out of the
				// least deep, shared evenly, so a face placed deep in
				// another comes out square, without rocking.
				bias = max(float32(c.soft.biasRate*deep), -maxPush)
			}
			r := &pts[c.p0+c.n]
			vn := vB.sub(vA).dot(c.normal) + wB.dot(r.rnB) - wA.dot(r.rnA)
			fn := float32(len(ps))
			share := -float32(r.nMass*(vn+bias)) / fn
			if share < -minImp {
				share = -minImp // no point's impulse below 0
			}
			if share != 0 {
				imp := float32(share * fn)
				for j := range ps {
					p := &ps[j]
					p.nImp += share
					if share > p.maxNImp {
						p.maxNImp = share
					}
				}
				vA = vA.sub(c.mnA.scale(imp))
				wA = wA.sub(r.inA.scale(imp))
				vB = vB.add(c.mnB.scale(imp))
				wB = wB.add(r.inB.scale(imp))
			}
		}
		for j := range ps {
			p := &ps[j]
			sep := p.sep0 + (ddp + dthB.dot(p.rnB) - dthA.dot(p.rnA))
			bias, massScale, impScale := float32(0), float32(1), float32(0)
			if first && p.bounce > 0 {
				bias = -p.bounce // restitution: leave at the bounce velocity
			} else if sep > 0 {
				bias = float32(sep * invH) // speculative: close the gap, no more
			} else if deep := sep + slop; useBias && deep < 0 {
				bias = float32(c.soft.biasRate * deep)
				if bias < -maxPush {
					bias = -maxPush
				}
				if slop == 0 {
					massScale, impScale = c.soft.massScale, c.soft.impulseScale
				}
			}
			vn := vB.sub(vA).dot(c.normal) + wB.dot(p.rnB) - wA.dot(p.rnA)
			imp := -float32(float32(p.nMass*massScale)*(vn+bias)) - float32(impScale*p.nImp)
			newImp := p.nImp + imp
			if newImp < 0 {
				newImp = 0
			}
			imp = newImp - p.nImp
			p.nImp = newImp
			if imp > p.maxNImp {
				p.maxNImp = imp
			}
			if !useBias {
				p.total += newImp
			}
			vA = vA.sub(c.mnA.scale(imp))
			wA = wA.sub(p.inA.scale(imp))
			vB = vB.add(c.mnB.scale(imp))
			wB = wB.add(p.inB.scale(imp))
		}
		// Friction, in the solve pass only: the tangents on the circle
		// |λt| <= μ Σλn, the twist within ±μ·radius·Σλn.
		if useBias {
			var sumN float32
			for j := range ps {
				sumN += ps[j].nImp
			}
			dv := vB.sub(vA)
			vt1 := dv.dot(c.t1) + wB.dot(c.r1B) - wA.dot(c.r1A) - c.sv1
			vt2 := dv.dot(c.t2) + wB.dot(c.r2B) - wA.dot(c.r2A) - c.sv2
			l1 := c.t1Imp - float32(c.t1Mass*vt1)
			l2 := c.t2Imp - float32(c.t2Mass*vt2)
			maxF := float32(c.friction * sumN)
			if lsq := float32(l1*l1) + float32(l2*l2); lsq > float32(maxF*maxF) {
				k := maxF / sqrt(lsq)
				l1, l2 = float32(l1*k), float32(l2*k)
			}
			d1, d2 := l1-c.t1Imp, l2-c.t2Imp
			c.t1Imp, c.t2Imp = l1, l2
			vA = vA.sub(c.m1A.scale(d1)).sub(c.m2A.scale(d2))
			wA = wA.sub(c.i1A.scale(d1)).sub(c.i2A.scale(d2))
			vB = vB.add(c.m1B.scale(d1)).add(c.m2B.scale(d2))
			wB = wB.add(c.i1B.scale(d1)).add(c.i2B.scale(d2))
			if c.radius > 0 {
				maxT := float32(maxF * c.radius)
				lt := clamp(c.twImp-float32(c.twMass*wB.sub(wA).dot(c.normal)), -maxT, maxT)
				dt := lt - c.twImp
				c.twImp = lt
				wA = wA.sub(c.iwA.scale(dt))
				wB = wB.add(c.iwB.scale(dt))
			}
		}

		a.v, a.w = vA, wA
		b.v, b.w = vB, wB
	}
}

// restitute applies restitution, after the substeps, to the points of
// the contacts found at a time of impact (ccd) that approached faster
// than threshold at the start of the step and took an impulse: the
// speculative contact brought the bodies together where they meet in the
// step, and they leave from there, as Jolt's linear cast does. Other
// contacts bounce in the first substep (solve).
func restitute(cons []constraint, pts []solverPoint, st []bodyState, threshold float32) {
	for ci := range cons {
		c := &cons[ci]
		if c.restitution == 0 || !c.ccd {
			continue
		}
		a, b := &st[c.a], &st[c.b]
		vA, wA, vB, wB := a.v, a.w, b.v, b.w
		ps := pts[c.p0 : c.p0+c.n]
		if c.impact {
			// As in solve: the points' common row first, when they all
			// bounce, so a face that hit square on leaves square on.
			all := true
			var rel, minImp float32
			for j := range ps {
				p := &ps[j]
				all = all && p.relVel <= -threshold && p.maxNImp != 0
				rel += p.relVel
				if j == 0 || p.nImp < minImp {
					minImp = p.nImp
				}
			}
			if all {
				r := &pts[c.p0+c.n]
				fn := float32(len(ps))
				vn := vB.sub(vA).dot(c.normal) + wB.dot(r.rnB) - wA.dot(r.rnA)
				share := -float32(r.nMass*(vn+float32(c.restitution*(rel/fn)))) / fn
				if share < -minImp {
					share = -minImp
				}
				for j := range ps {
					p := &ps[j]
					p.nImp += share
					if share > p.maxNImp {
						p.maxNImp = share
					}
				}
				imp := float32(share * fn)
				vA = vA.sub(c.mnA.scale(imp))
				wA = wA.sub(r.inA.scale(imp))
				vB = vB.add(c.mnB.scale(imp))
				wB = wB.add(r.inB.scale(imp))
			}
		}
		for j := range ps {
			p := &ps[j]
			if p.relVel > -threshold || p.maxNImp == 0 {
				continue
			}
			vn := vB.sub(vA).dot(c.normal) + wB.dot(p.rnB) - wA.dot(p.rnA)
			imp := -float32(p.nMass * (vn + float32(c.restitution*p.relVel)))
			newImp := p.nImp + imp
			if newImp < 0 {
				newImp = 0
			}
			imp = newImp - p.nImp
			p.nImp = newImp
			if imp > p.maxNImp {
				p.maxNImp = imp
			}
			p.total += imp
			vA = vA.sub(c.mnA.scale(imp))
			wA = wA.sub(p.inA.scale(imp))
			vB = vB.add(c.mnB.scale(imp))
			wB = wB.add(p.inB.scale(imp))
		}
		a.v, a.w = vA, wA
		b.v, b.w = vB, wB
	}
}

// gyroBody is a solver body whose turning gets the gyroscopic term: a
// free dynamic body whose principal moments are not all equal (a
// compound's principal axes are turned from its entity's by frame).
type gyroBody struct {
	i       int32 // solver body
	inertia vec3  // principal moments
	frame   quat  // principal axes in the body's frame
}

// gyroscopic returns the angular velocity w (world axes) of a body whose
// principal axes are turned by q and whose principal moments are in,
// after h seconds of free turning: the gyroscopic term, which makes a
// body spun about an axis that is not a principal one tumble while it
// keeps its angular momentum. As Jolt does it: in the principal frame
// the momentum L = Iω takes an explicit step, L' = L - h ω×L, and is
// scaled back to its length, so the step neither adds nor loses
// momentum (an implicit step loses it, 2 % in 10 s of tumbling here; this
// keeps it within 0.4 %).
func gyroscopic(w vec3, q quat, in vec3, h float32) vec3 {
	wb := q.unrotate(w)
	l := wb.mul(in)
	nl := l.sub(wb.cross(l).scale(h))
	if n2 := nl.lengthSq(); n2 > 0 {
		nl = nl.scale(sqrt(l.lengthSq() / n2))
	}
	return q.rotate(vec3{nl.x / in.x, nl.y / in.y, nl.z / in.z})
}
