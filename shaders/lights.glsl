// The frame's point and spot lights (render.Light), included by every lit
// fragment shader (gfx.NewProgram expands the #include). gfx.Renderer
// fills the uniform block from Renderer.SetLights, at most MAX_LIGHTS of
// them, std140: a count, then per light four vec4s.

#define MAX_LIGHTS 64

layout(std140) uniform Lights {
    ivec4 uLightCount;                // x: how many lights follow
    vec4 uLightPosRange[MAX_LIGHTS];  // xyz position, w range (m)
    vec4 uLightColorKind[MAX_LIGHTS]; // rgb colour times intensity, w 1 for a spot light
    vec4 uLightAxisOuter[MAX_LIGHTS]; // xyz the spot's unit axis, w the cosine of its outer half-angle
    vec4 uLightInner[MAX_LIGHTS];     // x the cosine of the spot's inner half-angle
};

// pointLights returns the light the frame's point and spot lights bring
// to a surface at p (world space) facing n (unit): each light's colour
// times the cosine toward it times 1/(1 + d^2), windowed to 0 at its
// range by (1 - (d/range)^4)^2, a spot's also by smoothstep between the
// cosines of its outer and inner half-angles.
vec3 pointLights(vec3 p, vec3 n) {
    vec3 sum = vec3(0.0);
    for (int i = 0; i < uLightCount.x; i++) {
        vec3 d = uLightPosRange[i].xyz - p;
        float dist2 = dot(d, d);
        float r = uLightPosRange[i].w;
        if (dist2 >= r * r) {
            continue;
        }
        vec3 l = d * inversesqrt(max(dist2, 1e-12));
        float ndl = dot(n, l);
        if (ndl <= 0.0) {
            continue;
        }
        float q = dist2 / (r * r);
        float window = clamp(1.0 - q * q, 0.0, 1.0);
        float att = window * window / (1.0 + dist2);
        if (uLightColorKind[i].w > 0.5) {
            att *= smoothstep(uLightAxisOuter[i].w, uLightInner[i].x, dot(-l, uLightAxisOuter[i].xyz));
        }
        sum += uLightColorKind[i].rgb * (ndl * att);
    }
    return sum;
}
