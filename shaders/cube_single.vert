#version 410 core

// The cube mesh transformed by uniforms, one draw call per cube. Used only
// by gfx.Renderer.DrawPerInstance, the deliberately naive baseline that the
// one-call path (cube.vert) is measured against. The maths is cube.vert's,
// with the instance in uniforms and the geometry from the mesh (all six
// faces, the hidden ones culled by OpenGL), so both paths draw the same
// pixels.

layout(location = 0) in vec3 aPos;
layout(location = 1) in vec3 aNormal;

uniform mat4 uViewProj;
uniform vec3 uPos;
uniform vec4 uRot; // W first, as engine.Instance stores it
uniform vec3 uScale;
uniform vec4 uColor;
uniform vec3 uLightDir;
uniform float uAmbient;
uniform float uDiffuse;

flat out vec4 vColor;
out vec3 vWorld;       // as cube.vert's, for the point lights
flat out vec3 vNormal;
flat out vec3 vBase;
flat out vec3 vDiffuse; // no shadows here: nothing to take away

vec3 rotate(vec4 q, vec3 v) {
    vec3 u = q.yzw;
    return v + 2.0 * cross(u, cross(u, v) + q.x * v);
}

void main() {
    vWorld = uPos + rotate(uRot, uScale * aPos);
    gl_Position = uViewProj * vec4(vWorld, 1.0);
    vec3 normal = rotate(uRot, aNormal * (uScale.yzx * uScale.zxy));
    float len = length(normal);
    vNormal = len > 0.0 ? normal / len : vec3(0.0);
    vBase = uColor.rgb;
    vDiffuse = vec3(0.0);
    float lambert = len > 0.0 ? max(dot(normal, uLightDir), 0.0) / len : 0.0;
    vColor = vec4(uColor.rgb * (uAmbient + uDiffuse * lambert), 1.0);
}
