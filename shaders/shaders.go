package shaders

import "embed"

// FS holds every *.vert and *.frag file of this directory, at the root
// ("cube.vert", "cube.frag", ...).
//
//go:embed *.vert *.frag *.glsl
var FS embed.FS
