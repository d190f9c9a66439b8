// Package physics is Nebula's deterministic rigid-body physics: bodies,
// collision shapes, contacts and a solver that give the same bits on every
// machine, run by the engine's Physics stage.
//
// # Bodies live in the world
//
// A Space simulates one engine.World. A body is an entity with the Body
// component ("physics.body"): its position, rotation, velocity and angular
// velocity are the world's own (World.Bodies: Pos, Rot, Vel, AngVel; the
// angular velocity in rad/s about the world axes), and the contact cache is
// the world resource "physics.contacts". So snapshots, the state hash,
// replays, rollback and the network carry the physics with no extra code,
// and Space.Step is a pure function of the world: after a LoadState or a
// Restore, on this machine or another, the next steps give the same bits.
// Bodies are root entities (no parent).
//
// # Shapes
//
// A body's Shape is a sphere, a capsule, a box, a cylinder, a convex
// hull of points (NewConvexHull, Space.AddConvexHull, HullShape), a
// static triangle mesh (Space.AddMesh), static terrain from a grid of
// heights (NewHeightField, Space.AddHeightField, HeightFieldShape) or a
// compound: several spheres, capsules and boxes placed in the body's
// frame (Space.AddCompound, CompoundShape), whose mass, centre of mass
// and inertia tensor come from its parts and which moves and turns about
// its centre of mass (Space.CenterOfMass). Meshes, hulls, height fields
// and compounds are assets the Space holds, added in the same order on
// every peer. SetShape, SetKind and SetLayers change a live body.
//
// # A step
//
// Step advances by 1/Config.TickRate s: the broad phase pairs the bodies
// whose boxes (grown by Config.SpeculativeDistance) overlap; the narrow
// phase finds up to four contact points per pair, each with an id naming
// the features that touch, so the solver starts from last step's impulses
// (warm starting); touching dynamic bodies form islands, and an island
// whose bodies all rested for Config.TimeToSleep sleeps until something
// touches it; the awake bodies are solved with soft contacts in
// Config.Substeps substeps (Box2D v3's soft step); finally Events lists
// the contacts that began and ended. Kinematic bodies move with their own
// velocity; static bodies never move. A body whose state is not finite
// (NaN or infinite) is put back where it was, at rest, and counted in
// Stats.Resets: a NaN never spreads.
//
// Every floating-point product in the package is rounded on its own
// (float32(a*b)), so no build fuses a multiply and an add, and the step
// uses no function whose result differs by platform.
//
// # Use
//
// Attach adds a Space to an engine's Physics stage; systems in the
// Collision stage read Space.Events:
//
//	space, err := physics.Attach(eng, physics.DefaultConfig())
//	box := eng.World.Spawn(geom.NewTransform(mgl32.Vec3{0, 5, 0}), engine.Interpolate)
//	err = space.AddBody(box, physics.NewBodyDef(physics.Dynamic,
//		physics.Shape{Kind: physics.Box, HalfExtents: mgl32.Vec3{0.5, 0.5, 0.5}}))
package physics
