package physics

// Manifold reuse for box pairs, as PhysX's contact cache and Bullet's
// persistent manifolds do: while two boxes keep nearly the pose relative
// to each other that they had when their points were found (a box resting
// on the floor or in a settled stack), the next steps move last step's
// points with the boxes instead of running the separating-axis test and
// the face clip again. The points are kept in each box's own frame and
// their separations measured again along the normal, so a box that rests
// gets the contact it had; the relative pose is compared with the one the
// points were found at, not last step's, so a slow drift gets new points
// once it adds up to the threshold. Everything the rule reads lives in the
// contact cache, which snapshots and rollback carry: a step after
// LoadState reuses exactly what the step after SaveState did.

// The reuse thresholds: B's centre in A's frame within reuseDist of where
// it was, and B turned relative to A by so little that no point moves
// more than reuseTurn with it: θ·R < reuseTurn, R the farthest point's
// distance from B's centre (for a unit box, about 0.07°). With a relative
// rotation q, cos(θ/2) = |q0·q| and θ² ≈ 8(1 − |q0·q|).
const (
	reuseDist = 0.001 // m
	reuseTurn = 0.001 // m
)

// boxReuse is what a box–box manifold keeps to be reused: the pose of B
// relative to A when its points were found, its normal in A's frame, the
// two boxes' half extents (a box given another shape gets new points), and
// each point's ends, on A's surface in A's frame and on B's in B's.
type boxReuse struct {
	relQ   quat
	relP   vec3
	normal vec3
	ha, hb vec3
	la, lb [maxPoints]vec3
}

// relPose returns B's rotation and centre in A's frame, and A's rotation
// matrix.
func relPose(pa, pb pose) (quat, vec3, mat3) {
	ra := pa.q.rotation()
	return pa.q.conj().mul(pb.q), ra.mulTVec(pb.p.sub(pa.p)), ra
}

// reuseBoxes writes to m the points of prev, the cached manifold of the
// boxes a (at pa) and b (at pb), moved with the boxes, and reports true,
// when prev may be reused: it holds reuse data for boxes of these sizes
// and B has moved relative to A by less than the thresholds since its
// points were found. Otherwise it reports false and leaves m alone.
func reuseBoxes(prev *cachedManifold, a *shape, pa pose, b *shape, pb pose, m *manifold) bool {
	r := &prev.reuse
	if !prev.reusable || prev.n == 0 || prev.n > maxPoints || a.half != r.ha || b.half != r.hb {
		return false
	}
	q, p, ra := relPose(pa, pb)
	if p.sub(r.relP).lengthSq() >= reuseDist*reuseDist {
		return false
	}
	var reach float32 // R²
	for j := range int(prev.n) {
		reach = max(reach, r.lb[j].lengthSq())
	}
	dot := float32(q.x*r.relQ.x) + float32(q.y*r.relQ.y) + float32(q.z*r.relQ.z) + float32(q.w*r.relQ.w)
	if float32(float32(8*(1-abs(dot)))*reach) >= reuseTurn*reuseTurn {
		return false
	}
	rb := pb.q.rotation()
	n := ra.mulVec(r.normal)
	m.normal, m.n, m.sub = n, int(prev.n), 0
	for j := range int(prev.n) {
		wa := pa.p.add(ra.mulVec(r.la[j]))
		wb := pb.p.add(rb.mulVec(r.lb[j]))
		m.pts[j] = contactPoint{p: wa.add(wb).scale(0.5), sep: wb.sub(wa).dot(n), id: prev.pts[j].id}
	}
	return true
}

// recordBoxes stores in cm, the cached manifold of the boxes a (at pa) and
// b (at pb) just found by collideBoxes, what reuseBoxes needs.
func recordBoxes(cm *cachedManifold, a *shape, pa pose, b *shape, pb pose) {
	r := &cm.reuse
	var ra mat3
	r.relQ, r.relP, ra = relPose(pa, pb)
	rb := pb.q.rotation()
	r.normal = ra.mulTVec(cm.normal)
	r.ha, r.hb = a.half, b.half
	for j := range int(cm.n) {
		q := &cm.pts[j]
		h := cm.normal.scale(float32(0.5 * q.sep))
		r.la[j] = ra.mulTVec(q.p.sub(h).sub(pa.p))
		r.lb[j] = rb.mulTVec(q.p.add(h).sub(pb.p))
	}
	cm.reusable = true
}
