#version 410 core

// A faceted model part without a base colour texture: every triangle's
// three corners have the same normal, the same joints and weights, and no
// morph target moves them (gfx checks this when it uploads the part: a
// plane, a box). Its normal is then the same across each triangle, so the
// light is too, and mesh.vert lights each vertex (vLit); this shader only
// writes the interpolated colour. The picture is mesh_plain.frag's (to
// rounding) at a fraction of the per-pixel work, which is what a large
// flat part such as a floor costs a software rasteriser.

in vec3 vLit;
in vec4 vColor;  // for its alpha and the point lights
in vec3 vNormal; // the same at every corner of a triangle
in vec3 vWorld;
in vec3 vLitDiffuse;

out vec4 fragColor;

#include "lights.glsl"
#include "shadow.glsl"

void main() {
    // The point lights vary across a triangle: they are lit per fragment.
    float len = length(vNormal);
    vec3 n = len > 0.0 ? vNormal / len : vec3(0.0);
    vec3 c = vLit + vColor.rgb * pointLights(vWorld, n);
    float s = shadowAt(vWorld, n);
    if (s < 1.0) {
        c -= vLitDiffuse * (1.0 - s);
    }
    fragColor = vec4(min(c, 1.0) * vColor.a, vColor.a); // premultiplied, as cube.frag
}
