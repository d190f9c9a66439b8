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

// rotate turns v by the unit quaternion q stored W first (as cube.vert).
vec3 rotate(vec4 q, vec3 v) {
    vec3 u = q.yzw;
    return v + 2.0 * cross(u, cross(u, v) + q.x * v);
}

uniform float uAmbient; // light on every face
uniform float uDiffuse; // added in proportion to the cosine toward the light

out vec4 fragColor;

void main() {
    // t^2 (V.V) + 2t (U.V) + U.U - r^2 = 0; its discriminant over 4 is
    // (U.V)^2 - (V.V)(U.U - r^2) = (V.V) r^2 - |U x V|^2, the second form
    // without the cancellation of two large, nearly equal terms.
    float a = dot(vDir, vDir);
    float b = dot(vEye, vDir);
    vec3 x = cross(vEye, vDir);
    float disc = a * vRadius2 - dot(x, x);
    if (disc < 0.0) {
        discard;
    }
    float t = (-b - sqrt(disc)) / a; // the nearer hit
    float w = vEyeClip.y + t * vDirClip.y;
    float z = (vEyeClip.x + t * vDirClip.x) / w;
    if (t <= 0.0 || abs(z) > 1.0) {
        discard;
    }
    gl_FragDepth = 0.5 * z + 0.5;

    vec3 m = vEye + t * vDir; // the hit point in the scaled frame
    float len = length(vCofactor * m);
    float lambert = len > 0.0 ? max(dot(m, vLight), 0.0) / len : 0.0;
    // The point lights at the hit in the world, with the world normal
    // (the frame's normal cof * m turned by the instance's rotation).
    vec3 n = len > 0.0 ? rotate(vRot, vCofactor * m) / len : vec3(0.0);
    vec3 points = pointLights(uEye + t * vDirWorld, n);
    vec3 c = min(vColor.rgb * (uAmbient + uDiffuse * lambert + points) + vEmissive, 1.0);
    fragColor = vec4(c * vColor.a, vColor.a); // premultiplied, as cube.frag
}
