// The GPU path's instances (gfx.Renderer.DrawTicks): the same
// fetchInstance as instance.glsl, but placing each instance itself between
// the last two ticks. uInstances holds every entity slot's
// render.TickInstance, 6 texels (24 words) each, uploaded once a tick:
//   words  0- 2  position at the start of the tick, 3- 6 its rotation (W first), 7- 9 its scale
//   words 10-12  position at the end of the tick, 13-16 its rotation, 17-19 its scale
//   word 20      colour, RGBA bytes
//   word 21      mesh (low 16 bits) and flags (high 16: 1 drawn, 2 snap)
//   word 22      emissive, RGB bytes
//   word 23      pose (low 16 bits): the pose at the start of the tick, and
//                the next one at its end (mesh.vert blends them: TICK_POSES)
// uDrawList holds the slots to draw, one 32-bit word each, sorted by mesh
// as the renderer draws them. The placement is World.Interpolate's: the
// position and scale lerp, the rotation takes the shortest arc (nlerp when
// the turn is small, slerp otherwise), both ends exact; a snapped
// instance is drawn at its state at the end of the tick.

#define TICK_POSES 1

uniform usamplerBuffer uInstances;
uniform usamplerBuffer uDrawList;
uniform float uAlpha; // the frame's place between the two ticks, 0 to 1

struct Instance {
    vec3 pos;
    vec4 rot; // W first
    vec3 scale;
    vec4 color;
    vec3 emissive;
    int pose;      // 0: none; else the pose at the start of the tick, pose + 1 at its end
    float poseMix; // how far from the first pose to the second
};

Instance fetchInstance(int k) {
    int b = 6 * int(texelFetch(uDrawList, k).r);
    uvec4 t0 = texelFetch(uInstances, b);
    uvec4 t1 = texelFetch(uInstances, b + 1);
    uvec4 t2 = texelFetch(uInstances, b + 2);
    uvec4 t3 = texelFetch(uInstances, b + 3);
    uvec4 t4 = texelFetch(uInstances, b + 4);
    uvec4 t5 = texelFetch(uInstances, b + 5);
    vec3 p0 = uintBitsToFloat(t0.xyz);
    vec4 q0 = uintBitsToFloat(uvec4(t0.w, t1.xyz));
    vec3 s0 = uintBitsToFloat(uvec3(t1.w, t2.xy));
    vec3 p1 = uintBitsToFloat(uvec3(t2.zw, t3.x));
    vec4 q1 = uintBitsToFloat(uvec4(t3.yzw, t4.x));
    vec3 s1 = uintBitsToFloat(t4.yzw);
    Instance o;
    o.color = unpackUnorm4x8(t5.x);
    o.emissive = unpackUnorm4x8(t5.z).rgb;
    o.pose = int(t5.w & 0xffffu);
    float t = uAlpha;
    if ((t5.y >> 16 & 2u) != 0u || t >= 1.0) {
        o.pos = p1;
        o.rot = q1;
        o.scale = s1;
        o.poseMix = 1.0;
        return o;
    }
    if (t <= 0.0) {
        o.pos = p0;
        o.rot = q0;
        o.scale = s0;
        o.poseMix = 0.0;
        return o;
    }
    o.poseMix = t;
    float s = 1.0 - t;
    o.pos = s * p0 + t * p1;
    o.scale = s * s0 + t * s1;
    float d = dot(q0, q1);
    if (d < 0.0) {
        q1 = -q1;
        d = -d;
    }
    float w0 = s, w1 = t;
    if (d < 0.9995) {
        float theta = acos(d);
        float sinT = sin(theta);
        w0 = sin(s * theta) / sinT;
        w1 = sin(t * theta) / sinT;
    }
    o.rot = normalize(w0 * q0 + w1 * q1);
    return o;
}
