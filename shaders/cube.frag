#version 410 core

// The cube's fragments take the colour the vertex shader lit: a face is
// flat and the light directional, so every pixel of a face has the same
// colour, to which the point and spot lights (lights.glsl) add theirs,
// per fragment. The output is premultiplied by the instance's alpha: an opaque
// cube (alpha 1) writes its colour and alpha 1, so screenshots are opaque,
// and a transparent one is blended over what is behind it with
// glBlendFunc(GL_ONE, GL_ONE_MINUS_SRC_ALPHA).

flat in vec4 vColor;
in vec3 vWorld;
flat in vec3 vNormal;
flat in vec3 vBase;
flat in vec3 vDiffuse;

#include "lights.glsl"
#include "shadow.glsl"

out vec4 fragColor;

void main() {
    // In shadow, the directional light's diffuse part is taken away (with
    // shadows off, or lit, vColor is used as the vertex shader made it).
    vec3 c = vColor.rgb + vBase * pointLights(vWorld, vNormal);
    float s = shadowAt(vWorld, vNormal);
    if (s < 1.0) {
        c -= vDiffuse * (1.0 - s);
    }
    fragColor = vec4(min(c, 1.0) * vColor.a, vColor.a);
}
