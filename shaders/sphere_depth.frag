#version 410 core

// The sphere impostor's depth for the shadow pass: sphere.frag's hit
// (sphere_hit.glsl), its depth written, no colour.

flat in vec3 vEye;
in vec3 vDir;
flat in float vRadius2;
in vec2 vDirClip;
flat in vec2 vEyeClip;

#include "sphere_hit.glsl"

void main() {
    sphereHit();
}
