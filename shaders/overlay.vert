#version 410 core

// The diagnostics overlay (gfx.Overlay) is one quad: its panel, laid out
// and rasterised on the CPU into a texture the panel's size, copied onto
// the framebuffer texel for pixel. The quad's four corners come from
// gl_VertexID (glDrawArrays(GL_TRIANGLE_STRIP, 0, 4) with no vertex
// attributes).
//
// uRect is the panel in framebuffer pixels with the origin at the top-left
// corner and y growing downward, as the overlay lays itself out: left, top,
// width, height; uViewport is the framebuffer's size in pixels. Every
// corner lies on a whole pixel, so the quad covers whole pixels.

uniform vec2 uViewport; // framebuffer width and height in pixels
uniform vec4 uRect;     // the panel: left, top, width, height in pixels

// vTexel is the panel texel under the fragment: at a pixel centre, the
// texel's integer coordinates plus 0.5.
out vec2 vTexel;

void main() {
    vec2 corner = vec2(gl_VertexID & 1, gl_VertexID >> 1); // (0,0) (1,0) (0,1) (1,1)
    vTexel = corner * uRect.zw;
    vec2 ndc = (uRect.xy + vTexel) / uViewport * 2.0 - 1.0;
    gl_Position = vec4(ndc.x, -ndc.y, 0.0, 1.0);
}
