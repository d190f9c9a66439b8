#version 410 core

// A model's part without a base colour texture: mesh.frag without the
// texture fetch (which a software rasteriser such as llvmpipe pays for on
// every pixel even when the texture is the 1x1 white one, and even behind
// a uniform branch), so the same picture as mesh.frag with a white
// texture: the colour mesh.vert passes, lit per fragment with the
// interpolated normal. gfx draws an untextured part with it unless the
// part is faceted (mesh_faceted.frag).

in vec3 vNormal;
in vec4 vColor;
in vec3 vEmissive;
in vec3 vWorld;

uniform vec3 uLightDir; // unit vector from the scene toward the light, world space
uniform float uAmbient; // light on every face
uniform float uDiffuse; // added in proportion to the cosine toward the light

out vec4 fragColor;

#include "lights.glsl"
#include "shadow.glsl"

void main() {
    float len = length(vNormal);
    float lambert = len > 0.0 ? max(dot(vNormal, uLightDir), 0.0) / len : 0.0;
    vec3 n = len > 0.0 ? vNormal / len : vec3(0.0);
    vec3 points = pointLights(vWorld, n);
    if (lambert > 0.0) {
        lambert *= shadowAt(vWorld, n);
    }
    vec3 c = min(vColor.rgb * (uAmbient + uDiffuse * lambert + points) + vEmissive, 1.0);
    fragColor = vec4(c * vColor.a, vColor.a); // premultiplied, as cube.frag
}
