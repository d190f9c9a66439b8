#version 410 core

// The cube's fragments take the colour the vertex shader lit: a face is
// flat and the light directional, so every pixel of a face has the same
// colour. The cube is opaque (no blending) and the output alpha is 1, so
// screenshots are opaque.

flat in vec4 vColor;

out vec4 fragColor;

void main() {
    fragColor = vColor;
}
