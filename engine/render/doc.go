// Package render holds what the simulation hands the renderer each frame:
// a Frame of Instances (an entity's interpolated transform, colour, mesh
// and pose), the Poses of animated models (skinning matrices and blend
// weights), and the MeshIDs that name what is drawn.
//
// Package engine fills a Frame (engine.RenderBuffer holds one) and package
// gfx draws it; neither the renderer nor this package imports the
// simulation, so a renderer can be tested, replaced or run without it.
package render
