#version 410 core

// gfx.LineBatch: every fragment in its segment's colour.

in vec4 vColor;

out vec4 fragColor;

void main() {
    fragColor = vColor;
}
