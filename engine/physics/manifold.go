package physics

// maxPoints is the most contact points a manifold keeps.
const maxPoints = 4

// contactPoint is one point where two shapes touch or nearly touch.
type contactPoint struct {
	p   vec3    // world position, midway between the two surfaces
	sep float32 // separation along the normal; negative when they overlap
	// id names the pair of features (vertex, edge, face) that made the
	// point; it stays the same from step to step while the same features
	// touch, so the solver can start from last step's impulse.
	id uint32
}

// manifold is where two shapes touch: up to maxPoints points sharing one
// normal.
type manifold struct {
	normal vec3 // unit, world frame, pointing from shape A to shape B
	n      int  // points used
	// sub names the parts of the shapes that touch: a mesh's triangle
	// index, a compound's parts (compoundcollide.go); 0 for two convex
	// shapes. A pair of bodies may have one manifold for each sub.
	sub uint32
	// lastRefB tells the box–box test that the pair's contact in the
	// last step was a face contact with B's face as the reference (a
	// hint the narrow phase sets from the contact cache; collideBoxes
	// keeps that face unless A's beats it clearly).
	lastRefB bool
	pts      [maxPoints]contactPoint
}
