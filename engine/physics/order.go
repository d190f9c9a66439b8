package physics

// The order in which the solver visits the contacts.
//
// A Gauss-Seidel pass carries an impulse along a row of touching bodies
// only as far as the order of its constraints lets it: in one pass, a push
// travels from constraint to constraint when each comes after the one
// that pushes it. The cache's order is the bodies' slots', so a row of
// boxes created from its far end took the push one box a pass, and ten
// boxes did not all move in a step. The constraints are therefore put in
// the order of a breadth-first walk of the contact graph, which depends on
// how the bodies touch and not on when they were made: first the
// contacts with bodies that do not move in the solver (static, sleeping,
// kinematic) and then outwards from the bodies they hold, layer by layer
// (a pile is solved from the ground up), then the islands that touch
// nothing fixed, each from its first body. The solve pass runs backwards
// along that order (from the outermost contacts in towards the fixed
// ones) and the relax pass forwards, so every substep carries impulses
// both ways along every path of the walk (Jolt and Rapier order theirs by
// island too; a symmetric sweep is Gauss-Seidel's usual cure for its
// direction).
//
// The relax pass must be the forward one. It is the substep's last: its
// velocities are the ones the next substep moves the bodies with and the
// step writes out, and a Gauss-Seidel pass leaves its last constraints
// satisfied and its first ones disturbed by what came after. Ending at the
// fixed contacts, it left every contact between two dynamic bodies with
// the relative velocity that the ground's contacts put back into it: a
// stack of three boxes rocked for ever at 0.13 m/s, its top's friction
// at the floor turning round with it, and never slept. Ending at the
// outermost contacts, as Box2D's relax does, with the solve pass the
// other way, a stack of 2 to 10 boxes settles (TestRestingStacksSettle;
// both passes forwards, as before the walk, still left stacks of three
// and four rocking at 0.1 and 0.01 m/s).

// edge is a contact that the solver will solve: its manifold, its solver
// bodies and its material, as the contact hook left them.
type edge struct {
	m, a, b               int32
	friction, restitution float32
	surface               vec3 // target velocity of b's surface relative to a's
}

// orderEdges returns the indices of sc.edges in the solver's order (see
// above), for nb solver bodies (motion[0] is the fixed body).
func (sc *scratch) orderEdges(nb int) []int32 {
	edges := sc.edges
	dyn := func(i int32) bool { return i > 0 && sc.motion[i].dynamic }

	// The edges of each dynamic solver body, compressed rows.
	start := grow(sc.adjStart, nb+1)
	clear(start)
	for i := range edges {
		e := &edges[i]
		if dyn(e.a) {
			start[e.a+1]++
		}
		if dyn(e.b) {
			start[e.b+1]++
		}
	}
	for i := 1; i <= nb; i++ {
		start[i] += start[i-1]
	}
	adj := grow(sc.adj, int(start[nb]))
	fill := grow(sc.fill, nb)
	copy(fill, start[:nb])
	for i := range edges {
		e := &edges[i]
		if dyn(e.a) {
			adj[fill[e.a]] = int32(i)
			fill[e.a]++
		}
		if dyn(e.b) {
			adj[fill[e.b]] = int32(i)
			fill[e.b]++
		}
	}
	sc.adjStart, sc.adj, sc.fill = start, adj, fill

	seen := grow(sc.seen, nb)
	clear(seen)
	done := grow(sc.done, len(edges))
	clear(done)
	order := sc.order[:0]
	queue := sc.queue[:0]
	visit := func(i int32) {
		if dyn(i) && !seen[i] {
			seen[i] = true
			queue = append(queue, i)
		}
	}
	head := 0 // the queue's bodies before head have been walked
	drain := func() {
		for ; head < len(queue); head++ {
			u := queue[head]
			for _, ei := range adj[start[u]:start[u+1]] {
				if done[ei] {
					continue
				}
				done[ei] = true
				order = append(order, ei)
				e := &edges[ei]
				visit(e.a)
				visit(e.b)
			}
		}
	}
	// Contacts with what does not move, in cache order, then outwards.
	for i := range edges {
		e := &edges[i]
		if dyn(e.a) && dyn(e.b) {
			continue
		}
		done[i] = true
		order = append(order, int32(i))
		visit(e.a)
		visit(e.b)
	}
	drain()
	// The islands that touch nothing fixed.
	for i := int32(1); i < int32(nb); i++ {
		if dyn(i) && !seen[i] && start[i] < start[i+1] {
			visit(i)
			drain()
		}
	}
	sc.seen, sc.done, sc.order, sc.queue = seen, done, order, queue
	return order
}
