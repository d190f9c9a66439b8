// The directional light's shadow map, included by every lit fragment
// shader (gfx.NewProgram expands the #include). gfx.Renderer draws the
// opaque instances' depth seen from the light into uShadowMap, an
// orthographic view fitted to the camera's view (Renderer.SetShadows),
// and sets the matrix that takes a world point to the map's texture
// coordinates and depth.

uniform sampler2DShadow uShadowMap; // depth from the light, compared (GL_COMPARE_REF_TO_TEXTURE)
uniform mat4 uShadowMatrix;         // world -> [0, 1]^3: the map's s, t and depth
uniform vec4 uShadowParams;         // x: 1 when shadows are on, y: a texel in s and t, z: the normal offset (m), w: the depth bias

// shadowAt returns how lit by the directional light a surface at p facing
// n is, 0 (in shadow) to 1: the 3x3 texels around p's place in the map,
// compared and filtered. Outside the map, and with shadows off, it is 1.
float shadowAt(vec3 p, vec3 n) {
    if (uShadowParams.x < 0.5) {
        return 1.0;
    }
    vec4 s = uShadowMatrix * vec4(p + n * uShadowParams.z, 1.0);
    vec3 q = s.xyz / s.w;
    if (q.x <= 0.0 || q.x >= 1.0 || q.y <= 0.0 || q.y >= 1.0 || q.z >= 1.0) {
        return 1.0;
    }
    // Four taps half a texel around p's place, each filtered over 2x2
    // texels by the hardware's comparison: a 3x3-texel footprint.
    float h = 0.5 * uShadowParams.y;
    float z = q.z - uShadowParams.w;
    return 0.25 * (texture(uShadowMap, vec3(q.x - h, q.y - h, z)) + texture(uShadowMap, vec3(q.x + h, q.y - h, z)) +
                   texture(uShadowMap, vec3(q.x - h, q.y + h, z)) + texture(uShadowMap, vec3(q.x + h, q.y + h, z)));
}
