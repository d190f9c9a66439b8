#version 410 core

// A model's fragments: the colour mesh.vert passes (base colour factor *
// vertex colour * instance colour) times the base colour texture, lit as
// the cube is (one directional light plus ambient) with the interpolated
// normal. Opaque: the output alpha is 1.

in vec3 vNormal;
in vec2 vUV;
in vec4 vColor;
in vec3 vEmissive;
in vec3 vWorld;

uniform sampler2D uTexture; // the part's base colour, or 1x1 white
uniform vec3 uLightDir;     // unit vector from the scene toward the light, world space
uniform float uAmbient;     // light on every face
uniform float uDiffuse;     // added in proportion to the cosine toward the light

out vec4 fragColor;

#include "lights.glsl"
#include "shadow.glsl"

void main() {
    float len = length(vNormal);
    float lambert = len > 0.0 ? max(dot(vNormal, uLightDir), 0.0) / len : 0.0;
    vec3 c = vColor.rgb * texture(uTexture, vUV).rgb;
    vec3 n = len > 0.0 ? vNormal / len : vec3(0.0);
    vec3 points = pointLights(vWorld, n);
    if (lambert > 0.0) {
        lambert *= shadowAt(vWorld, n);
    }
    c = min(c * (uAmbient + uDiffuse * lambert + points) + vEmissive, 1.0);
    fragColor = vec4(c * vColor.a, vColor.a); // premultiplied, as cube.frag
}
