#version 410 core

// A part of a model, every instance that shows the model in one
// glDrawElementsInstanced: gfx.Renderer.Draw sorts the frame's instances by
// mesh, so a model's instances are uPart.x, uPart.x + 1, ... in the
// instance buffer, and instance gl_InstanceID of the draw is
// uPart.x + gl_InstanceID there (OpenGL 4.1 has no base-instance draw).
// Loops run to uniform bounds (the part's targets and joints per vertex)
// and every fetch is needed: software rasterisers such as llvmpipe run
// both sides of a per-vertex branch.
//
// The vertex is morphed, then skinned, then placed by the instance:
//   morphed = aPos + sum over targets t of weight_t * delta_t(gl_VertexID)
//   skinned = (sum over i of aWeights[i] * palette[aJoints[i]]) * morphed
//   world   = instance position + rotate(instance rotation, instance scale * skinned)
// and the normal alike, through the cofactors of the matrices (the inverse
// transpose up to a positive factor, so non-uniform scale is right and a
// scale of zero divides nothing), normalised in the fragment shader.
//
// The palette and the weights come from the frame's pose buffer: the
// instance's pose (its word 11, high 16 bits) says where its own start; for
// pose 0, or a pose past the frame's, the model's rest palette and weights,
// which the renderer appends to the frame's poses, at uRest.

layout(location = 0) in vec3 aPos;
layout(location = 1) in vec3 aNormal;
layout(location = 2) in vec2 aUV;
layout(location = 3) in vec4 aColor;   // normalised bytes
layout(location = 4) in uvec4 aJoints; // palette entries
layout(location = 5) in vec4 aWeights;

// The frame's instances, 64 bytes (4 texels of 4 words) each, as cube.vert
// reads them: position (words 0-2), rotation W first (3-6), scale (7-9),
// colour bytes (10), mesh | pose << 16 (11), emissive bytes (12).
#include "instance.glsl"
// The frame's poses, RGBA32F: every bone (engine.Bone: 3 texels, a row
// each), the frame's then the rest palettes of the models drawn; from
// texel uFrame.y the weights, 4 a texel, likewise.
uniform samplerBuffer uPoses;
// The same buffer as 32-bit words: from word uFrame.z, per pose k (from
// 1) its first bone and its first weight at words uFrame.z + 2(k-1) and
// the next (engine.PoseRef).
uniform usamplerBuffer uPoseWords;
// The part's morph targets, RGB32F: the position delta of vertex v for
// target t at texel 2(v * uPart.y + t), its normal delta at the next.
uniform samplerBuffer uTargets;

uniform mat4 uViewProj;
uniform ivec4 uFrame; // x: poses in the frame, y: texel of the first weight, z: word of the first reference
uniform ivec2 uRest;  // the model's rest palette's first bone, its rest weights' first weight
uniform ivec4 uPart;  // x: first instance, y: morph targets, z: joints per vertex (1-4), w: the part's first weight in the model's
uniform vec4 uBaseColor;
uniform vec3 uLightDir; // unit vector from the scene toward the light, world space
uniform float uAmbient; // light on every face
uniform float uDiffuse; // added in proportion to the cosine toward the light

out vec3 vNormal; // world space, not normalised
out vec2 vUV;
out vec4 vColor; // base colour * vertex colour * instance colour; alpha: the instance's
out vec3 vEmissive; // the light the instance gives off
out vec3 vWorld;    // world position, for the point lights
// vColor lit at the vertex, for mesh_faceted.frag (the other fragment
// shaders light each fragment and leave it unused, and the linker drops
// it).
out vec3 vLit;
// The directional light's diffuse part of vLit, which shadows take away
// (mesh_faceted.frag).
out vec3 vLitDiffuse;

// rotate turns v by the unit quaternion q stored W first (as cube.vert).
vec3 rotate(vec4 q, vec3 v) {
    vec3 u = q.yzw;
    return v + 2.0 * cross(u, cross(u, v) + q.x * v);
}

void main() {
    Instance inst = fetchInstance(uPart.x + gl_InstanceID);
    vEmissive = inst.emissive;
    vec3 pos = inst.pos, scale = inst.scale;
    vec4 rot = inst.rot, color = inst.color;
    int pose = inst.pose;

    int firstBone = uRest.x;
    int firstWeight = uRest.y + uPart.w;
    if (pose != 0 && pose <= uFrame.x) {
        int ref = uFrame.z + 2 * (pose - 1);
        firstBone = int(texelFetch(uPoseWords, ref).r);
        firstWeight = int(texelFetch(uPoseWords, ref + 1).r) + uPart.w;
    }
#ifdef TICK_POSES
    // The GPU path (instance_gpu.glsl): pose is the pose at the start of
    // the tick and pose + 1 the one at its end; the palettes and weights
    // are blended at inst.poseMix, the frame's alpha (1 for a snap). The
    // blend of two skinning matrices is linear, not a slerp: between two
    // ticks a bone turns a few degrees, and the difference from the CPU
    // path's blend of local poses is far below a pixel
    // (TestGPUPathMatchesCPUPath).
    int endBone = firstBone, endWeight = firstWeight;
    if (pose != 0 && pose < uFrame.x) {
        int ref = uFrame.z + 2 * pose;
        endBone = int(texelFetch(uPoseWords, ref).r);
        endWeight = int(texelFetch(uPoseWords, ref + 1).r) + uPart.w;
    }
    float mixEnd = inst.poseMix;
#endif

    vec3 p = aPos, n = aNormal;
    for (int t = 0; t < uPart.y; t++) {
        int k = firstWeight + t;
        float w = texelFetch(uPoses, uFrame.y + k / 4)[k % 4];
#ifdef TICK_POSES
        int ke = endWeight + t;
        w = mix(w, texelFetch(uPoses, uFrame.y + ke / 4)[ke % 4], mixEnd);
#endif
        int d = 2 * (gl_VertexID * uPart.y + t);
        p += w * texelFetch(uTargets, d).xyz;
        n += w * texelFetch(uTargets, d + 1).xyz;
    }

    vec4 r0 = vec4(0.0), r1 = vec4(0.0), r2 = vec4(0.0);
    for (int i = 0; i < uPart.z; i++) {
        float w = aWeights[i];
        int m = 3 * (firstBone + int(aJoints[i]));
#ifdef TICK_POSES
        int me = 3 * (endBone + int(aJoints[i]));
        r0 += w * mix(texelFetch(uPoses, m), texelFetch(uPoses, me), mixEnd);
        r1 += w * mix(texelFetch(uPoses, m + 1), texelFetch(uPoses, me + 1), mixEnd);
        r2 += w * mix(texelFetch(uPoses, m + 2), texelFetch(uPoses, me + 2), mixEnd);
#else
        r0 += w * texelFetch(uPoses, m);
        r1 += w * texelFetch(uPoses, m + 1);
        r2 += w * texelFetch(uPoses, m + 2);
#endif
    }
    vec3 skinned = vec3(dot(r0, vec4(p, 1.0)), dot(r1, vec4(p, 1.0)), dot(r2, vec4(p, 1.0)));
    // The columns of the skinning matrix's 3x3 part, and its cofactor
    // matrix (columns c1 x c2, c2 x c0, c0 x c1) for the normal.
    vec3 c0 = vec3(r0.x, r1.x, r2.x), c1 = vec3(r0.y, r1.y, r2.y), c2 = vec3(r0.z, r1.z, r2.z);
    vec3 skinnedNormal = mat3(cross(c1, c2), cross(c2, c0), cross(c0, c1)) * n;

    vWorld = pos + rotate(rot, scale * skinned);
    gl_Position = uViewProj * vec4(vWorld, 1.0);
    vNormal = rotate(rot, skinnedNormal * (scale.yzx * scale.zxy));
    vUV = aUV;
    vColor = vec4(uBaseColor.rgb * aColor.rgb * color.rgb, color.a);
    float len = length(vNormal);
    float lambert = len > 0.0 ? max(dot(vNormal, uLightDir), 0.0) / len : 0.0;
    vLit = vColor.rgb * (uAmbient + uDiffuse * lambert) + vEmissive;
    vLitDiffuse = vColor.rgb * (uDiffuse * lambert);
}
