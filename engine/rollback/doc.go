// Package rollback runs an engine ahead of its confirmed inputs and
// corrects it when they arrive (prediction and rollback, as in GGPO), and
// checks that a game can be rolled back (the sync test).
//
// A Rollback is a session on an engine, fed by a Source (a network client,
// or a test) that says which ticks are confirmed, with which players and
// inputs. It is one of the engine's tick hooks, the one that steers the
// ticks: it gates them (no tick runs more than Config.MaxPrediction ticks
// past the last confirmed one), says each tick's players (the confirmed
// ones, or a prediction), and at the start of every frame takes the
// confirmed ticks that arrived, loads the state before the first that
// differs from its prediction and simulates up to the present again.
// Corrections that move what is on screen are eased (Smoothing).
//
// SyncTest re-simulates every tick of a game from an earlier state and
// compares the hashes: a game that passes it can be rolled back.
//
// Both drive the engine only through the Simulation interface, the shape
// of a rollback library's requests (GGRS's save, load and advance): save
// the state (engine.State), load it, advance one tick (through the tick
// hooks, or with given players), add a tick hook, and read the world, the
// tick rate and the interpolation between ticks. *engine.Engine
// implements it.
package rollback
