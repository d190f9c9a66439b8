#version 410 core

// The lit, instanced cube: gfx.Renderer.Frame draws every cube with one
// glDrawElementsInstanced call.
//
// Per vertex (the cube mesh): position and normal.
// Per instance (attribute divisor 1): one engine.Instance exactly as the
// renderer streams it, 44 bytes:
//   offset  0  iPos    3 x float
//   offset 12  iRot    4 x float, a unit quaternion stored W FIRST:
//                      iRot.x is the scalar part, iRot.yzw the vector part
//   offset 28  iScale  3 x float
//   offset 40  iColor  4 x unsigned byte, normalised to [0, 1]
// The locations are gfx's attr* constants; gfx checks them at start-up.

layout(location = 0) in vec3 aPos;
layout(location = 1) in vec3 aNormal;
layout(location = 2) in vec3 iPos;
layout(location = 3) in vec4 iRot;
layout(location = 4) in vec3 iScale;
layout(location = 5) in vec4 iColor;

uniform mat4 uViewProj;

out vec3 vNormal;
out vec4 vColor;

// rotate turns v by the unit quaternion q stored W first (q.x = w,
// q.yzw = x, y, z): v + 2w(u x v) + 2u x (u x v) with u = q.yzw.
vec3 rotate(vec4 q, vec3 v) {
    vec3 u = q.yzw;
    return v + 2.0 * cross(u, cross(u, v) + q.x * v);
}

void main() {
    vec3 world = iPos + rotate(iRot, iScale * aPos);
    gl_Position = uViewProj * vec4(world, 1.0);
    // Normals transform by the cofactor of rotate*scale, which is rotate
    // times (sy*sz, sz*sx, sx*sy): the inverse transpose up to a positive
    // factor, without dividing by a scale that may be zero (a flat cube).
    vNormal = rotate(iRot, aNormal * (iScale.yzx * iScale.zxy));
    vColor = iColor;
}
