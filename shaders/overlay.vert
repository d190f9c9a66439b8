#version 410 core

// The diagnostics overlay (gfx.Overlay): panels, graph lines, bars and text
// glyphs, all as quads in screen space, one draw call per frame.
//
// Positions are framebuffer pixels with the origin at the top-left corner
// and y growing downward, as the overlay lays itself out; uViewport is the
// framebuffer's size in pixels. Every corner lies on a whole pixel, so a
// quad covers whole pixels and nothing is filtered or interpolated.
//
// aUV is a texel of the glyph atlas (in texels, not normalised): a glyph's
// corners are its cell's corners; a plain shape gives all four corners the
// texel in the middle of the atlas's solid cell, whose coverage is 1.
// aColor is straight (not premultiplied) RGBA; it is premultiplied here, and
// the overlay blends with glBlendFunc(GL_ONE, GL_ONE_MINUS_SRC_ALPHA), which
// also keeps the framebuffer's alpha at 1 over an opaque scene.

layout(location = 0) in vec2 aPos;
layout(location = 1) in vec2 aUV;
layout(location = 2) in vec4 aColor;

uniform vec2 uViewport; // framebuffer width and height in pixels

out vec2 vUV;
flat out vec4 vColor;

void main() {
    vec2 ndc = aPos / uViewport * 2.0 - 1.0;
    gl_Position = vec4(ndc.x, -ndc.y, 0.0, 1.0);
    vUV = aUV;
    vColor = vec4(aColor.rgb * aColor.a, aColor.a);
}
