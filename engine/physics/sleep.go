package physics

// Sleep: when a body is calm enough to sleep, and the sleep events.

// maxExtent returns the distance from sh's centre of mass to its farthest
// point: the lever that turns an angular speed into the speed of the
// body's farthest point (Box2D v3's maxExtent).
func maxExtent(sh *shape) float32 {
	switch sh.kind {
	case Sphere:
		return sh.radius
	case Capsule:
		return sh.halfHeight + sh.radius
	case Box:
		return sh.half.length()
	case Compound:
		c := sh.comp
		if c == nil {
			return 0
		}
		var r float32
		for i := range c.parts {
			p := &c.parts[i]
			r = max(r, p.pose.p.sub(c.com).length()+maxExtent(&p.shape))
		}
		return r
	}
	return 0 // meshes are static
}

// sleepSpeed returns the speed that decides whether a dynamic body is calm
// enough to sleep, as Box2D v3 (solver.c, b2FinalizeBodiesTask) and Rapier
// (RigidBodyActivation::update_energy) measure it: the speed of its
// farthest point, |v| + |ω|·extent, or, when larger, half the rate at which
// its farthest point moved in the step (its displacement dp and rotation
// dth over the step of dt seconds), which sees the motion the end-of-step
// velocity hides: the position corrections of the contacts, and a body
// that has only started to speed up. Measured so, a domino toppling slowly
// over its edge, whose top moves several centimetres a second while its
// angular speed is small, is not calm; a box resting in a pile is.
func sleepSpeed(v, w, dp, dth vec3, extent, dt float32) float32 {
	speed := v.length() + float32(w.length()*extent)
	drift := float32(dp.length()+float32(dth.length()*extent)) / dt
	return max(speed, float32(0.5*drift))
}
