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
}
