// Package physics is Nebula's deterministic rigid-body physics: bodies,
// collision shapes, contacts and a solver that give the same bits on every
// machine, run by the engine's Physics stage.
package physics
