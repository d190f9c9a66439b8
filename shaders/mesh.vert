#version 410 core

// A part of a model, every instance that shows the model in one
// glDrawElementsInstanced: gfx.Renderer.Draw sorts the frame's instances by
// mesh, so a model's instances are uPart.x, uPart.x + 1, ... in the
// instance buffer, and instance gl_InstanceID of the draw is
// uPart.x + gl_InstanceID there (OpenGL 4.1 has no base-instance draw).
//
// The vertex is morphed, then skinned, then placed by the instance:
//   morphed = aPos + sum over targets t of weight_t * delta_t(gl_VertexID)
//   skinned = (sum over i of aWeights[i] * palette[aJoints[i]]) * morphed
//   world   = instance position + rotate(instance rotation, instance scale * skinned)
// and the normal alike, through the cofactors of the matrices (the inverse
// transpose up to a positive factor, so non-uniform scale is right and a
// scale of zero divides nothing), normalised in the fragment shader.
//
// The palette and the weights come from the instance's pose (its word 11,
// high 16 bits) in the frame's pose buffer, or, for pose 0 or a pose past
// the frame's, from the model's rest palette and weights.

layout(location = 0) in vec3 aPos;
layout(location = 1) in vec3 aNormal;
layout(location = 2) in vec2 aUV;
layout(location = 3) in vec4 aColor;   // normalised bytes
layout(location = 4) in uvec4 aJoints; // palette entries
layout(location = 5) in vec4 aWeights;

// The frame's instances, 12 words each, as cube.vert reads them:
// position (words 0-2), rotation W first (3-6), scale (7-9), colour bytes
// (10), mesh | pose << 16 (11).
uniform usamplerBuffer uInstances;
// The frame's poses, RGBA32F: every bone (engine.Bone: 3 texels, a row
// each), then from texel uFrame.y the weights, 4 a texel.
uniform samplerBuffer uPoses;
// The same buffer as 32-bit words: from word uFrame.z, per pose k (from
// 1) its first bone and its first weight at words uFrame.z + 2(k-1) and
// the next (engine.PoseRef).
uniform usamplerBuffer uPoseWords;
// The model's rest palette (3 texels a matrix), then from texel
// uRestWeights its rest weights, 4 a texel.
uniform samplerBuffer uRest;
// The part's morph targets, RGB32F: the position delta of target t at
// vertex v at texel 2(t * uPart.z + v), its normal delta at the next.
uniform samplerBuffer uTargets;

uniform mat4 uViewProj;
uniform ivec4 uFrame;   // x: poses in the frame, y: texel of the first weight, z: word of the first reference
uniform ivec4 uPart;    // x: first instance, y: morph targets, z: vertices, w: the part's first weight in the model's
uniform int uRestWeights;
uniform vec4 uBaseColor;

out vec3 vNormal; // world space, not normalised
out vec2 vUV;
out vec4 vColor; // base colour * vertex colour * instance colour

uint word(int i) { return texelFetch(uInstances, i).r; }
float fword(int i) { return uintBitsToFloat(word(i)); }

// rotate turns v by the unit quaternion q stored W first (as cube.vert).
vec3 rotate(vec4 q, vec3 v) {
    vec3 u = q.yzw;
    return v + 2.0 * cross(u, cross(u, v) + q.x * v);
}

vec4 poseTexel(bool rest, int i) {
    return rest ? texelFetch(uRest, i) : texelFetch(uPoses, i);
}

// weight returns float k of the weights starting at texel base.
float weight(bool rest, int base, int k) {
    return poseTexel(rest, base + k / 4)[k % 4];
}

void main() {
    int b = 12 * (uPart.x + gl_InstanceID);
    vec3 pos = vec3(fword(b), fword(b + 1), fword(b + 2));
    vec4 rot = vec4(fword(b + 3), fword(b + 4), fword(b + 5), fword(b + 6));
    vec3 scale = vec3(fword(b + 7), fword(b + 8), fword(b + 9));
    vec4 color = unpackUnorm4x8(word(b + 10));
    int pose = int(word(b + 11) >> 16);

    bool rest = pose == 0 || pose > uFrame.x;
    int firstBone = 0;
    int weights = uRestWeights; // texel
    int firstWeight = uPart.w;  // float, from there
    if (!rest) {
        int ref = uFrame.z + 2 * (pose - 1);
        firstBone = int(texelFetch(uPoseWords, ref).r);
        weights = uFrame.y;
        firstWeight += int(texelFetch(uPoseWords, ref + 1).r);
    }

    vec3 p = aPos, n = aNormal;
    for (int t = 0; t < uPart.y; t++) {
        float w = weight(rest, weights, firstWeight + t);
        if (w != 0.0) {
            int d = 2 * (t * uPart.z + gl_VertexID);
            p += w * texelFetch(uTargets, d).xyz;
            n += w * texelFetch(uTargets, d + 1).xyz;
        }
    }

    vec4 r0 = vec4(0.0), r1 = vec4(0.0), r2 = vec4(0.0);
    for (int i = 0; i < 4; i++) {
        float w = aWeights[i];
        if (w != 0.0) {
            int m = 3 * (firstBone + int(aJoints[i]));
            r0 += w * poseTexel(rest, m);
            r1 += w * poseTexel(rest, m + 1);
            r2 += w * poseTexel(rest, m + 2);
        }
    }
    vec3 skinned = vec3(dot(r0, vec4(p, 1.0)), dot(r1, vec4(p, 1.0)), dot(r2, vec4(p, 1.0)));
    // The columns of the skinning matrix's 3x3 part, and its cofactor
    // matrix (columns c1 x c2, c2 x c0, c0 x c1) for the normal.
    vec3 c0 = vec3(r0.x, r1.x, r2.x), c1 = vec3(r0.y, r1.y, r2.y), c2 = vec3(r0.z, r1.z, r2.z);
    vec3 skinnedNormal = mat3(cross(c1, c2), cross(c2, c0), cross(c0, c1)) * n;

    gl_Position = uViewProj * vec4(pos + rotate(rot, scale * skinned), 1.0);
    vNormal = rotate(rot, skinnedNormal * (scale.yzx * scale.zxy));
    vUV = aUV;
    vColor = uBaseColor * aColor * color;
}
