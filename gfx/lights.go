package gfx

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"unsafe"

	"github.com/go-gl/gl/v4.1-core/gl"

	"github.com/nebulaengine/nebula/engine/render"
)

// MaxLights is the most point and spot lights one frame is drawn with
// (shaders/lights.glsl's MAX_LIGHTS): forward shading, every lit fragment
// looping over them. A frame given more keeps those nearest the camera
// among the ones whose light reaches into the view.
const MaxLights = 64

// lightBlockSize is the std140 size of lights.glsl's uniform block: a
// count (an ivec4), then four arrays of MaxLights vec4s.
const lightBlockSize = 16 + 4*16*MaxLights

// lightBinding is the uniform buffer binding point of the Lights block in
// every program.
const lightBinding = 0

// newLightBlock makes the lights' uniform buffer, with no light, bound to
// lightBinding (every program's Lights block is pointed at that binding
// when it is built: programs.bindLights).
func (r *Renderer) newLightBlock() {
	gl.GenBuffers(1, &r.lightBuf)
	gl.BindBuffer(gl.UNIFORM_BUFFER, r.lightBuf)
	gl.BufferData(gl.UNIFORM_BUFFER, lightBlockSize, nil, gl.DYNAMIC_DRAW)
	r.lightBytes = make([]byte, lightBlockSize)
	gl.BufferSubData(gl.UNIFORM_BUFFER, 0, lightBlockSize, unsafe.Pointer(&r.lightBytes[0]))
	gl.BindBuffer(gl.UNIFORM_BUFFER, 0)
	gl.BindBufferBase(gl.UNIFORM_BUFFER, lightBinding, r.lightBuf)
	r.mem.add(lightBlockSize)
}

// SetLights sets the point and spot lights of the frames that follow
// (render.Frame.Lights, as package light gathers them), in world space.
// Draw lights with at most MaxLights of them: those whose range reaches
// into the view, the nearest the camera first; Stats.Lights and
// Stats.LightsLeftOut count them. The renderer copies lights: the caller
// may reuse the slice. It panics if a light has a range that is not a
// positive finite number.
func (r *Renderer) SetLights(lights []render.Light) {
	r.mustLive("SetLights")
	for i := range lights {
		if l := lights[i].Range; !(l > 0 && l <= math.MaxFloat32) {
			panic(fmt.Sprintf("gfx: Renderer.SetLights: light %d has range %v, want a positive finite number of metres", i, l))
		}
	}
	r.lights = append(r.lights[:0], lights...)
}

// uploadLights picks the frame's lights (see SetLights), writes them in
// the uniform block's std140 layout and uploads them, and binds the block.
// It returns how many lights it kept and how many it left out.
func (r *Renderer) uploadLights(planes *[6][4]float32, eye [3]float32) (kept, left int) {
	c := &r.gl
	pick := r.pickLights[:0]
	for i := range r.lights {
		l := &r.lights[i]
		if !r.noCulling && outside(planes, l.Pos, l.Range) {
			left++
			continue
		}
		d := [3]float32{l.Pos[0] - eye[0], l.Pos[1] - eye[1], l.Pos[2] - eye[2]}
		pick = append(pick, depthRef{depth: d[0]*d[0] + d[1]*d[1] + d[2]*d[2], i: int32(i)})
	}
	if len(pick) > MaxLights {
		slices.SortStableFunc(pick, func(a, b depthRef) int { return cmp.Compare(a.depth, b.depth) })
		left += len(pick) - MaxLights
		pick = pick[:MaxLights]
	}
	r.pickLights = pick
	b := r.lightBytes
	clear(b[:16])
	binary.LittleEndian.PutUint32(b, uint32(len(pick)))
	put := func(array, k int, v [4]float32) {
		at := 16 + array*16*MaxLights + 16*k
		for j, f := range v {
			binary.LittleEndian.PutUint32(b[at+4*j:], math.Float32bits(f))
		}
	}
	for k, p := range pick {
		l := &r.lights[p.i]
		kind := float32(0)
		if l.Kind == render.SpotLight {
			kind = 1
		}
		put(0, k, [4]float32{l.Pos[0], l.Pos[1], l.Pos[2], l.Range})
		put(1, k, [4]float32{l.Color[0], l.Color[1], l.Color[2], kind})
		put(2, k, [4]float32{l.Dir[0], l.Dir[1], l.Dir[2], l.CosOuter})
		put(3, k, [4]float32{l.CosInner, 0, 0, 0})
	}
	// Only what the shaders read: the count and the lights kept, array by
	// array (each array's first len(pick) entries).
	c.bindBuffer(gl.UNIFORM_BUFFER, r.lightBuf)
	c.bufferSubData(gl.UNIFORM_BUFFER, 0, 16, unsafe.Pointer(&b[0]))
	if n := len(pick); n > 0 {
		for array := range 4 {
			at := 16 + array*16*MaxLights
			c.bufferSubData(gl.UNIFORM_BUFFER, at, 16*n, unsafe.Pointer(&b[at]))
		}
	}
	c.bindBuffer(gl.UNIFORM_BUFFER, 0)
	c.bindBufferBase(gl.UNIFORM_BUFFER, lightBinding, r.lightBuf)
	return len(pick), left
}
