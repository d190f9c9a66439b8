package engine

import (
	"github.com/nebulaengine/nebula/engine/geom"

	"github.com/nebulaengine/nebula/engine/render"

	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

// An entity is a cube until SetMesh; the mesh is kept by snapshots and
// SaveState, copied into the frame's instances, and a stale entity never
// changes the mesh of the entity that reused its slot.
func TestSetMeshIsWorldState(t *testing.T) {
	e, err := New(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	w := e.World
	a := w.Spawn(geom.NewTransform(mgl32.Vec3{}), Interpolate)
	b := w.Spawn(geom.NewTransform(mgl32.Vec3{1, 0, 0}), Interpolate)
	if got := w.Mesh(a); got != render.MeshCube {
		t.Fatalf("a new entity's mesh is %d, want render.MeshCube", got)
	}
	w.SetMesh(b, render.MeshSphere)
	snap := e.Snapshot()
	var st State
	e.SaveState(&st)

	w.SetMesh(b, render.MeshPlane)
	w.Despawn(a)
	w.SetMesh(a, render.MeshPlane) // stale: no effect
	c := w.Spawn(geom.NewTransform(mgl32.Vec3{}), Interpolate)
	if w.Mesh(c) != render.MeshCube || w.Mesh(a) != render.MeshCube {
		t.Errorf("the entity in a's old slot has mesh %d, the stale a %d; want render.MeshCube for both", w.Mesh(c), w.Mesh(a))
	}

	e.LoadState(&st)
	if w.Mesh(b) != render.MeshSphere {
		t.Errorf("after LoadState b's mesh is %d, want render.MeshSphere", w.Mesh(b))
	}
	w.SetMesh(b, render.MeshPlane)
	if err := e.Restore(snap); err != nil {
		t.Fatal(err)
	}
	if w.Mesh(b) != render.MeshSphere || w.Mesh(a) != render.MeshCube {
		t.Errorf("after Restore a's mesh is %d and b's %d, want render.MeshCube and render.MeshSphere", w.Mesh(a), w.Mesh(b))
	}

	var rb RenderBuffer
	w.Interpolate(0.5, testTickDT, DefaultInterpolationConfig(), &rb)
	if len(rb.Instances) != 2 || rb.Instances[0].Mesh != render.MeshCube || rb.Instances[1].Mesh != render.MeshSphere {
		t.Errorf("instances %+v, want a cube then a sphere", rb.Instances)
	}
}

// Find locates an entity's instance by binary search over the slot-ordered
// entities, and refuses a stale entity or one not drawn.
func TestRenderBufferFind(t *testing.T) {
	w := NewWorld(1)
	var es []Entity
	for i := range 7 {
		es = append(es, w.Spawn(geom.NewTransform(mgl32.Vec3{float32(i), 0, 0}), Interpolate))
	}
	w.Despawn(es[2])
	w.Despawn(es[5])
	reborn := w.Spawn(geom.NewTransform(mgl32.Vec3{}), Interpolate) // slot 5, a new generation
	var rb RenderBuffer
	w.Interpolate(0, testTickDT, DefaultInterpolationConfig(), &rb)
	for _, e := range append(es, reborn) {
		k, ok := rb.Find(e)
		want := w.Alive(e)
		if ok != want {
			t.Errorf("Find(%v) found %v, want %v", e, ok, want)
			continue
		}
		if ok && rb.Entities[k] != e {
			t.Errorf("Find(%v) = %d, which draws %v", e, k, rb.Entities[k])
		}
	}
	if _, ok := rb.Find(Entity{}); ok {
		t.Error("Find found the zero Entity")
	}
}

// AtCurrent is true exactly for the instances drawn at their current
// state while interpolation is on (snaps and NoInterpolation), and for all
// when interpolation is off.
func TestRenderBufferAtCurrent(t *testing.T) {
	w := NewWorld(1)
	moving := w.Spawn(geom.NewTransform(mgl32.Vec3{}), Interpolate)
	jumper := w.Spawn(geom.NewTransform(mgl32.Vec3{}), Interpolate)
	far := w.Spawn(geom.NewTransform(mgl32.Vec3{}), Hermite)
	still := w.Spawn(geom.NewTransform(mgl32.Vec3{}), NoInterpolation)
	w.BeginTick(1)
	w.SetTransform(moving, geom.NewTransform(mgl32.Vec3{1, 0, 0}))
	w.Teleport(jumper, geom.NewTransform(mgl32.Vec3{0.5, 0, 0}))
	w.SetTransform(far, geom.NewTransform(mgl32.Vec3{50, 0, 0})) // beyond SnapDistance
	w.SetTransform(still, geom.NewTransform(mgl32.Vec3{1, 0, 0}))

	var rb RenderBuffer
	w.Interpolate(0.25, testTickDT, DefaultInterpolationConfig(), &rb)
	if rb.Alpha != 0.25 {
		t.Errorf("Alpha %v, want 0.25", rb.Alpha)
	}
	for e, want := range map[Entity]bool{moving: false, jumper: true, far: true, still: true} {
		k, _ := rb.Find(e)
		if got := rb.AtCurrent(k); got != want {
			t.Errorf("AtCurrent for %v = %v, want %v", e, got, want)
		}
	}
	off := DefaultInterpolationConfig()
	off.Enabled = false
	w.Interpolate(0.25, testTickDT, off, &rb)
	k, _ := rb.Find(moving)
	if rb.Alpha != 1 || !rb.AtCurrent(k) {
		t.Errorf("interpolation off: Alpha %v, AtCurrent %v; want 1 and true", rb.Alpha, rb.AtCurrent(k))
	}
}

// render.Poses.Add hands out numbered poses with their own stretch of bones and
// weights; Interpolate empties the poses and clears every instance's Pose.
func TestPosesAdd(t *testing.T) {
	var p render.Poses
	n1, b1, w1 := p.Add(3, 2)
	n2, b2, w2 := p.Add(0, 4)
	n3, b3, w3 := p.Add(5, 0)
	if n1 != 1 || n2 != 2 || n3 != 3 || p.Len() != 3 {
		t.Fatalf("pose numbers %d %d %d, Len %d; want 1 2 3 and 3", n1, n2, n3, p.Len())
	}
	if len(b1) != 3 || len(w1) != 2 || len(b2) != 0 || len(w2) != 4 || len(b3) != 5 || len(w3) != 0 {
		t.Fatalf("lengths %d/%d %d/%d %d/%d", len(b1), len(w1), len(b2), len(w2), len(b3), len(w3))
	}
	b3[4][0] = 7
	if p.Bones[7][0] != 7 {
		t.Error("the slices Add returns are not the poses' storage")
	}
	want := []render.PoseRef{{FirstBone: 0, FirstWeight: 0}, {FirstBone: 3, FirstWeight: 2}, {FirstBone: 3, FirstWeight: 6}}
	for i, r := range p.Refs {
		if r != want[i] {
			t.Errorf("Refs[%d] = %+v, want %+v", i, r, want[i])
		}
	}

	w := NewWorld(1)
	w.Spawn(geom.NewTransform(mgl32.Vec3{}), Interpolate)
	rb := RenderBuffer{Frame: render.Frame{Poses: p}}
	w.Interpolate(0, testTickDT, DefaultInterpolationConfig(), &rb)
	rb.Instances[0].Pose = 1
	w.Interpolate(0, testTickDT, DefaultInterpolationConfig(), &rb)
	if rb.Poses.Len() != 0 || len(rb.Poses.Bones) != 0 || rb.Instances[0].Pose != 0 {
		t.Errorf("after Interpolate: %d poses, %d bones, instance pose %d; want none", rb.Poses.Len(), len(rb.Poses.Bones), rb.Instances[0].Pose)
	}

	allocs := testing.AllocsPerRun(10, func() {
		rb.Poses.Reset()
		for range 4 {
			rb.Poses.Add(64, 8)
		}
	})
	if allocs != 0 {
		t.Errorf("a steady frame of poses allocates %v times, want 0", allocs)
	}

	defer func() {
		if r := recover(); r == nil || !strings.HasPrefix(r.(string), "render: ") {
			t.Errorf("Add(-1, 0) panicked with %v, want a render: message", r)
		}
	}()
	p.Add(-1, 0)
}
