#version 410 core

// gfx.Lines: line segments in world space, one colour, transformed by the
// camera's view-projection matrix.

layout(location = 0) in vec3 aPos;

uniform mat4 uViewProj;

void main() {
    gl_Position = uViewProj * vec4(aPos, 1.0);
}
