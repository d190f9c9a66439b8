#version 410 core

// The diagnostics overlay's fragments: the quad's premultiplied colour
// scaled by the coverage read from the glyph atlas (a single-channel
// GL_R8 texture). The texel is fetched by its integer coordinates, so no
// filtering, wrapping or mipmapping is involved: a pixel centre at
// x + 0.5 inside a glyph quad reads exactly texel x of the glyph's cell.

uniform sampler2D uAtlas;

in vec2 vUV;
flat in vec4 vColor;

out vec4 fragColor;

void main() {
    float coverage = texelFetch(uAtlas, ivec2(floor(vUV)), 0).r;
    fragColor = vColor * coverage;
}
