#version 410 core

// The sphere impostor's fragments (see sphere.vert): the ray from the eye
// through the pixel against the instance's ellipsoid, in the ellipsoid's
// scaled frame, where it is |U + t V|^2 = P^2 / 4. A miss is discarded; a
// hit is lit as mesh.frag lights a model (one directional light plus
// ambient, the instance's colour) with the ellipsoid's exact normal, and
// its depth is the hit point's, so the impostor meets other geometry
// exactly where the ellipsoid does. A hit outside the near and far planes
// is discarded (the renderer draws with depth clamping on, see
// sphere.vert). The instance's emissive colour is added, and the output
// premultiplied by its alpha, as cube.frag's.

flat in vec3 vEye;
in vec3 vDir;
flat in float vRadius2;
in vec2 vDirClip;
flat in vec2 vEyeClip;
flat in vec3 vCofactor;
flat in vec3 vLight;
flat in vec4 vColor;
flat in vec3 vEmissive;
in vec3 vDirWorld;
flat in vec4 vRot;

uniform vec3 uEye; // camera position, world space

#include "lights.glsl"
#include "shadow.glsl"

// rotate turns v by the unit quaternion q stored W first (as cube.vert).
vec3 rotate(vec4 q, vec3 v) {
    vec3 u = q.yzw;
    return v + 2.0 * cross(u, cross(u, v) + q.x * v);
}

uniform float uAmbient; // light on every face
uniform float uDiffuse; // added in proportion to the cosine toward the light

out vec4 fragColor;

#include "sphere_hit.glsl"

void main() {
    float t = sphereHit();

    vec3 m = vEye + t * vDir; // the hit point in the scaled frame
    float len = length(vCofactor * m);
    float lambert = len > 0.0 ? max(dot(m, vLight), 0.0) / len : 0.0;
    // The point lights at the hit in the world, with the world normal
    // (the frame's normal cof * m turned by the instance's rotation).
    vec3 n = len > 0.0 ? rotate(vRot, vCofactor * m) / len : vec3(0.0);
    vec3 world = uEye + t * vDirWorld;
    vec3 points = pointLights(world, n);
    if (lambert > 0.0) {
        lambert *= shadowAt(world, n);
    }
    vec3 c = min(vColor.rgb * (uAmbient + uDiffuse * lambert + points) + vEmissive, 1.0);
    fragColor = vec4(c * vColor.a, vColor.a); // premultiplied, as cube.frag
}
