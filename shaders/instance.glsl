// The frame's instances as the CPU placed them (gfx.Renderer.Draw),
// included by cube.vert, sphere.vert and mesh.vert: uInstances is the
// instance buffer as a buffer texture of 4 32-bit words a texel
// (GL_RGBA32UI), one render.Instance per 4 texels, as the renderer streams
// []render.Instance:
//   word  0- 2  position    3 x float
//   word  3- 6  rotation    a unit quaternion stored W FIRST (w, x, y, z)
//   word  7- 9  scale       3 x float, none negative
//   word 10     colour      4 bytes RGBA, normalised to [0, 1]
//   word 11     mesh and pose (16 bits each)
//   word 12     emissive    3 bytes RGB (and a reserved byte)
//   words 13-15 reserved
// instance_gpu.glsl is the same function for the GPU path, which places
// each instance between two ticks itself.

uniform usamplerBuffer uInstances;

struct Instance {
    vec3 pos;
    vec4 rot; // W first
    vec3 scale;
    vec4 color;
    vec3 emissive;
    int pose; // 0: none
};

// fetchInstance returns instance k of the frame.
Instance fetchInstance(int k) {
    int b = 4 * k;
    uvec4 i0 = texelFetch(uInstances, b);
    uvec4 i1 = texelFetch(uInstances, b + 1);
    uvec4 i2 = texelFetch(uInstances, b + 2);
    Instance o;
    o.pos = uintBitsToFloat(i0.xyz);
    o.rot = uintBitsToFloat(uvec4(i0.w, i1.xyz));
    o.scale = uintBitsToFloat(uvec3(i1.w, i2.xy));
    o.color = unpackUnorm4x8(i2.z);
    o.emissive = unpackUnorm4x8(texelFetch(uInstances, b + 3).x).rgb;
    o.pose = int(i2.w >> 16);
    return o;
}
