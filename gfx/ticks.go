package gfx

import (
	"cmp"
	"fmt"
	"math/bits"
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
	_ = [1]struct{}{}[unsafe.Offsetof(render.TickInstance{}.Pose)-92]
)

// tickSize is the size of a render.TickInstance in the GPU path's slot
// buffers.
const tickSize = int(unsafe.Sizeof(render.TickInstance{}))

// drawListTextureUnit is the texture unit of the GPU path's draw list
// (instance_gpu.glsl's uDrawList).
const drawListTextureUnit = 7

// tickRing is the number of slot buffers the GPU path writes in turn: a
// tick writes the buffer the GPU stopped reading two ticks before, so
// the fence it waits for has long passed.
const tickRing = 3

// tickMergeGap is the most unchanged slots between two runs of changed
// ones that an upload writes rather than split the run: fewer, larger
// copies and flushes.
const tickMergeGap = 16

// tickBuffer is one of the GPU path's slot buffers.
type tickBuffer struct {
	buf, tex uint32  // every slot's render.TickInstance, RGBA32UI texels
	epoch    uint64  // the render.Ticks.Epoch whose slots it holds
	filled   bool    // it holds epoch's slots
	fence    uintptr // signalled when the GPU is done with it; 0: none
}

// tickChanges is the render.Ticks.Changed of one epoch.
type tickChanges struct {
	epoch uint64
	ok    bool
	bits  []uint64
}

// tickState is the GPU path's upload: the slots of the last ticks and the
// draw list, on the GPU, and how they are sorted.
type tickState struct {
	valid      bool   // an upload was made
	epoch      uint64 // the render.Ticks.Epoch drawn
	slotsLen   int    // the number of slots drawn
	registered uint64 // Renderer.registered when the draw list was sorted
	posesOK    bool   // the pose buffer holds the poses of the tick drawn

	ring    [tickRing]tickBuffer // the slot buffers, written in turn
	cur     int                  // the one drawn from
	slotCap int                  // each one's capacity in bytes
	hist    [tickRing]tickChanges
	dirty   []uint64 // scratch: the slots to write into a slot buffer
	class   []uint32 // per slot, what its place in the draw list depends on (classOf)

	listBuf, listTex uint32 // the draw list, R32UI: the slots to draw, sorted
	listCap          int    // its capacity in bytes

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
// (engine.World.InterpolateOnGPU makes ticks) and the frame's alpha, so
// that a frame costs the CPU nothing per entity. Models are posed
// likewise: a slot's Pose names its pose at the start of the tick in
// poses, the next one its pose at the end, and mesh.vert blends the two
// skinning palettes and weights at alpha.
//
// ticks is uploaded only when its Epoch differs from the last DrawTicks'
// (or its slot count does, or a mesh was registered): into the next of
// three slot buffers, written unsynchronised once the fence of the frames
// that last read it has passed, and only the slots that changed since it
// was written (ticks.Changed, kept for the last ticks), or every slot
// when that is not known. The draw list (sorted by mesh; the transparent
// instances after the opaque ones, farthest first) is kept when no slot
// changed its mesh, visibility or transparency and none is transparent,
// and sorted again otherwise. poses is uploaded with the tick. Call it
// every frame with engine.RenderBuffer's Ticks, Poses and Alpha.
//
// What it draws is Draw's for the same world (TestGPUPathMatchesCPUPath),
// but for three things done once a tick instead of once a frame: the
// transparent instances are sorted by the camera of the frame that
// uploaded them; nothing is culled (Stats.Culled is 0); and a model's
// skinning matrices are blended linearly (Draw's poses are blended by
// the Render systems, bone by bone). The first DrawTicks builds the GPU
// path's programs; it panics if they do not build (the engine's own
// shaders: a bug), or if alpha is outside [0, 1].
func (r *Renderer) DrawTicks(width, height int, clear [4]float32, cam Camera, ticks render.Ticks, poses *render.Poses, alpha float32) {
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
	newTick := !tk.valid || ticks.Epoch != tk.epoch || tk.slotsLen != len(ticks.Slots) ||
		len(tk.counts) != len(r.meshes) || tk.registered != r.registered
	if newTick {
		r.uploadTicks(cam, ticks)
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
	draws, triangles, meshes, posed := r.drawFrame(cam, width, height, tk.ring[tk.cur].tex, tk.n, tk.opaque, poses, newTick || !tk.posesOK)
	tk.posesOK = true
	r.end(tk.n, draws)
	r.stats.Triangles = triangles
	r.stats.Unknown = tk.unknown
	r.stats.Transparent = tk.n - tk.opaque
	r.stats.Lights, r.stats.LightsLeftOut = lights, lightsLeft
	r.stats.Meshes = meshes
	r.stats.Poses = posed
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

// uploadTicks uploads a new tick: its changed slots into the next slot
// buffer, and its draw list, sorted again unless it can be kept.
func (r *Renderer) uploadTicks(cam Camera, ticks render.Ticks) {
	tk := &r.tk
	slots := ticks.Slots
	// Changes since the slots drawn, when known.
	follows := tk.valid && ticks.Changed != nil && ticks.Epoch == tk.epoch+1 && len(slots) == tk.slotsLen
	tk.remember(ticks, follows)
	keep := follows && tk.registered == r.registered && len(tk.counts) == len(r.meshes) &&
		tk.n == tk.opaque && r.sameClasses(slots, ticks.Changed)
	if !keep {
		r.sortTicks(cam, slots)
	}
	r.uploadSlots(ticks)
	if !keep {
		r.uploadList()
	}
	r.stats.ListKept = keep
	tk.valid, tk.epoch, tk.slotsLen, tk.registered = true, ticks.Epoch, len(slots), r.registered
}

// remember keeps ticks.Changed for the slot buffers written before it;
// when ticks does not follow the tick drawn, what was kept is forgotten.
func (tk *tickState) remember(ticks render.Ticks, follows bool) {
	if !follows {
		for i := range tk.hist {
			tk.hist[i].ok = false
		}
		return
	}
	h := &tk.hist[ticks.Epoch%tickRing]
	h.bits = append(h.bits[:0], ticks.Changed...)
	h.epoch, h.ok = ticks.Epoch, true
}

// changesSince puts into tk.dirty the slots that changed from the tick b
// holds to epoch, and reports whether it knows them.
func (tk *tickState) changesSince(b *tickBuffer, epoch uint64, words int) bool {
	if !b.filled || b.epoch > epoch || epoch-b.epoch > tickRing {
		return false
	}
	tk.dirty = resize(tk.dirty, words)
	for e := b.epoch + 1; e <= epoch; e++ {
		h := &tk.hist[e%tickRing]
		if !h.ok || h.epoch != e || len(h.bits) != words {
			return false
		}
		for i, w := range h.bits {
			tk.dirty[i] |= w
		}
	}
	return true
}

// classOf is what a slot's place in the draw list depends on: whether it
// is drawn, its mesh, and whether it is transparent.
func classOf(t *render.TickInstance) uint32 {
	if t.Flags&render.TickDrawn == 0 || t.Color[3] == 0 {
		return 0
	}
	c := uint32(t.Mesh)<<16 | 1
	if t.Color[3] < 255 {
		c |= 2
	}
	return c
}

// sameClasses reports whether every changed slot keeps its class, and
// every mesh drawn is still live: the draw list then stands.
func (r *Renderer) sameClasses(slots []render.TickInstance, changed []uint64) bool {
	tk := &r.tk
	for s, n := range tk.used {
		if n > 0 && !r.meshes[s].live() {
			return false
		}
	}
	for k, w := range changed {
		for w != 0 {
			i := k*64 + bits.TrailingZeros64(w)
			w &= w - 1
			if classOf(&slots[i]) != tk.class[i] {
				return false
			}
		}
	}
	return true
}

// sortTicks sorts the drawn slots into the draw list: opaque by mesh, then
// transparent farthest first from cam. It records every slot's class.
func (r *Renderer) sortTicks(cam Camera, slots []render.TickInstance) {
	tk := &r.tk
	ns := len(r.meshes)
	tk.counts = resize(tk.counts, ns)
	tk.starts = resize(tk.starts, ns)
	tk.used = resize(tk.used, ns)
	tk.class = resize(tk.class, len(slots))
	back := tk.back[:0]
	tk.unknown = 0
	// Count the opaque slots of each mesh; gather the transparent ones.
	for i := range slots {
		t := &slots[i]
		cl := classOf(t)
		tk.class[i] = cl
		if cl == 0 {
			continue
		}
		s := r.slotOf(t.Mesh)
		if s < 0 || !r.meshes[s].live() {
			tk.unknown++
			continue
		}
		tk.used[s]++
		if cl&2 != 0 {
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
		if tk.class[i]&3 != 1 {
			continue
		}
		if s := r.slotOf(slots[i].Mesh); s >= 0 && r.meshes[s].live() {
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

// uploadSlots writes ticks into the next slot buffer, which the GPU stops
// reading from two ticks before: after the fence of the frames that read
// it, mapped unsynchronised, only the slots that changed since it was
// written; or, when those are not known, every slot into storage
// orphaned first. The buffer it was drawing from gets a fence. Every slot
// buffer grows by doubling, together.
func (r *Renderer) uploadSlots(ticks render.Ticks) {
	tk := &r.tk
	c := &r.gl
	slots := ticks.Slots
	size := len(slots) * tickSize
	if tk.ring[0].buf == 0 || tk.slotCap < size {
		r.growSlotBuffers(size)
	}
	if tk.valid {
		old := &tk.ring[tk.cur]
		c.deleteSync(&old.fence)
		old.fence = c.fenceSync()
	}
	next := (tk.cur + 1) % tickRing
	b := &tk.ring[next]
	c.bindBuffer(gl.TEXTURE_BUFFER, b.buf)
	src := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(slots))), size)
	written := -1
	if tk.changesSince(b, ticks.Epoch, (len(slots)+63)/64) {
		c.waitSync(b.fence)
		written = r.writeChanged(src, tk.dirty)
	}
	if written < 0 {
		c.orphan(gl.TEXTURE_BUFFER, tk.slotCap, gl.STREAM_DRAW)
		c.bufferSubData(gl.TEXTURE_BUFFER, 0, size, unsafe.Pointer(unsafe.SliceData(src)))
		written = len(slots)
	}
	c.deleteSync(&b.fence)
	c.bindBuffer(gl.TEXTURE_BUFFER, 0)
	b.epoch, b.filled = ticks.Epoch, true
	tk.cur = next
	r.stats.SlotsUploaded = written
}

// writeChanged copies the slots dirty marks from src into the bound slot
// buffer, mapped unsynchronised with explicit flushes, in runs merged
// across gaps of up to tickMergeGap slots, and returns the number of
// slots written; -1 when the buffer cannot be mapped.
func (r *Renderer) writeChanged(src []byte, dirty []uint64) int {
	c := &r.gl
	if len(src) == 0 {
		return 0
	}
	p := c.mapBufferRange(gl.TEXTURE_BUFFER, 0, len(src), gl.MAP_WRITE_BIT|gl.MAP_UNSYNCHRONIZED_BIT|gl.MAP_FLUSH_EXPLICIT_BIT)
	if p == nil {
		return -1
	}
	dst := unsafe.Slice((*byte)(p), len(src))
	slotCount := len(src) / tickSize
	written := 0
	first, end := -1, -1 // the run being gathered, slots [first, end)
	flush := func() {
		a, b := first*tickSize, end*tickSize
		copy(dst[a:b], src[a:b])
		c.flushMappedRange(gl.TEXTURE_BUFFER, a, b-a)
		written += end - first
	}
	for k, w := range dirty {
		for w != 0 {
			i := k*64 + bits.TrailingZeros64(w)
			run := bits.TrailingZeros64(^(w >> (i % 64))) // set bits from i on, in this word
			w &^= (1<<run - 1) << (i % 64)
			if run == 64 {
				w = 0
			}
			j := min(i+run, slotCount)
			switch {
			case first < 0:
				first, end = i, j
			case i-end <= tickMergeGap:
				end = j
			default:
				flush()
				first, end = i, j
			}
		}
	}
	if first >= 0 {
		flush()
	}
	if !c.unmap(gl.TEXTURE_BUFFER) {
		return -1 // the storage was lost (a mode change): write it all
	}
	return written
}

// growSlotBuffers makes every slot buffer hold at least size bytes,
// doubling from the last capacity; what they held is gone.
func (r *Renderer) growSlotBuffers(size int) {
	tk := &r.tk
	c := &r.gl
	capacity := max(tk.slotCap, minInstanceCapacity*tickSize)
	for capacity < size {
		capacity *= 2
	}
	r.mem.add(tickRing * (capacity - tk.slotCap))
	tk.slotCap = capacity
	for i := range tk.ring {
		b := &tk.ring[i]
		c.deleteSync(&b.fence)
		b.filled = false
		if b.buf == 0 {
			b.buf, b.tex = newStreamTexture(gl.RGBA32UI, capacity)
			continue
		}
		c.bindBuffer(gl.TEXTURE_BUFFER, b.buf)
		c.orphan(gl.TEXTURE_BUFFER, capacity, gl.STREAM_DRAW)
	}
	c.bindBuffer(gl.TEXTURE_BUFFER, 0)
}

// uploadList uploads the draw list sortTicks made, into a buffer orphaned
// first and grown by doubling.
func (r *Renderer) uploadList() {
	tk := &r.tk
	c := &r.gl
	if tk.listBuf == 0 {
		tk.listCap = minInstanceCapacity * 4
		tk.listBuf, tk.listTex = newStreamTexture(gl.R32UI, tk.listCap)
		r.mem.add(tk.listCap)
	}
	for tk.listCap < tk.n*4 {
		r.mem.add(tk.listCap)
		tk.listCap *= 2
	}
	c.bindBuffer(gl.TEXTURE_BUFFER, tk.listBuf)
	c.orphan(gl.TEXTURE_BUFFER, tk.listCap, gl.STREAM_DRAW)
	c.bufferSubData(gl.TEXTURE_BUFFER, 0, tk.n*4, unsafe.Pointer(unsafe.SliceData(tk.list)))
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
	r.mem.add(-tickRing*tk.slotCap - tk.listCap)
	for i := range tk.ring {
		b := &tk.ring[i]
		r.gl.deleteSync(&b.fence)
		deleteTexture(&b.tex)
		deleteBuffer(&b.buf)
	}
	deleteTexture(&tk.listTex)
	deleteBuffer(&tk.listBuf)
	*tk = tickState{}
}
