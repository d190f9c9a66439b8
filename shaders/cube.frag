#version 410 core

// The cube's fragments take the colour the vertex shader lit: a face is
// flat and the light directional, so every pixel of a face has the same
// colour. The output is premultiplied by the instance's alpha: an opaque
// cube (alpha 1) writes its colour and alpha 1, so screenshots are opaque,
// and a transparent one is blended over what is behind it with
// glBlendFunc(GL_ONE, GL_ONE_MINUS_SRC_ALPHA).

flat in vec4 vColor;

out vec4 fragColor;

void main() {
    fragColor = vec4(min(vColor.rgb, 1.0) * vColor.a, vColor.a);
}
