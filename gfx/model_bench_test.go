package gfx_test

import (
	"github.com/nebulaengine/nebula/engine/geom"

	"github.com/nebulaengine/nebula/engine/render"

	"fmt"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine/model"
	"github.com/nebulaengine/nebula/gfx"
)

// benchSize is the side of the benchmarks' window, as BenchmarkRenderer's.
const benchSize = 256

// benchCamera sees the grid of gridInstances whole.
var benchCamera = gfx.Camera{Eye: mgl32.Vec3{0, 0, 25}, Up: mgl32.Vec3{0, 1, 0}, FovY: mgl32.DegToRad(25), Near: 1, Far: 100}

// framePath is one way of drawing a frame, compared with others.
type framePath struct {
	name string
	draw func() // draws one frame (without glFinish)
}

// frameTimes are one path's per-frame measurements, in seconds.
type frameTimes struct {
	draw  []float64 // Draw's wall time: the CPU work of submitting the frame
	frame []float64 // Draw + glFinish wall time: the whole frame (llvmpipe rasterises on the CPU)
	cpu   []float64 // the process's CPU time (user + sys, every thread) over Draw + glFinish
}

func cpuNow() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// interleave draws the paths in turns, frames frames each per round (the
// order alternating from round to round), one round per b.Loop iteration,
// so that every path sees the same machine at the same moments; then it
// reports each path's median times per frame and each path's ratio to the
// first path's. (It does not report allocations: its own bookkeeping
// allocates; TestDrawDoesNotAllocate and TestDrawModelsDoesNotAllocate
// check Draw.)
func interleave(b *testing.B, frames int, paths []framePath) {
	times := make([]frameTimes, len(paths))
	var err error
	onMain(func() {
		for _, p := range paths { // warm up: buffers grown, shaders compiled
			p.draw()
			gl.Finish()
		}
		round := 0
		for b.Loop() {
			for k := range paths {
				i := k
				if round%2 == 1 {
					i = len(paths) - 1 - k
				}
				p, ts := paths[i], &times[i]
				for range frames {
					c0, t0 := cpuNow(), time.Now()
					p.draw()
					t1 := time.Now()
					gl.Finish()
					t2, c1 := time.Now(), cpuNow()
					ts.draw = append(ts.draw, t1.Sub(t0).Seconds())
					ts.frame = append(ts.frame, t2.Sub(t0).Seconds())
					ts.cpu = append(ts.cpu, (c1 - c0).Seconds())
				}
			}
			round++
		}
		err = gfx.CheckError()
	})
	if err != nil {
		b.Fatal(err)
	}
	median := func(v []float64) float64 {
		s := slices.Clone(v)
		slices.Sort(s)
		return s[len(s)/2]
	}
	base := [3]float64{median(times[0].draw), median(times[0].frame), median(times[0].cpu)}
	for i, p := range paths {
		m := [3]float64{median(times[i].draw), median(times[i].frame), median(times[i].cpu)}
		b.ReportMetric(m[0]*1e6, p.name+"-draw-µs")
		b.ReportMetric(m[1]*1e6, p.name+"-frame-µs")
		b.ReportMetric(m[2]*1e6, p.name+"-cpu-µs")
		if i > 0 {
			b.ReportMetric(m[0]/base[0], p.name+"/"+paths[0].name+"-draw")
			b.ReportMetric(m[1]/base[1], p.name+"/"+paths[0].name+"-frame")
		}
		b.Logf("%-14s median of %d frames: Draw %7.1f µs, frame (Draw + glFinish) %8.1f µs, process CPU %8.1f µs",
			p.name, len(times[i].draw), m[0]*1e6, m[1]*1e6, m[2]*1e6)
	}
}

// BenchmarkMixedMeshes compares a frame of 1,000 entities across three
// meshes (cube, sphere, plane: 334, 333, 333) with a frame of 1,000
// cubes, interleaved in one run; and the same three meshes with the
// sphere drawn as a model of 8 segments (48 triangles; the built-in sphere
// is an impostor of 2), to show where a software rasteriser's time goes.
func BenchmarkMixedMeshes(b *testing.B) {
	r, w, h := newRenderer(b, benchSize)
	const coarse = render.MeshFirstGame
	register(r, coarse, newModel(b, model.Sphere(8)))
	cubes := gridInstances(1000, 32)
	mixed := mixedInstances(1000, []render.MeshID{render.MeshCube, render.MeshSphere, render.MeshPlane})
	mixedCoarse := mixedInstances(1000, []render.MeshID{render.MeshCube, coarse, render.MeshPlane})
	interleave(b, 10, []framePath{
		{"cubes", func() { r.Draw(w, h, black, benchCamera, cubes, nil) }},
		{"3-meshes", func() { r.Draw(w, h, black, benchCamera, mixed, nil) }},
		{"3-meshes-s8", func() { r.Draw(w, h, black, benchCamera, mixedCoarse, nil) }},
	})
}

// BenchmarkCubePaths compares the built-in cube's vertex-pulling path with
// the cube drawn as a regular model (model.Cube through mesh.vert, one
// glDrawElementsInstanced), interleaved in one run: the reason the
// built-in cube keeps its own path.
func BenchmarkCubePaths(b *testing.B) {
	for _, n := range []int{1000, 10_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			r, w, h := newRenderer(b, benchSize)
			cube := newModel(b, model.Cube())
			var pulled *gfx.Model
			onMain(func() { pulled = r.Mesh(render.MeshCube) })
			insts := gridInstances(n, 100)
			interleave(b, 10, []framePath{
				{"pulled", func() {
					r.Register(render.MeshCube, pulled)
					r.Draw(w, h, black, benchCamera, insts, nil)
				}},
				{"model", func() {
					r.Register(render.MeshCube, cube)
					r.Draw(w, h, black, benchCamera, insts, nil)
				}},
			})
		})
	}
}

// chain is a model of a bar of bones segments along X, each segment's
// vertices following its own joint: a skeleton of bones joints in a chain.
func chain(bones int) *model.Model {
	m := &model.Model{Name: fmt.Sprintf("chain of %d", bones)}
	var p model.Part
	p.Name = "bar"
	p.Material.BaseColor = [4]float32{1, 1, 1, 1}
	step := float32(1) / float32(bones)
	for j := range bones {
		parent, pos := j-1, mgl32.Vec3{step, 0, 0}
		if j == 0 {
			pos = mgl32.Vec3{-0.5, 0, 0}
		}
		m.Nodes = append(m.Nodes, model.Node{Parent: parent, Rest: geom.NewTransform(pos)})
		x0 := -0.5 + float32(j)*step
		m.Palette = append(m.Palette, model.Joint{Node: j, InverseBind: mgl32.Translate3D(-x0, 0, 0)})
		base := uint32(len(p.Positions))
		for _, c := range [4][2]float32{{x0, -0.05}, {x0 + step, -0.05}, {x0 + step, 0.05}, {x0, 0.05}} {
			p.Positions = append(p.Positions, mgl32.Vec3{c[0], c[1], 0})
			p.Normals = append(p.Normals, mgl32.Vec3{0, 0, 1})
			p.Joints = append(p.Joints, [4]uint16{uint16(j)})
			p.Weights = append(p.Weights, [4]float32{1})
		}
		p.Indices = append(p.Indices, base, base+1, base+2, base, base+2, base+3)
	}
	m.Parts = []model.Part{p}
	return m
}

// BenchmarkPoses measures what 100 animated models of 64 bones cost the
// renderer a frame: uploading their poses alone (the pose buffer orphaned
// and written: 100 × 64 bones, 300 KB), and Draw of the 100 instances
// posed and at rest. The bones are made once; making them each frame is
// package anim's work.
func BenchmarkPoses(b *testing.B) {
	const models, bones = 100, 64
	r, w, h := newRenderer(b, benchSize)
	const id = render.MeshFirstGame
	register(r, id, newModel(b, chain(bones)))
	insts := mixedInstances(models, []render.MeshID{id})
	var poses render.Poses
	for i := range insts {
		p, bs, _ := poses.Add(bones, 0)
		turn := mgl32.HomogRotate3DZ(float32(i) * 0.01)
		for j := range bs {
			bs[j] = bone(turn)
		}
		insts[i].Pose = p
	}
	rest := slices.Clone(insts)
	for i := range rest {
		rest[i].Pose = 0
	}
	b.Run("upload", func(b *testing.B) {
		b.ReportAllocs()
		var err error
		onMain(func() {
			for b.Loop() {
				r.UploadPoses(&poses)
			}
			gl.Finish()
			err = gfx.CheckError()
		})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(poses.Bones)*48+len(poses.Refs)*8)/1024, "KB/op")
	})
	b.Run("draw", func(b *testing.B) {
		interleave(b, 10, []framePath{
			{"rest", func() { r.Draw(w, h, black, benchCamera, rest, &poses) }},
			{"posed", func() { r.Draw(w, h, black, benchCamera, insts, &poses) }},
		})
	})
}

// BenchmarkSort measures Draw's counting sort by mesh alone, the part of
// a mixed frame's CPU time that is Nebula's and not the driver's: 1,000
// and 10,000 instances across three meshes, and all cubes (the fast path:
// counted, not copied).
func BenchmarkSort(b *testing.B) {
	r, _, _ := newRenderer(b, testSize)
	for _, c := range []struct {
		name   string
		meshes []render.MeshID
	}{{"cubes", []render.MeshID{render.MeshCube}}, {"3-meshes", []render.MeshID{render.MeshCube, render.MeshSphere, render.MeshPlane}}} {
		for _, n := range []int{1000, 10_000} {
			insts := mixedInstances(n, c.meshes)
			b.Run(fmt.Sprintf("%s-%d", c.name, n), func(b *testing.B) {
				b.ReportAllocs()
				onMain(func() {
					for b.Loop() {
						if r.SortInstances(insts) != n {
							panic("instances lost")
						}
					}
				})
			})
		}
	}
}
