// Package scene reads and writes nebula-scene/1, the neutral rigid-body
// scene format that Nebula's physics shares with reference engines (Rapier,
// Jolt), so that the same file runs unchanged on each of them and their
// results and step times can be put side by side.
//
// A scene file is one JSON object: a format name, a step rate and count,
// the gravity, and the bodies in creation order, each with a shape, a pose,
// velocities and materials. [Parse], [Read] and [ReadFile] check a file
// strictly (every required field, its type and range, unique ids, finite
// numbers, unit rotations, the size caps [MaxBodies], [MaxSteps] and
// [MaxFileSize]) and fill in every default, so a [Scene] is ready to build.
// An error is a *[Error] that names the file, the body (index and id) and
// the field, and says what is accepted.
//
// A runner (cmd/nebula-physics) builds the world from a Scene, advances it
// by Scene.Steps steps of 1/Scene.Hz seconds and prints one [Result]:
// step-time figures ([Summarize]), the final [Record] of every dynamic
// body, an optional trace ([TraceEntry]) and a hash of the engine's state
// ([Hash]). Its numbers are printed as JavaScript prints them (shortest
// round-trip form, see [AppendNumber]), so a Nebula result and an anchor's
// diff cleanly. [ParseArgs] reads the runner's command line,
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
