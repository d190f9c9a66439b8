#version 410 core

// A game's text (gfx.Text): the glyph's coverage, fetched from the atlas
// (an R8 texture of the font's cells) by integer texel, so no filtering is
// involved, times the glyph's colour. Uncovered texels are discarded;
// blending puts the rest over the frame by their alpha.

uniform sampler2D uAtlas;

in vec2 vLocal;
flat in ivec2 vCell;
flat in vec4 vColor;

out vec4 fragColor;

void main() {
    ivec2 t = min(ivec2(vLocal), ivec2(5, 12)); // stay inside the cell
    float k = texelFetch(uAtlas, vCell + t, 0).r;
    if (k == 0.0) {
        discard;
    }
    fragColor = vec4(vColor.rgb, vColor.a * k);
}
