#version 410 core

// The shadow map's fragments: the depth is all that is written (the
// shadow pass's framebuffer has no colour), so there is nothing to do.
// gfx.Renderer links it with cube.vert and mesh.vert for the shadow pass.

void main() {
}
