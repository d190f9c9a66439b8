// Package engine is Nebula's simulation core, in pure Go: no cgo, no
// window, no GL, so a headless server, a replay verifier and every
// simulation test can use it.
//
// A World holds entities (generational ids, so a stale id never reaches a
// new entity) and their state as struct-of-arrays Bodies: transform
// (position, rotation, scale) kept as previous and current state, linear
// and angular velocity, draw mode, colour and mesh (render.MeshID: what the
// renderer draws, a cube unless World.SetMesh says otherwise), plus a
// seeded RNG, and the
// game's own state: components (NewComponent, a value per entity) and
// resources (NewResource, one value per world), which snapshots, the state
// hash, replays and SaveState/LoadState cover like the rest. An Engine
// runs the world on a timing.Loop with named systems at three places:
//
//   - the tick's stages, once per fixed tick: the simulation. Before the
//     tick the previous state of every transform is saved and the tick's
//     input sample is taken; then the stages run in order, StageInput,
//     StageScripts, StagePhysics, StageCollision, StageAI and
//     StageTransforms, each with its systems in the order they were added
//     (AddSystem). A game adds stages of its own before or after any stage
//     (AddStage); Schedule lists them all, and a program's -schedule flag
//     prints it.
//   - Update, once per frame with the real frame time: cameras, UI.
//   - Render, once per frame after every entity has been interpolated into
//     the RenderBuffer between its previous and current state (lerp and
//     shortest-arc slerp, optionally Hermite; teleports and jumps beyond
//     the snap thresholds are drawn at their new place, never in between).
//     Render systems may add poses (skinning matrices and blend weights)
//     for animated models to the buffer's Poses; package engine/anim's
//     does, interpolating every bone and weight between the same two
//     ticks.
//
// # Determinism
//
// Fixed systems read only the world, FixedContext.Input, FixedContext.DT,
// FixedContext.Tick and World.RNG: never the wall clock, the frame time or
// map iteration order. Products added to something are rounded explicitly
// (float32(a*b) + c, or package detmath), because Go may fuse a*b + c into
// one instruction on some builds. Kept to, these rules make a run a pure
// function of its seed and input, whatever the display: World.Hash, over the
// exact bits of the world, is the same at the same tick on every display
// rate and every build. RunHeadless drives an engine from a simulated
// display, as fast as the CPU allows, and is how that is checked. It goes
// on from where the engine stands (an earlier run, frames run by hand, a
// Restore) up to the world tick HeadlessConfig.Ticks, and a run that can
// make no progress (a paused loop, a TickGate that never opens) ends with
// an error wrapping ErrStalled. A snapshot holds no clock time: restored
// into any engine, whatever its clock, and run on with the same input per
// tick, it gives the same hashes.
//
// # What a game uses
//
// A game needs New and DefaultConfig, AddSystem (and AddStage), AddUpdate
// and AddRender, World's Spawn, Despawn, SetTransform, SetDrawVelocity and
// Teleport (and SetParent, Unparent and WorldTransform for a hierarchy),
// the input.Sample in FixedContext.Input, and a runner:
// RunHeadless here, desktop.New for a window. The package Example is a
// complete minimal game; ExampleEngine_Frame shows the loop and
// ExampleWorld_Interpolate the interpolation. docs/api.md in the repository
// lists the whole public API by task (configuration and defaults, systems,
// entities, input, runners, replay, snapshots, jobs, diagnostics) and says
// what is deliberately not public. A few exported identifiers exist for
// Nebula's other packages (Frame, SetPhaseClock, World.BeginTick,
// input.Queue.Advance, input.Sample.Words, TickHook and AddTickHook, and
// the methods package rollback drives an engine with: AdvanceTick,
// Simulated, TickRate, SetJobMode); their docs say so.
package engine
