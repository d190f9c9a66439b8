// Package anim plays skeletal animation and blend shapes under the fixed
// step: a model's clips (package model) on entities, with the tick as the
// clock, drawn every frame between the last two ticks.
//
// Set-up, once, where the world's components are registered:
//
//	anims := anim.New(e.World)                              // registers the "animator" component
//	anims.SetModel(render.MeshFirstGame, arm)               // entities drawn with this mesh play arm's clips
//	e.AddSystem(engine.StageScripts, "anim", anims.Advance) // FIRST in the tick
//	e.AddSystem(engine.StageScripts, "game", game)          // may call anims.Play and anims.Stop
//	e.AddRender("anim", anims.Pose)                         // fills e.Render.Poses for the renderer
//
//	ent := e.World.Spawn(geom.NewTransform(pos), engine.Interpolate)
//	e.World.SetMesh(ent, render.MeshFirstGame)
//	anims.Play(ent, 0, true)                   // clip 0, looping
//
// (The renderer registers the same model under the same mesh id to draw
// it.) Advance is game logic, the animations' clock, so it belongs to
// engine.StageScripts, and it goes first so that a system calling Play later in the tick
// starts the clip at that tick while the animator keeps the previous
// tick's state as its previous state: the frames after it are drawn from
// the old pose to the new one.
//
// # Attachments
//
// NewAttachments registers a second component, "joint attachment", for
// entities that follow a joint of a model (a sword in a hand): Attach
// makes the entity a child of the figure in the world's hierarchy, and
// the fixed system Follow, added after the game's systems, sets its
// transform every tick to the joint's in the pose at the end of the tick,
// times the attachment's offset; the world's transform propagation does
// the rest. A game that does not call NewAttachments has the same schema
// (and hashes) as before.
//
// # Simulated state and derived data
//
// An entity's Animator (the clip, whether it loops, and how long it has
// played, in nanoseconds, at the end of the current tick and of the
// previous one) is a component: simulated state like a transform, so the
// state hash, snapshots, SaveState and LoadState, replays and rollback
// cover it, and a restored world is drawn exactly as it was. Its time
// moves in whole ticks (Advance adds the tick's duration in integer
// nanoseconds); there is no wall clock. Which model a mesh id plays
// (SetModel) is set-up, the same in every run, not state.
//
// Everything else is derived, on the render side, and never read by fixed
// code: the local poses Pose samples (two per entity, kept from tick to
// tick, keyed by clip and clip time, sampled again when a rollback or a
// restore changes the key), the palettes, and the frame's
// engine.RenderBuffer.Poses.
//
// A fixed system that needs a pose (a hand's position for a hit test)
// calls Sample with the animator's Clip, Time and Loop (and Blend, for
// one between two ticks or two clips): they round every product
// explicitly and use no math-package function that is not exactly
// rounded, so their results are the same bits on every build (amd64 with
// and without FMA, arm64, 386), as the determinism rules require
// (TestSampleBits).
//
// # Sampling and drawing
//
// Sample evaluates a clip as glTF defines it: linear, step and cubic
// spline keys (cubic tangents scaled by the key interval), rotations
// along the shortest arc (a slerp; nlerp for keys under 3.6 degrees apart,
// within 5e-6 radians of it), a channel held at its first value before its
// first key and at its last after, a looping clip wrapped at its duration,
// another held at its end.
//
// Pose, once per frame after engine.World.Interpolate, blends each
// animated entity's two sampled poses c.Render.Alpha of the way: per node
// translation and scale lerped, rotation slerped along the shortest arc,
// every blend-shape weight lerped. Then it makes the nodes' global
// transforms, parents first, times each palette joint's inverse bind
// matrix, into the entity's render.Bone palette. An entity the renderer
// draws at its current state (engine.RenderBuffer.AtCurrent: a teleport,
// a jump beyond the snap thresholds, NoInterpolation, interpolation off)
// is posed at its current tick only, the model as a whole, never in
// between.
//
// # Limits
//
//   - A model's palette holds at most model.MaxPalette (256) matrices and
//     its parts at most model.MaxWeights (64) weights together
//     (model.MaxTargets, 8, per part); Check refuses more, and SetModel
//     panics with Check's message.
//   - A frame holds at most render.MaxPoses (65,535) poses; animated
//     entities beyond them are drawn at rest.
//   - A model has fewer than NoClip clips, each at most a day long.
//   - Inverse bind matrices are affine: their fourth row is taken as
//     0 0 0 1.
//   - An animator whose clip the model does not have (a snapshot from
//     another program) is drawn at rest, like NoClip.
//
// # Cost
//
// BenchmarkPose: 100 entities with a 64-bone model (every bone animated by
// rotation and translation keys, 4 weights) cost 0.33 to 0.48 ms a frame
// between ticks (blending and palettes) on one core of the shared
// 2.25 GHz machine it was measured on, about 0.9 million cycles; a frame
// after a new tick adds one sampled pose per entity, about 3 µs each. A
// frame at the current tick (interpolation off) copies cached palettes,
// 20 µs. A steady frame allocates nothing.
package anim
