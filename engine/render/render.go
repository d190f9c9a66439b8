package render

import (
	"fmt"
	"slices"

	"github.com/go-gl/mathgl/mgl32"
)

// MeshID names what the renderer draws for an entity (engine.World.SetMesh): a
// mesh or a model the renderer has registered under that number. The
// world only stores it, so that the choice is simulated state like the
// colour (hashed, snapshotted, replayed, rolled back); what a number
// means is up to the renderer's registry.
type MeshID uint16

// The meshes every renderer registers: an entity is a cube until
// World.SetMesh says otherwise. A game registers its own meshes and models
// under numbers from MeshFirstGame on.
const (
	// MeshCube is the unit cube centred on the origin (corners at ±0.5).
	MeshCube MeshID = 0
	// MeshSphere is the sphere of diameter 1 centred on the origin.
	MeshSphere MeshID = 1
	// MeshPlane is the unit square in the XZ plane centred on the origin,
	// facing +Y.
	MeshPlane MeshID = 2
	// MeshNone is no mesh at all: an entity drawn with it (a pivot that
	// only carries children, a light) is never drawn and costs no draw
	// work.
	MeshNone MeshID = 15
	// MeshFirstGame is the first number left for a game's own meshes and
	// models; the numbers below it are kept for built-in meshes.
	MeshFirstGame MeshID = 16
)

// Bone is one skinning matrix of a pose: the top three rows of an affine
// 4×4 matrix, row by row (m00 m01 m02 m03, m10 ..., m20 ... m23); the
// fourth row is 0 0 0 1. A vertex v skinned by it goes to (row0·v,
// row1·v, row2·v) with v = (x, y, z, 1).
type Bone [12]float32

// PoseRef locates one pose in a frame's Poses.
type PoseRef struct {
	// FirstBone is the index of the pose's first matrix in Poses.Bones.
	FirstBone uint32
	// FirstWeight is the index of the pose's first blend-shape weight in
	// Poses.Weights.
	FirstWeight uint32
}

// MaxPoses is the most poses one frame's Poses holds: Instance.Pose is 16
// bits and 0 means none.
const MaxPoses = 1<<16 - 1

// Poses holds the skinning matrices and blend-shape weights of one frame's
// animated instances. World.Interpolate empties it and sets every
// instance's Pose to 0 (none); Render systems (package anim's, or a game's
// own) add a pose per animated instance and set that instance's Pose to
// the number Add returns. The renderer uploads it as is. Its slices are
// reused from frame to frame, so a steady frame does not allocate.
type Poses struct {
	// Bones holds every pose's matrices, one pose after the other.
	Bones []Bone
	// Weights holds every pose's blend-shape weights, likewise.
	Weights []float32
	// Refs[k-1] locates pose k.
	Refs []PoseRef
}

// Reset empties p, keeping its memory.
func (p *Poses) Reset() {
	p.Bones, p.Weights, p.Refs = p.Bones[:0], p.Weights[:0], p.Refs[:0]
}

// Len returns the number of poses in p.
func (p *Poses) Len() int { return len(p.Refs) }

// Add appends a pose of bones matrices and weights blend-shape weights and
// returns its number, for Instance.Pose, and the slices to fill in (their
// contents are left from earlier frames), valid until the next Add. It
// panics when bones or weights
// is negative, or when p already holds MaxPoses poses.
func (p *Poses) Add(bones, weights int) (pose uint16, b []Bone, w []float32) {
	if bones < 0 || weights < 0 {
		panic(fmt.Sprintf("render: Poses.Add(%d, %d): counts must not be negative", bones, weights))
	}
	if len(p.Refs) >= MaxPoses {
		panic(fmt.Sprintf("render: Poses.Add: a frame holds at most %d poses", MaxPoses))
	}
	nb, nw := len(p.Bones), len(p.Weights)
	p.Refs = append(p.Refs, PoseRef{FirstBone: uint32(nb), FirstWeight: uint32(nw)})
	p.Bones = slices.Grow(p.Bones, bones)[:nb+bones]
	p.Weights = slices.Grow(p.Weights, weights)[:nw+weights]
	return uint16(len(p.Refs)), p.Bones[nb:], p.Weights[nw:]
}

// Instance is what the renderer draws for one entity in one frame: its
// interpolated transform, its colour, its mesh, its pose and the light it
// gives off.
//
// The renderer uploads a []Instance to the GPU as is, so the layout is part
// of the contract: 64 bytes (four texels of 16 bytes), 4-byte aligned, no
// padding, fields in this order:
//
//	offset  0  Pos       3 x float32
//	offset 12  Rot       4 x float32: W first, then X, Y, Z (mgl32.Quat)
//	offset 28  Scale     3 x float32
//	offset 40  Color     4 x uint8, RGBA (a normalised attribute in GL)
//	offset 44  Mesh      uint16
//	offset 46  Pose      uint16
//	offset 48  Emissive  3 x uint8, RGB
//	offset 51  reserved  13 bytes, zero
//
// Note the quaternion order: a shader reading Rot as a vec4 gets the scalar
// part in .x and the vector part in .yzw.
type Instance struct {
	Pos   mgl32.Vec3 // position
	Rot   mgl32.Quat // rotation, a unit quaternion (W first)
	Scale mgl32.Vec3 // scale along each axis
	// Color is the colour, RGBA. An alpha below 255 draws the instance
	// transparent: after the opaque ones, back to front, blended with
	// premultiplied alpha (0: not drawn at all).
	Color [4]uint8
	Mesh  MeshID // what is drawn (engine.World.SetMesh)
	// Pose is the number of the instance's pose in Frame.Poses
	// (from 1), or 0 for none: a model without one is drawn at rest.
	Pose uint16
	// Emissive is the light the surface gives off, RGB: added to the lit
	// colour (engine.World.SetEmissive). Black for none.
	Emissive [3]uint8
	_        [13]byte // reserved: keeps the size a whole number of texels
}

// TickInstance is what a renderer that interpolates on the GPU draws for
// one entity slot over one tick: its world transform at the start of the
// tick and at its end (engine.World.TickInstances), its colour, mesh and
// emission, and flags. The shader places the entity between the two
// states at the frame's alpha; a CPU path's render.Instance is the same
// entity placed on the CPU.
//
// The renderer uploads a []TickInstance to the GPU as is: 96 bytes (six
// texels of 16 bytes), 4-byte aligned, no padding, fields in this order:
//
//	offset  0  PrevPos    3 x float32
//	offset 12  PrevRot    4 x float32, W first
//	offset 28  PrevScale  3 x float32 (the mesh scale included)
//	offset 40  Pos        3 x float32
//	offset 52  Rot        4 x float32, W first
//	offset 68  Scale      3 x float32 (the mesh scale included)
//	offset 80  Color      4 x uint8, RGBA
//	offset 84  Mesh       uint16
//	offset 86  Flags      uint16 (TickDrawn, TickSnap)
//	offset 88  Emissive   3 x uint8, RGB
//	offset 91  reserved   1 byte, zero
//	offset 92  Pose       uint16
//	offset 94  reserved   2 bytes, zero
type TickInstance struct {
	PrevPos   mgl32.Vec3 // the world position at the start of the tick
	PrevRot   mgl32.Quat // the world rotation at the start of the tick, unit
	PrevScale mgl32.Vec3 // the world scale at the start of the tick, times the mesh scale
	Pos       mgl32.Vec3 // the world position at the end of the tick
	Rot       mgl32.Quat // the world rotation at the end of the tick, unit
	Scale     mgl32.Vec3 // the world scale at the end of the tick, times the mesh scale
	Color     [4]uint8   // RGBA, as Instance.Color
	Mesh      MeshID     // what is drawn
	Flags     uint16     // TickDrawn, TickSnap
	Emissive  [3]uint8   // RGB, as Instance.Emissive
	_         byte       // reserved
	// Pose is 0 (drawn at rest) or the number, in the frame's Poses, of
	// the slot's pose at the start of the tick; the pose at its end is
	// the next one, Pose+1, of the same counts. Set it with
	// Ticks.SetPose.
	Pose uint16
	_    [2]byte // reserved: keeps the size a whole number of texels
}

// Ticks is every entity slot's state over the last tick, what a renderer
// that interpolates on the GPU uploads once a tick
// (engine.World.InterpolateOnGPU makes it, gfx.Renderer.DrawTicks draws
// it).
type Ticks struct {
	// Slots holds one TickInstance per entity slot, in slot order.
	Slots []TickInstance
	// Epoch changes whenever Slots is made again: a new tick, or a state
	// restored or loaded. It counts up by one each time.
	Epoch uint64
	// Changed says which slots differ from those of the Ticks made just
	// before, Epoch-1: bit i%64 of Changed[i/64] for slot i. It is nil
	// when that is not known (the first Ticks, a slot count that
	// changed): every slot is then new. A renderer that kept Epoch-1's
	// slots uploads only these.
	Changed []uint64
}

// SetPose sets slot i's Pose (see TickInstance.Pose) and marks the slot
// changed, so that a renderer uploads it. Render systems that pose
// entities on the GPU path call it when Ticks is made again.
func (t *Ticks) SetPose(i int, pose uint16) {
	if t.Slots[i].Pose == pose {
		return
	}
	t.Slots[i].Pose = pose
	if t.Changed != nil {
		t.Changed[i/64] |= 1 << (i % 64)
	}
}

// TickInstance.Flags.
const (
	// TickDrawn marks a slot whose entity is drawn: alive, visible with
	// its ancestors, of a mesh other than MeshNone. Other slots are left
	// out of the frame.
	TickDrawn uint16 = 1 << iota
	// TickSnap marks an entity drawn at its state at the end of the tick
	// whatever the alpha: teleported, moved or turned beyond the
	// interpolation thresholds, drawn with no interpolation, or
	// interpolation off.
	TickSnap
)

// Frame is what the simulation hands the renderer for one frame: an
// instance per entity drawn and the poses of the animated ones. Package
// engine fills one per frame (engine.RenderBuffer holds it); the renderer
// uploads it as is. Its slices are reused from frame to frame.
type Frame struct {
	// Instances holds one entry per entity drawn.
	Instances []Instance
	// Poses holds the skinning matrices and blend weights of the animated
	// instances; Instance.Pose refers to them.
	Poses Poses
	// Lights holds the frame's point and spot lights, in world space
	// (package light's Gather fills it from the light entities).
	Lights []Light
}

// LightKind says what shape of light a Light is. Its String is "point" or
// "spot".
type LightKind uint8

//go:generate go run golang.org/x/tools/cmd/stringer@v0.52.0 -type=LightKind -linecomment

const (
	// PointLight shines every way from its position.
	PointLight LightKind = iota // point
	// SpotLight shines a cone about its direction.
	SpotLight // spot
)

// Light is one point or spot light of a frame, in world space. A surface
// at distance d from it, within Range, facing it at angle θ, is lit by
// Color · cos θ · falloff(d), where falloff is 1/(1 + d²) windowed to
// reach 0 smoothly at Range, (1 − (d/Range)⁴)², as in Bevy and Filament;
// a spot light also by smoothstep(CosOuter, CosInner, the cosine between
// Dir and the direction to the surface).
type Light struct {
	// Kind is PointLight or SpotLight.
	Kind LightKind
	// Pos is where the light is.
	Pos mgl32.Vec3
	// Dir is the spot light's axis, a unit vector (unused for a point
	// light).
	Dir mgl32.Vec3
	// Color is the light's colour times its intensity, linear RGB: 1 lights
	// a surface facing it at a distance of 0 with its own colour; a lamp
	// that lights a room 5 m across is a few tens.
	Color mgl32.Vec3
	// Range is the distance, metres, at which the light fades to nothing;
	// beyond it the light costs nothing. Above 0.
	Range float32
	// CosInner and CosOuter are the cosines of the spot's inner and outer
	// half-angles: full light inside the inner cone, none outside the
	// outer one (CosOuter < CosInner).
	CosInner, CosOuter float32
}
