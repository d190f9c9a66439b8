#version 410 core

// The cube transformed by uniforms, one draw call per cube. Used only by
// gfx.Renderer.DrawPerInstance, the deliberately naive baseline that the
// instanced path (cube.vert) is measured against. The maths is cube.vert's,
// with the instance in uniforms instead of attributes, so both paths draw
// the same pixels.

layout(location = 0) in vec3 aPos;
layout(location = 1) in vec3 aNormal;

uniform mat4 uViewProj;
uniform vec3 uPos;
uniform vec4 uRot; // W first, as engine.Instance stores it
uniform vec3 uScale;
uniform vec4 uColor;

out vec3 vNormal;
out vec4 vColor;

vec3 rotate(vec4 q, vec3 v) {
    vec3 u = q.yzw;
    return v + 2.0 * cross(u, cross(u, v) + q.x * v);
}

void main() {
    vec3 world = uPos + rotate(uRot, uScale * aPos);
    gl_Position = uViewProj * vec4(world, 1.0);
    vNormal = rotate(uRot, aNormal * (uScale.yzx * uScale.zxy));
    vColor = uColor;
}
