#version 410 core

// The lit cube, every instance in one draw call: gfx.Renderer.Draw sorts
// the instances by mesh, the cubes' run from instance first on, and calls
// glDrawArrays(GL_TRIANGLES, 18 * first, 18 * cubes) with no vertex
// attributes; this shader builds each vertex from gl_VertexID ("vertex
// pulling"), which counts from the draw's first vertex.
//
// Vertices 18k .. 18k+17 belong to instance k: the three faces of its cube
// that can face the camera, two triangles (six vertices) each. Of the two
// faces across each local axis only the one on the camera's side can be
// seen, so the other is never generated; the two triangles of a face come
// out in the same order, and counter-clockwise in the same way, as the
// mesh's (gfx.CubeGeometry), so both paths draw the same pixels. This halves
// the triangles a software rasteriser sets up, and since one draw covers
// every cube, the driver processes vertices in large batches instead of
// per instance.
//
// uInstances is the instance buffer as a buffer texture of 4 32-bit words
// a texel (GL_RGBA32UI), one render.Instance per 4 texels (16 words),
// exactly as the renderer streams []render.Instance:
//   word  0- 2  position    3 x float
//   word  3- 6  rotation    a unit quaternion stored W FIRST (w, x, y, z)
//   word  7- 9  scale       3 x float, none negative
//   word 10     colour      4 bytes RGBA, normalised to [0, 1]
//   word 11     mesh and pose (16 bits each), unused here (mesh.vert reads the pose)
//   word 12     emissive    3 bytes RGB (and a reserved byte)
//   words 13-15 reserved
//
// A face is flat and the light directional, so the light is worked out here,
// once per vertex, and the fragment shader only writes the colour.

#include "instance.glsl"
uniform mat4 uViewProj;
uniform vec3 uEye;      // camera position, world space
uniform vec3 uLightDir; // unit vector from the scene toward the light, world space
uniform float uAmbient; // light on every face
uniform float uDiffuse; // added in proportion to the cosine toward the light

flat out vec4 vColor;  // lit by the directional light, plus the emissive colour; alpha
out vec3 vWorld;       // the fragment's world position, for the point lights
flat out vec3 vNormal; // the face's unit normal (0 for a flat cube's)
flat out vec3 vBase;   // the instance's colour, which the point lights light
flat out vec3 vDiffuse; // the directional light's diffuse part of vColor, which shadows take away

// rotate turns v by the unit quaternion q stored W first (q.x = w,
// q.yzw = x, y, z): v + 2w(u x v) + 2u x (u x v) with u = q.yzw.
vec3 rotate(vec4 q, vec3 v) {
    vec3 u = q.yzw;
    return v + 2.0 * cross(u, cross(u, v) + q.x * v);
}

// The corners of a face's two triangles in the face's (u, v) coordinates.
const vec2 corners[6] = vec2[6](
    vec2(-1, -1), vec2(1, -1), vec2(1, 1),
    vec2(-1, -1), vec2(1, 1), vec2(-1, 1));

void main() {
    int instance = gl_VertexID / 18;
    int r = gl_VertexID - 18 * instance;
    int axis = r / 6; // 0, 1, 2: the face across local x, y or z
    vec2 c = corners[r - 6 * axis];

    Instance inst = fetchInstance(instance);
    vec3 pos = inst.pos, scale = inst.scale, emissive = inst.emissive;
    vec4 rot = inst.rot, color = inst.color;

    // The camera in the cube's frame (the inverse rotation) picks the side.
    vec3 eye = rotate(vec4(rot.x, -rot.yzw), uEye - pos);
    vec3 n = vec3(0.0);
    n[axis] = eye[axis] >= 0.0 ? 1.0 : -1.0;
    // Edges u and v with u x v = n, so the corners run counter-clockwise
    // seen from outside: the next two axes in cyclic order, swapped for a
    // face on the negative side.
    vec3 next = n.zxy * n[axis], after = n.yzx * n[axis];
    vec3 u = n[axis] > 0.0 ? next : after;
    vec3 v = n[axis] > 0.0 ? after : next;
    vec3 local = 0.5 * (n + c.x * u + c.y * v);

    vWorld = pos + rotate(rot, scale * local);
    gl_Position = uViewProj * vec4(vWorld, 1.0);

    // Normals transform by the cofactor of rotate*scale, which is rotate
    // times (sy*sz, sz*sx, sx*sy): the inverse transpose up to a positive
    // factor, without dividing by a scale that may be zero (a flat cube).
    vec3 normal = rotate(rot, n * (scale.yzx * scale.zxy));
    float len = length(normal);
    float lambert = len > 0.0 ? max(dot(normal, uLightDir), 0.0) / len : 0.0;
    vColor = vec4(color.rgb * (uAmbient + uDiffuse * lambert) + emissive, color.a);
    vNormal = len > 0.0 ? normal / len : vec3(0.0);
    vBase = color.rgb;
    vDiffuse = color.rgb * (uDiffuse * lambert);
}
