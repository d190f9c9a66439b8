package gfx

import (
	"cmp"
	"fmt"
	"slices"
	"unsafe"

	"github.com/go-gl/gl/v4.1-core/gl"

	"github.com/nebulaengine/nebula/engine/render"
	"github.com/nebulaengine/nebula/shaders"
)

// The GPU path's layout: these lines stop compiling if render.TickInstance
// changes size (96 bytes, six texels) or if its fields move.
var (
	_ = [1]struct{}{}[unsafe.Sizeof(render.TickInstance{})-96]
	_ = [1]struct{}{}[unsafe.Offsetof(render.TickInstance{}.Pos)-40]
	_ = [1]struct{}{}[unsafe.Offsetof(render.TickInstance{}.Color)-80]
	_ = [1]struct{}{}[unsafe.Offsetof(render.TickInstance{}.Flags)-86]
	_ = [1]struct{}{}[unsafe.Offsetof(render.TickInstance{}.Emissive)-88]
)

// tickSize is the size of a render.TickInstance in the GPU path's slot
// buffer.
const tickSize = int(unsafe.Sizeof(render.TickInstance{}))

// drawListTextureUnit is the texture unit of the GPU path's draw list
// (instance_gpu.glsl's uDrawList).
const drawListTextureUnit = 7

// tickState is the GPU path's upload: the slots of the last tick and the
// draw list, on the GPU, and how they are sorted.
type tickState struct {
	valid    bool   // an upload was made
	epoch    uint64 // DrawTicks' epoch it holds
	slotsLen int    // the number of slots it holds

	slotBuf, slotTex uint32 // every slot's render.TickInstance, RGBA32UI texels
	listBuf, listTex uint32 // the draw list, R32UI: the slots to draw, sorted
	slotCap, listCap int    // their capacities in bytes

	// The draw list on the CPU, and the runs it is sorted into: per mesh
	// slot the opaque count and start, the count of both kinds; the
	// transparent runs after the opaque ones, farthest first.
	list                 []uint32
	counts, starts, used []int32
	runs                 []meshRun
	back                 []depthRef
	n, opaque            int
	unknown              int
}

// DrawTicks draws one frame as Draw does, but on the GPU path: the
// entities are placed between the last two ticks by the vertex shaders
// (shaders/instance_gpu.glsl), from every slot's render.TickInstance
// (engine.World.TickInstances) and the frame's alpha, so that a frame
// costs the CPU nothing per entity. slots is uploaded, and sorted into a
// draw list by mesh (the opaque ones; the transparent ones after them,
// farthest from the camera first), only when epoch differs from the last
// DrawTicks' (or the slot count does): call it every frame with
// engine.RenderBuffer.Ticks and TicksEpoch, which changes whenever Ticks
// is made again.
//
// What it draws is Draw's for the same world (TestGPUPathMatchesCPUPath),
// but for three things done once a tick instead of once a frame: the
// transparent instances are sorted by the camera of the frame that
// uploaded them; nothing is culled (Stats.Culled is 0); and models are
// drawn at rest (poses are not interpolated on the GPU yet). The first
// DrawTicks builds the GPU path's programs; it panics if they do not
// build (the engine's own shaders: a bug), or if alpha is outside [0, 1].
func (r *Renderer) DrawTicks(width, height int, clear [4]float32, cam Camera, epoch uint64, slots []render.TickInstance, alpha float32) {
	if !(alpha >= 0 && alpha <= 1) {
		panic(fmt.Sprintf("gfx: Renderer.DrawTicks: alpha must be in [0, 1], got %v", alpha))
	}
	if !r.begin("DrawTicks", width, height, clear, cam) {
		return
	}
	if r.gpu == nil {
		p := new(programs)
		if err := r.buildPrograms(gpuFS{shaders.FS}, p); err != nil {
			p.delete()
			panic(fmt.Sprintf("gfx: Renderer.DrawTicks: the GPU path's programs: %v", err))
		}
		p.setLight(r.light.Dir, r.light)
		if !r.shadow.cfg.On {
			p.shadowsOff()
		}
		r.gpu = p
	}
	tk := &r.tk
	if !tk.valid || epoch != tk.epoch || tk.slotsLen != len(slots) || len(tk.counts) != len(r.meshes) {
		r.uploadTicks(cam, slots)
		tk.valid, tk.epoch, tk.slotsLen = true, epoch, len(slots)
	}
	planes, _ := r.frustum()
	lights, lightsLeft := r.uploadLights(&planes, cam.Eye)
	r.tickFrame()

	// Draw with the GPU path's programs, through the same fields.
	r.programs, *r.gpu = *r.gpu, r.programs
	defer func() { r.programs, *r.gpu = *r.gpu, r.programs }()
	c := &r.gl
	for i, prog := range r.all() {
		if loc := r.alphaLocs[i]; loc >= 0 {
			c.useProgram(prog)
			c.uniform1f(loc, alpha)
		}
	}
	c.activeTexture(gl.TEXTURE0 + drawListTextureUnit)
	c.bindTexture(gl.TEXTURE_BUFFER, tk.listTex)
	draws, triangles, meshes, _ := r.drawFrame(cam, width, height, tk.slotTex, tk.n, tk.opaque, nil)
	r.end(tk.n, draws)
	r.stats.Triangles = triangles
	r.stats.Unknown = tk.unknown
	r.stats.Transparent = tk.n - tk.opaque
	r.stats.Lights, r.stats.LightsLeftOut = lights, lightsLeft
	r.stats.Meshes = meshes
	checkFrame("Renderer.DrawTicks")
}

// tickFrame is the CPU work of a GPU path frame: the tick's runs, set for
// the drawing code. It costs nothing per entity.
func (r *Renderer) tickFrame() {
	tk := &r.tk
	copy(r.counts, tk.counts)
	copy(r.starts, tk.starts)
	copy(r.used, tk.used)
	r.runs = append(r.runs[:0], tk.runs...)
}

// uploadTicks sorts the drawn slots (sortTicks) and uploads the slots and
// the draw list, each into a buffer orphaned first and grown by doubling.
func (r *Renderer) uploadTicks(cam Camera, slots []render.TickInstance) {
	r.sortTicks(cam, slots)
	r.uploadTickBuffers(slots)
}

// sortTicks sorts the drawn slots into the draw list: opaque by mesh, then
// transparent farthest first from cam.
func (r *Renderer) sortTicks(cam Camera, slots []render.TickInstance) {
	tk := &r.tk
	ns := len(r.meshes)
	tk.counts = resize(tk.counts, ns)
	tk.starts = resize(tk.starts, ns)
	tk.used = resize(tk.used, ns)
	back := tk.back[:0]
	tk.unknown = 0
	// Count the opaque slots of each mesh; gather the transparent ones.
	for i := range slots {
		t := &slots[i]
		if t.Flags&render.TickDrawn == 0 || t.Color[3] == 0 {
			continue
		}
		s := r.slotOf(t.Mesh)
		if s < 0 || !r.meshes[s].live() {
			tk.unknown++
			continue
		}
		tk.used[s]++
		if t.Color[3] < 255 {
			back = append(back, depthRef{depth: r.depth(t.Pos), i: int32(i)})
			continue
		}
		tk.counts[s]++
	}
	n := int32(0)
	for s := range ns {
		tk.starts[s] = n
		n += tk.counts[s]
	}
	total := int(n) + len(back)
	tk.list = resize(tk.list, total)
	next := resize(r.next, ns)
	copy(next, tk.starts)
	for i := range slots {
		t := &slots[i]
		if t.Flags&render.TickDrawn == 0 || t.Color[3] != 255 {
			continue
		}
		if s := r.slotOf(t.Mesh); s >= 0 && r.meshes[s].live() {
			tk.list[next[s]] = uint32(i)
			next[s]++
		}
	}
	r.next = next
	slices.SortStableFunc(back, func(a, b depthRef) int { return cmp.Compare(b.depth, a.depth) })
	tk.runs = tk.runs[:0]
	for k, b := range back {
		tk.list[int(n)+k] = uint32(b.i)
		mesh := slots[b.i].Mesh
		if k > 0 && slots[back[k-1].i].Mesh == mesh {
			tk.runs[len(tk.runs)-1].count++
			continue
		}
		tk.runs = append(tk.runs, meshRun{slot: r.slotOf(mesh), first: n + int32(k), count: 1})
	}
	tk.back = back
	tk.n, tk.opaque = total, int(n)
}

// uploadTickBuffers uploads the slots and the draw list sortTicks made.
func (r *Renderer) uploadTickBuffers(slots []render.TickInstance) {
	tk := &r.tk
	total := tk.n
	c := &r.gl
	if tk.slotBuf == 0 {
		tk.slotCap, tk.listCap = minInstanceCapacity*tickSize, minInstanceCapacity*4
		tk.slotBuf, tk.slotTex = newStreamTexture(gl.RGBA32UI, tk.slotCap)
		tk.listBuf, tk.listTex = newStreamTexture(gl.R32UI, tk.listCap)
		r.mem.add(tk.slotCap + tk.listCap)
	}
	for tk.slotCap < len(slots)*tickSize {
		r.mem.add(tk.slotCap)
		tk.slotCap *= 2
	}
	for tk.listCap < total*4 {
		r.mem.add(tk.listCap)
		tk.listCap *= 2
	}
	c.bindBuffer(gl.TEXTURE_BUFFER, tk.slotBuf)
	c.orphan(gl.TEXTURE_BUFFER, tk.slotCap, gl.STREAM_DRAW)
	c.bufferSubData(gl.TEXTURE_BUFFER, 0, len(slots)*tickSize, unsafe.Pointer(unsafe.SliceData(slots)))
	c.bindBuffer(gl.TEXTURE_BUFFER, tk.listBuf)
	c.orphan(gl.TEXTURE_BUFFER, tk.listCap, gl.STREAM_DRAW)
	c.bufferSubData(gl.TEXTURE_BUFFER, 0, total*4, unsafe.Pointer(unsafe.SliceData(tk.list)))
	c.bindBuffer(gl.TEXTURE_BUFFER, 0)
}

// resize returns s with length n, its contents zero, reusing its memory.
func resize[T any](s []T, n int) []T {
	s = slices.Grow(s[:0], n)[:n]
	clear(s)
	return s
}

// deleteTickBuffers frees the GPU path's buffers.
func (r *Renderer) deleteTickBuffers() {
	tk := &r.tk
	if tk.slotBuf != 0 {
		r.mem.add(-tk.slotCap - tk.listCap)
	}
	deleteTexture(&tk.slotTex)
	deleteBuffer(&tk.slotBuf)
	deleteTexture(&tk.listTex)
	deleteBuffer(&tk.listBuf)
	*tk = tickState{}
}
