#version 410 core

// gfx.LineBatch: line segments in world space, a colour per vertex,
// transformed by the camera's view-projection matrix.

layout(location = 0) in vec3 aPos;
layout(location = 3) in vec4 aColor;

uniform mat4 uViewProj;

out vec4 vColor;

void main() {
    vColor = aColor;
    gl_Position = uViewProj * vec4(aPos, 1.0);
    // A wireframe lies on the surfaces it outlines: pull it a little
    // towards the camera so that the depth test keeps it over them rather
    // than a pixel here and there (about 1 mm at 3 m from a camera whose
    // near plane is at 0.1 m, 4 cm at 20 m).
    gl_Position.z -= 2.0e-5 * gl_Position.w;
}
