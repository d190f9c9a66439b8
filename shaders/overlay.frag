#version 410 core

// The diagnostics overlay's fragments: the panel's texel, fetched by its
// integer coordinates, so no filtering, wrapping or mipmapping is
// involved. The panel is opaque and drawn without blending.

uniform sampler2D uPanel;

in vec2 vTexel;

out vec4 fragColor;

void main() {
    fragColor = texelFetch(uPanel, ivec2(vTexel), 0);
}
