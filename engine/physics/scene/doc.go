// Package scene reads and writes nebula-scene/2 (and its subset
// nebula-scene/1), the neutral rigid-body scene format that Nebula's
// physics shares with reference engines (Rapier, Jolt), so that the same
// file runs unchanged on each of them and their results and step times can
// be put side by side.
//
// A scene file is one JSON object: a format name ([Format] or [Format2]), a
// step rate and count, the gravity, the bodies in creation order, each with
// a shape, a pose, velocities and materials, and in a nebula-scene/2 file
// the joints between them, in creation order after the bodies: fixed,
// spherical, revolute, prismatic and distance, with their anchors and
// frames, limits, motors, springs ([Joint]). [Parse], [Read] and
// [ReadFile] check a file strictly (every required field, its type and
// range, unique ids, finite numbers, unit rotations, axes and normals, a
// joint's bodies and the fields its type takes, the size caps
// [MaxBodies], [MaxJoints], [MaxSteps] and [MaxFileSize]) and fill in
// every default, so a [Scene] is ready to build. An error is a *[Error]
// that names the file, the body or joint (index and id) and the field, and
// says what is accepted. A nebula-scene/1 file's "joints" are ignored
// (Scene.JointsIgnored).
//
// A runner (cmd/nebula-physics) builds the world from a Scene, advances it
// by Scene.Steps steps of 1/Scene.Hz seconds and prints one [Result]:
// step-time figures ([Summarize]), the final [Record] of every dynamic
// body, for a scene with joints the final [JointRecord] of every joint
// ([Joint.Measure], from the two bodies' poses) and the summary of their
// errors ([JointErrors], gathered by a [JointTracker] after every step),
// an optional trace ([TraceEntry]) and a hash of the engine's state
// ([Hash]). Its numbers are printed as JavaScript prints them (shortest
// round-trip form, see [AppendNumber]), and the joint records are computed
// as the anchors compute them, to the last bit for the same poses, so a
// Nebula result and an anchor's diff cleanly. [ParseArgs] reads the
// runner's command line,
//
//	SCENE.json [--trace ID[,ID...]|all] [--every K]
//
// # Example
//
//	sc, err := scene.ReadFile("stack-20.json")
//	if err != nil {
//		return err // "scene: stack-20.json: bodies[3] (id "box-03"): ..."
//	}
//	for i, b := range sc.Bodies {
//		// spawn b.Position, b.Rotation; add b.Shape with b.Density ...
//	}
//
// Nothing here runs in a simulation step: the package reads files, formats
// numbers and times runs, and may use float64 and the math package freely.
package scene
