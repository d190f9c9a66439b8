package physics

import "math"

// The contact solver is Box2D v3's soft step (Erin Catto, "Solver2D" and
// Box2D v3's solver) in 3D: each step is cut into substeps; each substep
// integrates velocities, applies the impulses found so far (warm start),
// solves the contacts with soft constraints that push overlapping shapes
// apart (a spring of Config.ContactHertz with damping ratio
// Config.ContactDampingRatio), integrates positions, and solves the
// contacts again without the push-out (relax), so the push-out adds no
// energy. After the substeps, restitution, and the impulses go to the
// cache for the next step's warm start. A contact's separation during the
// substeps is its separation at the start of the step plus the bodies'
// motion since, linearised: r' = r + dθ×r.

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

// solverPoint is one point of a contact constraint.
type solverPoint struct {
	rA, rB                vec3    // from each body's centre to the point, at the start of the step
	sep0                  float32 // separation at the start of the step
	nMass, t1Mass, t2Mass float32 // effective masses along the normal and tangents
	nImp, t1Imp, t2Imp    float32 // accumulated impulses (per substep)
	maxNImp               float32 // largest normal impulse applied (restitution uses it)
	relVel                float32 // normal velocity at the start of the step
}

// constraint is the contact of one manifold between solver bodies a and b
// (0 is a fixed body: static or sleeping).
type constraint struct {
	a, b                  int32
	m                     int32 // the manifold's index in the step's cache
	n                     int32 // points used
	normal, t1, t2        vec3
	friction, restitution float32
	soft                  softness
	pts                   [maxPoints]solverPoint
}

// prepare fills c's effective masses.
func (c *constraint) prepare(mA, mB *bodyMass) {
	nn := c.normal.mul(c.normal)
	t11 := c.t1.mul(c.t1)
	t22 := c.t2.mul(c.t2)
	linN := nn.dot(mA.invM) + nn.dot(mB.invM)
	lin1 := t11.dot(mA.invM) + t11.dot(mB.invM)
	lin2 := t22.dot(mA.invM) + t22.dot(mB.invM)
	for j := range int(c.n) {
		p := &c.pts[j]
		c.pts[j].nMass = inv(linN + angular(mA, p.rA, c.normal) + angular(mB, p.rB, c.normal))
		c.pts[j].t1Mass = inv(lin1 + angular(mA, p.rA, c.t1) + angular(mB, p.rB, c.t1))
		c.pts[j].t2Mass = inv(lin2 + angular(mA, p.rA, c.t2) + angular(mB, p.rB, c.t2))
	}
}

// angular returns (r×d)·I⁻¹(r×d).
func angular(m *bodyMass, r, d vec3) float32 {
	rd := r.cross(d)
	return rd.dot(m.invI.mulVec(rd))
}

// warmStart applies the accumulated impulses of every constraint.
func warmStart(cons []constraint, st []bodyState, ms []bodyMass) {
	for ci := range cons {
		c := &cons[ci]
		a, b := &st[c.a], &st[c.b]
		mA, mB := &ms[c.a], &ms[c.b]
		vA, wA, vB, wB := a.v, a.w, b.v, b.w
		for j := range int(c.n) {
			p := &c.pts[j]
			P := c.normal.scale(p.nImp).add(c.t1.scale(p.t1Imp)).add(c.t2.scale(p.t2Imp))
			vA = vA.sub(mA.invM.mul(P))
			wA = wA.sub(mA.invI.mulVec(p.rA.cross(P)))
			vB = vB.add(mB.invM.mul(P))
			wB = wB.add(mB.invI.mulVec(p.rB.cross(P)))
		}
		a.v, a.w = vA, wA
		b.v, b.w = vB, wB
	}
}

// solve runs one pass over the constraints: friction, then the normal,
// with the soft push-out when useBias (solve) or without it (relax).
func solve(cons []constraint, st []bodyState, ms []bodyMass, invH, maxPush float32, useBias bool) {
	for ci := range cons {
		c := &cons[ci]
		a, b := &st[c.a], &st[c.b]
		mA, mB := &ms[c.a], &ms[c.b]
		vA, wA, vB, wB := a.v, a.w, b.v, b.w
		dpA, dthA, dpB, dthB := a.dp, a.dth, b.dp, b.dth
		n := int(c.n)

		// Friction, on the circle |λt| <= μ λn.
		for j := range n {
			p := &c.pts[j]
			dv := vB.add(wB.cross(p.rB)).sub(vA).sub(wA.cross(p.rA))
			l1 := p.t1Imp - float32(p.t1Mass*dv.dot(c.t1))
			l2 := p.t2Imp - float32(p.t2Mass*dv.dot(c.t2))
			maxF := float32(c.friction * p.nImp)
			if lsq := float32(l1*l1) + float32(l2*l2); lsq > float32(maxF*maxF) {
				k := maxF / sqrt(lsq)
				l1, l2 = float32(l1*k), float32(l2*k)
			}
			d1, d2 := l1-p.t1Imp, l2-p.t2Imp
			p.t1Imp, p.t2Imp = l1, l2
			P := c.t1.scale(d1).add(c.t2.scale(d2))
			vA = vA.sub(mA.invM.mul(P))
			wA = wA.sub(mA.invI.mulVec(p.rA.cross(P)))
			vB = vB.add(mB.invM.mul(P))
			wB = wB.add(mB.invI.mulVec(p.rB.cross(P)))
		}

		// Non-penetration.
		for j := range n {
			p := &c.pts[j]
			d := dpB.add(dthB.cross(p.rB)).sub(dpA).sub(dthA.cross(p.rA))
			sep := p.sep0 + d.dot(c.normal)
			bias, massScale, impScale := float32(0), float32(1), float32(0)
			if sep > 0 {
				bias = float32(sep * invH) // speculative: close the gap, no more
			} else if useBias {
				bias = max(float32(c.soft.biasRate*sep), -maxPush)
				massScale, impScale = c.soft.massScale, c.soft.impulseScale
			}
			dv := vB.add(wB.cross(p.rB)).sub(vA).sub(wA.cross(p.rA))
			vn := dv.dot(c.normal)
			imp := -float32(float32(p.nMass*massScale)*(vn+bias)) - float32(impScale*p.nImp)
			newImp := max(p.nImp+imp, 0)
			imp = newImp - p.nImp
			p.nImp = newImp
			p.maxNImp = max(p.maxNImp, imp)
			P := c.normal.scale(imp)
			vA = vA.sub(mA.invM.mul(P))
			wA = wA.sub(mA.invI.mulVec(p.rA.cross(P)))
			vB = vB.add(mB.invM.mul(P))
			wB = wB.add(mB.invI.mulVec(p.rB.cross(P)))
		}
		a.v, a.w = vA, wA
		b.v, b.w = vB, wB
	}
}

// restitute applies restitution to the points that approached faster
// than threshold at the start of the step and took an impulse.
func restitute(cons []constraint, st []bodyState, ms []bodyMass, threshold float32) {
	for ci := range cons {
		c := &cons[ci]
		if c.restitution == 0 {
			continue
		}
		a, b := &st[c.a], &st[c.b]
		mA, mB := &ms[c.a], &ms[c.b]
		vA, wA, vB, wB := a.v, a.w, b.v, b.w
		for j := range int(c.n) {
			p := &c.pts[j]
			if p.relVel > -threshold || p.maxNImp == 0 {
				continue
			}
			dv := vB.add(wB.cross(p.rB)).sub(vA).sub(wA.cross(p.rA))
			vn := dv.dot(c.normal)
			imp := -float32(p.nMass * (vn + float32(c.restitution*p.relVel)))
			newImp := max(p.nImp+imp, 0)
			imp = newImp - p.nImp
			p.nImp = newImp
			p.maxNImp = max(p.maxNImp, imp)
			P := c.normal.scale(imp)
			vA = vA.sub(mA.invM.mul(P))
			wA = wA.sub(mA.invI.mulVec(p.rA.cross(P)))
			vB = vB.add(mB.invM.mul(P))
			wB = wB.add(mB.invI.mulVec(p.rB.cross(P)))
		}
		a.v, a.w = vA, wA
		b.v, b.w = vB, wB
	}
}
