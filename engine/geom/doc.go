// Package geom holds the geometry values the simulation, the models and
// the renderer share: Transform, a position, a rotation and a scale.
//
// It is a leaf: it imports only mathgl, so a model loader or a renderer
// can use a Transform without importing the simulation.
package geom
