#version 410 core

// A game's text (gfx.Text): every glyph of a frame in one draw call,
// glDrawArrays(GL_TRIANGLES, 0, 6 * glyphs) with no vertex attributes.
// Each glyph is one texel of uGlyphs, a buffer texture of four 32-bit
// integers: the cell's top-left corner in framebuffer pixels (x, y, from
// the top-left corner, y down), the atlas cell's index in bits 0-7 and the
// scale in bits 8-15 of z, and the colour's RGBA bytes in w (R lowest).
// gl_VertexID picks the glyph (/ 6) and the corner of its quad (% 6).
//
// uViewport is the framebuffer's size in pixels. Every corner lies on a
// whole pixel, so a glyph covers whole pixels, scale × scale per texel of
// its cell.

uniform isamplerBuffer uGlyphs;
uniform vec2 uViewport;

const ivec2 cellSize = ivec2(6, 13); // a glyph cell, in atlas texels
const int atlasCols = 16;            // cells in a row of the atlas

// vLocal is the position in the glyph's cell, in atlas texels: at a pixel
// centre, (texel + 0.5) / scale. vCell is the cell's top-left texel.
out vec2 vLocal;
flat out ivec2 vCell;
flat out vec4 vColor;

void main() {
    const ivec2 corners[6] = ivec2[6](
        ivec2(0, 0), ivec2(1, 0), ivec2(0, 1),
        ivec2(0, 1), ivec2(1, 0), ivec2(1, 1));
    ivec4 g = texelFetch(uGlyphs, gl_VertexID / 6);
    ivec2 corner = corners[gl_VertexID % 6];
    int cell = g.z & 0xff;
    int scale = (g.z >> 8) & 0xff;

    vLocal = vec2(corner * cellSize);
    vCell = ivec2(cell % atlasCols, cell / atlasCols) * cellSize;
    uint c = uint(g.w);
    vColor = vec4(c & 0xffu, (c >> 8) & 0xffu, (c >> 16) & 0xffu, c >> 24) / 255.0;

    vec2 px = vec2(g.xy + corner * cellSize * scale);
    vec2 ndc = px / uViewport * 2.0 - 1.0;
    gl_Position = vec4(ndc.x, -ndc.y, 0.0, 1.0);
}
