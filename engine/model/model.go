package model

import (
	"github.com/nebulaengine/nebula/engine/geom"

	"image"

	"github.com/go-gl/mathgl/mgl32"
)

// Limits of a model, so that a pose fits the renderer's buffers. A file
// beyond them is refused with an error naming the limit.
const (
	// MaxPalette is the most matrices in a model's palette: the joints of
	// all its skins plus one per mesh node that is not skinned.
	MaxPalette = 256
	// MaxTargets is the most morph targets of one part.
	MaxTargets = 8
	// MaxWeights is the most blend-shape weights of a model, all its parts
	// together.
	MaxWeights = 64
)

// Model is a model ready to draw and animate.
type Model struct {
	// Name names the model in messages: the file it was loaded from.
	Name string
	// Parts are the model's triangle meshes, each with one material.
	Parts []Part
	// Nodes is the node hierarchy, parents before their children.
	Nodes []Node
	// Palette lists the matrices the vertices are skinned with, in the
	// order Part.Joints indexes them.
	Palette []Joint
	// RestWeights holds the model's blend-shape weights at rest, all its
	// parts' together (Part.FirstWeight says where each part's start).
	RestWeights []float32
	// Clips are the model's animations.
	Clips []Clip
}

// Node is one node of a model's hierarchy: a joint of a skeleton, a mesh
// node or a group.
type Node struct {
	// Name is the node's name in the file, possibly empty.
	Name string
	// Parent is the index of the node's parent in Model.Nodes, or -1 for a
	// root; it is always below the node's own index.
	Parent int
	// Rest is the node's transform relative to its parent at rest: the
	// translation, rotation and scale clips animate.
	Rest geom.Transform
}

// Joint is one matrix of a model's palette: a vertex skinned by it is
// moved by the global transform of Node (the product of the node's and
// its ancestors' transforms) times InverseBind, the matrix that brings
// the vertex from the model's space into the node's at rest. For a mesh
// node that is not skinned, InverseBind is the identity and its vertices
// follow the node rigidly.
type Joint struct {
	// Node is the index of the joint's node in Model.Nodes.
	Node int
	// InverseBind is the joint's inverse bind matrix.
	InverseBind mgl32.Mat4
}

// Part is indexed triangle geometry with one material. Every per-vertex
// slice that is not nil has one entry per position.
type Part struct {
	// Name names the part in messages: "mesh 2 (arm) primitive 0".
	Name string
	// Positions are the vertices' positions in the model's space at rest.
	Positions []mgl32.Vec3
	// Normals are the vertices' unit normals.
	Normals []mgl32.Vec3
	// Colors are the vertices' RGBA colours, multiplied into the
	// material's base colour, or nil for white.
	Colors [][4]uint8
	// UVs are the vertices' texture coordinates, or nil (then the part has
	// no texture).
	UVs []mgl32.Vec2
	// Joints are, per vertex, four indices into Model.Palette.
	Joints [][4]uint16
	// Weights are, per vertex, the weights of the four joints, summing
	// to 1.
	Weights [][4]float32
	// Targets are the part's morph targets (at most MaxTargets).
	Targets []Target
	// FirstWeight is the index in the model's weights of the weight of the
	// part's first target.
	FirstWeight int
	// Indices lists the triangles, three vertex indices each,
	// counter-clockwise seen from the front.
	Indices []uint32
	// Material is how the part is coloured.
	Material Material
}

// Target is one morph target: what a vertex moves by at weight 1.
type Target struct {
	// Positions are the position offsets, one per vertex.
	Positions []mgl32.Vec3
	// Normals are the normal offsets, one per vertex, or nil.
	Normals []mgl32.Vec3
}

// Material is a part's colour: glTF's base colour, unlit by the file's own
// lights (the renderer lights it with its own).
type Material struct {
	// BaseColor is the base colour factor, linear RGBA in [0, 1].
	BaseColor [4]float32
	// Texture is the base colour texture, or nil; its texels multiply
	// BaseColor.
	Texture *image.RGBA
}

// Path is what an animation channel drives. Its String is the constant's
// name.
type Path uint8

//go:generate go run golang.org/x/tools/cmd/stringer@v0.52.0 -type=Path,Interpolation -output=enum_string.go

// The paths of a channel.
const (
	Translation Path = iota // a node's translation: 3 values a key
	Rotation                // a node's rotation: 4 values a key, x y z w
	Scale                   // a node's scale: 3 values a key
	Weights                 // blend-shape weights: Channel.Count values a key
)

// Interpolation is how a channel's values run between its keys. Its String
// is the constant's name.
type Interpolation uint8

// The interpolations of a channel.
const (
	// Linear interpolates linearly (rotations along the shortest arc).
	Linear Interpolation = iota
	// Step holds each key's value until the next key.
	Step
	// CubicSpline is glTF's cubic Hermite spline: every key holds an
	// in-tangent, a value and an out-tangent, in that order.
	CubicSpline
)

// Clip is one animation: channels that drive nodes and weights over time.
type Clip struct {
	// Name is the animation's name in the file, possibly empty.
	Name string
	// Duration is the time of the last key of any channel, in seconds.
	Duration float32
	// Channels are the clip's channels.
	Channels []Channel
}

// Channel drives one property over time.
type Channel struct {
	// Path is what it drives.
	Path Path
	// Interpolation is how its values run between keys.
	Interpolation Interpolation
	// Node is the node it drives (Translation, Rotation, Scale).
	Node int
	// FirstWeight and Count are the model weights it drives (Weights).
	FirstWeight, Count int
	// Times are the keys' times in seconds, increasing.
	Times []float32
	// Values are the keys' values, one key after the other (three per key
	// for CubicSpline: in-tangent, value, out-tangent).
	Values []float32
}
