package gfx

import "github.com/nebulaengine/nebula/engine/render"

// PerInstance is the naive per-cube drawing the instanced path is measured
// and checked against (see perInstance), for the package's external tests.
type PerInstance = perInstance

// NewPerInstance builds the per-cube baseline beside r.
func NewPerInstance(r *Renderer) (*PerInstance, error) { return newPerInstance(r) }

// UploadPoses streams p into the pose buffer as Draw does when a model is
// in use, and returns the number of poses uploaded.
func (r *Renderer) UploadPoses(p *render.Poses) int { return r.beginModels(p, true) }

// SortInstances sorts instances by mesh as Draw does, into the renderer's
// staging buffer, and returns how many it kept.
func (r *Renderer) SortInstances(instances []render.Instance) int {
	planes, cull := r.frustum()
	sorted, _, _, _ := r.sort(instances, &planes, cull)
	return len(sorted)
}

// UploadTicks is DrawTicks' work at a new tick without the drawing: the
// changed slots into the next slot buffer, the draw list sorted (or kept)
// and uploaded. It returns the slots uploaded and whether the list was
// kept. Call it on the main thread.
func (r *Renderer) UploadTicks(cam Camera, ticks render.Ticks) (uploaded int, kept bool) {
	r.stats = Stats{}
	r.uploadTicks(cam, ticks)
	return r.stats.SlotsUploaded, r.stats.ListKept
}

// UploadInstances is Draw's work on the instances without the drawing:
// sorted (and culled) by mesh, then streamed into the instance buffer.
// Call it on the main thread.
func (r *Renderer) UploadInstances(instances []render.Instance) {
	planes, cull := r.frustum()
	sorted, _, _, _ := r.sort(instances, &planes, cull)
	r.stream(sorted)
}

// TickFrameWork is the CPU work of a GPU path frame between ticks, without
// its GL calls.
func (r *Renderer) TickFrameWork() { r.tickFrame() }
