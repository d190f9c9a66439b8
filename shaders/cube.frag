#version 410 core

// One directional light plus ambient, coloured by the instance. The cube is
// opaque (no blending): the instance's alpha is not used and the output
// alpha is 1, so screenshots are opaque.

uniform vec3 uLightDir; // unit vector from the scene toward the light, world space
uniform float uAmbient; // light on every face
uniform float uDiffuse; // added in proportion to the cosine toward the light

in vec3 vNormal;
in vec4 vColor;

out vec4 fragColor;

void main() {
    float lambert = max(dot(normalize(vNormal), uLightDir), 0.0);
    fragColor = vec4(vColor.rgb * (uAmbient + uDiffuse * lambert), 1.0);
}
