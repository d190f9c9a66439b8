#version 410 core

// The built-in sphere (engine.MeshSphere) as an impostor, every instance in
// one draw call: gfx.Renderer.Draw sorts the instances by mesh, the
// spheres' run from instance first on, and calls
// glDrawArrays(GL_TRIANGLES, 6 * first, 6 * spheres) with no vertex
// attributes, as for cube.vert. Vertices 6k .. 6k+5 are instance k's quad
// (two triangles), facing the camera and covering the instance's
// silhouette; sphere.frag casts a ray through each of its pixels against
// the instance's ellipsoid (the sphere of diameter 1 turned and scaled by
// the instance), discards the misses and writes the hit's colour and
// depth. A software rasteriser such as llvmpipe pays per triangle set up
// and per vertex: two triangles instead of a tessellated sphere's hundreds
// make a sphere about as cheap as a cube.
//
// The quad: the instance's bounding sphere (its centre, radius
// rho = max(scale) / 2) seen from the eye at distance d is a cone of
// half-angle alpha, sin(alpha) = rho / d. The quad is the square
// circumscribing that cone's cross-section in the plane across the cone's
// axis behind the bounding sphere (at distance d + rho): every ray from the
// eye through the ellipsoid crosses it, after the ellipsoid, so a pixel the
// ellipsoid covers is covered by the quad, in front of the camera. The
// renderer draws with GL_DEPTH_CLAMP on, so the quad is not clipped by the
// near and far planes; sphere.frag clips each hit against them instead.
// When the eye is inside the bounding sphere but outside the ellipsoid the
// quad is the whole viewport (corners from uInvViewProj); when it is
// inside the ellipsoid nothing is drawn, as a mesh's back faces are
// culled.
//
// The ray is worked out in the ellipsoid's frame, where it is the sphere
// of radius 1/2: with y = rotate(inverse rot, x - pos) a world point x's
// local position, the ellipsoid is sum_i (y_i / s_i)^2 = 1/4. Multiplying
// by P^2 = (s_x s_y s_z)^2 gives sum_i (c_i y_i)^2 = P^2 / 4 with
// c = (s_y s_z, s_z s_x, s_x s_y), which divides by no scale. The eye and
// the ray direction (the quad point minus the eye) go to the fragment
// shader in that frame (U = c * y(eye), V = c * rotate(inverse rot, dir)):
// V is linear in the quad point, so interpolating it across the quad is
// exact. An instance with a zero scale (a flat sphere) draws nothing.

#include "instance.glsl"
uniform mat4 uViewProj;
uniform mat4 uInvViewProj; // its inverse, for the whole-viewport quad
uniform vec3 uEye;         // camera position, world space
uniform vec3 uLightDir;    // unit vector from the scene toward the light, world space

flat out vec3 vEye;       // U: the eye in the ellipsoid's scaled frame
out vec3 vDir;            // V: the ray direction in that frame
flat out float vRadius2;  // P^2 / 4: the ellipsoid's equation's right side
out vec2 vDirClip;        // clip z and w of the ray direction (w = 0)
flat out vec2 vEyeClip;   // clip z and w of the eye
flat out vec3 vCofactor;  // c: a point m of the frame has world normal rotate(rot, c * m)
flat out vec3 vLight;     // c * rotate(inverse rot, uLightDir), so that normal . light = m . vLight
flat out vec4 vColor;     // the instance's colour
flat out vec3 vEmissive;  // and the light it gives off
out vec3 vDirWorld;       // the ray direction in the world: the hit is at uEye + t vDirWorld
flat out vec4 vRot;       // the instance's rotation, for the world normal

// rotate turns v by the unit quaternion q stored W first (as cube.vert).
vec3 rotate(vec4 q, vec3 v) {
    vec3 u = q.yzw;
    return v + 2.0 * cross(u, cross(u, v) + q.x * v);
}

// The corners of the quad's two triangles, counter-clockwise on screen.
const vec2 corners[6] = vec2[6](
    vec2(-1, -1), vec2(1, -1), vec2(1, 1),
    vec2(-1, -1), vec2(1, 1), vec2(-1, 1));

void main() {
    int instance = gl_VertexID / 6;
    vec2 c = corners[gl_VertexID - 6 * instance];

    Instance inst = fetchInstance(instance);
    vec3 pos = inst.pos, scale = inst.scale;
    vec4 rot = inst.rot;
    vColor = inst.color;
    vEmissive = inst.emissive;
    vRot = rot;

    vec4 inv = vec4(rot.x, -rot.yzw);
    vec3 cof = scale.yzx * scale.zxy;
    float p = scale.x * cof.x;
    vRadius2 = 0.25 * p * p;
    vCofactor = cof;
    vLight = cof * rotate(inv, uLightDir);
    vEye = cof * rotate(inv, uEye - pos);
    vec4 row2 = vec4(uViewProj[0][2], uViewProj[1][2], uViewProj[2][2], uViewProj[3][2]);
    vec4 row3 = vec4(uViewProj[0][3], uViewProj[1][3], uViewProj[2][3], uViewProj[3][3]);
    vEyeClip = vec2(dot(row2, vec4(uEye, 1.0)), dot(row3, vec4(uEye, 1.0)));

    vec3 toCentre = pos - uEye;
    float d = length(toCentre);
    float rho = 0.5 * max(scale.x, max(scale.y, scale.z));
    vec3 dir;
    if (vRadius2 <= 0.0 || dot(vEye, vEye) <= vRadius2) {
        // A flat ellipsoid, or the eye inside it: nothing to draw.
        gl_Position = vec4(0.0, 0.0, 0.0, 1.0);
        dir = vec3(0.0);
    } else if (d <= rho * 1.001) {
        // The eye is inside the bounding sphere: the whole viewport.
        gl_Position = vec4(c, 0.0, 1.0);
        vec4 q = uInvViewProj * gl_Position;
        dir = q.xyz / q.w - uEye;
    } else {
        vec3 axis = toCentre / d;
        vec3 ref = abs(axis.y) < 0.99 ? vec3(0.0, 1.0, 0.0) : vec3(1.0, 0.0, 0.0);
        vec3 right = normalize(cross(axis, ref));
        vec3 up = cross(right, axis); // right x up = -axis: counter-clockwise seen from the eye
        // The half side of the square around the cone at distance d + rho,
        // (d + rho) tan(alpha), with a margin for rounding.
        float side = 1.01 * rho * sqrt((d + rho) / (d - rho));
        dir = toCentre + rho * axis + side * (c.x * right + c.y * up);
        gl_Position = uViewProj * vec4(uEye + dir, 1.0);
    }
    vDir = cof * rotate(inv, dir);
    vDirWorld = dir;
    vDirClip = vec2(dot(row2.xyz, dir), dot(row3.xyz, dir));
}
