#version 410 core

// gfx.Lines: every fragment of the segments in uColor.

uniform vec4 uColor;

out vec4 fragColor;

void main() {
    fragColor = uColor;
}
