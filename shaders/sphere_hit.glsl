// The sphere impostor's ray hit (see sphere.vert), shared by sphere.frag
// and sphere_depth.frag, which declare its inputs: the ray from the eye
// through the pixel against the instance's ellipsoid, in the ellipsoid's
// scaled frame, where it is |U + t V|^2 = P^2 / 4. A miss, or a hit outside
// the near and far planes (the renderer draws with depth clamping on), is
// discarded; a hit's depth is written, so the impostor meets other
// geometry exactly where the ellipsoid does. It returns the hit's t.
float sphereHit() {
    // t^2 (V.V) + 2t (U.V) + U.U - r^2 = 0; its discriminant over 4 is
    // (U.V)^2 - (V.V)(U.U - r^2) = (V.V) r^2 - |U x V|^2, the second form
    // without the cancellation of two large, nearly equal terms.
    float a = dot(vDir, vDir);
    float b = dot(vEye, vDir);
    vec3 x = cross(vEye, vDir);
    float disc = a * vRadius2 - dot(x, x);
    if (disc < 0.0) {
        discard;
    }
    float t = (-b - sqrt(disc)) / a; // the nearer hit
    float w = vEyeClip.y + t * vDirClip.y;
    float z = (vEyeClip.x + t * vDirClip.x) / w;
    if (t <= 0.0 || abs(z) > 1.0) {
        discard;
    }
    gl_FragDepth = 0.5 * z + 0.5;
    return t;
}
