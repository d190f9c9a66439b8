// Package model holds 3D models as Nebula uses them, in pure Go: triangle
// geometry with materials, a node hierarchy, the palette of matrices the
// vertices are skinned with, blend shapes (morph targets) and animation
// clips. It loads glTF 2.0 files (.gltf and .glb) into that form and
// makes the built-in shapes. The renderer (package gfx) uploads a Model;
// package anim plays its clips under the fixed step.
//
// # Loading
//
//	m, err := model.Load("assets/robot.glb")
//	if err != nil {
//		return err // model: assets/robot.glb: mesh 0 (arm) primitive 0: attribute POSITION: accessor 7 does not exist (the file has 5)
//	}
//	walk := m.ClipIndex("walk")
//
// Load reads a .glb, or a .gltf with its buffers and images in data URIs
// or in files beside it (relative URIs, percent-escapes decoded; never
// above the file's directory, never remote). LoadFS does the same from an
// fs.FS such as an embed.FS; Decode reads a self-contained file from an
// io.Reader; FromDocument converts a github.com/qmuntal/gltf Document
// whose buffers are loaded. A bad file gives one error naming the file and
// the part at fault, never a panic:
//
//	model: arm.glb: skin 0: 300 joints, at most 256
//	model: arm.gltf: buffer 1: missing (uri "arm1.bin" not found)
//	model: arm.glb: truncated: the GLB header says 8172 bytes, the file has 8072
//
// The loader decodes the JSON into gltf's Document types but splits the
// GLB container and reads every buffer and accessor itself, each offset,
// stride and count checked first (gltf's decoder allocates a BIN chunk's
// claimed length before reading it, and its modeler.ReadAccessor can
// panic on an accessor past its buffer view). The values one file makes
// the loader read are bounded (2^27 in all), so a small file cannot make
// it allocate without bound.
//
// # What is converted
//
// The default scene (else scene 0, else every node that is no node's
// child), its nodes parents first, depth first in the file's order of
// children; Node.Rest is the node's translation, rotation and scale, or
// its matrix decomposed into them (a negative determinant goes to the x
// scale). Nodes outside the scene are left out.
//
// Every primitive of every mesh node in the scene becomes a Part, in node
// order (a mesh used by two nodes gives two sets of parts). Primitive modes
// TRIANGLES, TRIANGLE_STRIP and TRIANGLE_FAN (strips and fans become
// triangles); points and lines are refused. Attributes: POSITION (float),
// NORMAL (float; made unit length, a zero normal +Y; computed with
// SmoothNormals when absent: vertices the file shares between triangles
// get a smooth normal, others a flat one), COLOR_0 (float, unsigned byte or short; RGB or RGBA; to RGBA8
// as stored, linear, not sRGB-encoded), TEXCOORD_0 (float, normalised
// unsigned byte or short), JOINTS_0 (unsigned byte or short) and WEIGHTS_0
// (float, normalised unsigned byte or short). Indices are unsigned bytes,
// shorts or ints, or 0 to n-1 when absent. Sparse accessors and accessors
// without a buffer view (zeros) are read. TANGENT, TEXCOORD_1 and the
// second sets of joints and weights (JOINTS_1, WEIGHTS_1) are ignored.
//
// Skinning: Model.Palette lists the joints of every skin a mesh node of
// the scene uses, skin by skin in the file's order, each with its inverse
// bind matrix (the identity when the skin has none), then one entry per
// unskinned mesh node, in node order, whose inverse bind matrix is the
// identity: its vertices all have that entry at weight 1, so they follow
// the node rigidly. Part.Joints are palette indices. A vertex's weights
// are normalised to sum to 1; a joint at weight 0 becomes the skin's first
// joint whatever its number in the file. A skinned mesh node's own
// transform is ignored, as glTF requires.
//
// Morph targets: POSITION and NORMAL offsets (TANGENT ignored); a target
// without POSITION moves no vertex. Each mesh node with morph targets gets
// a block of the model's weights (Part.FirstWeight, the same for all the
// parts of the node's mesh), at rest the node's weights, else its mesh's,
// else 0.
//
// Materials: the base colour factor (linear RGBA) and the base colour
// texture (PNG or JPEG, in a buffer view, a data URI or a file; at most
// MaxTextureSide texels a side), decoded into an *image.RGBA whose Pix
// holds the file's texels as they are: sRGB-encoded, and not premultiplied
// by alpha, unlike image.RGBA's convention (a texture sampled as
// GL_SRGB8_ALPHA8 gives linear colours). A base colour texture on
// TEXCOORD_1, or on a primitive without TEXCOORD_0, is refused. The
// texture's sampler (filters,
// wrapping) is ignored, as are the rest of the material (metallic,
// roughness, normal, occlusion, emission, alpha mode and cutoff, double
// sidedness), cameras, lights and extensions; a file that requires an
// extension is refused. One image used by several parts is decoded once
// and shared: treat textures as read-only.
//
// Animations: clip i is the file's animation i. Channels drive a node's
// translation, rotation (float or normalised integer keys, converted to
// float and normalised to unit length) or scale, or a mesh node's weights
// (Channel.FirstWeight and Count name the node's block; Channel.Node is
// set too). LINEAR, STEP and CUBICSPLINE samplers are kept as they are,
// times in seconds from 0, never decreasing. A channel that targets a node
// outside the scene, or no node, is dropped. Clip.Duration is the last key
// time of the clip's channels.
//
// # Limits
//
// A model has at most MaxPalette palette matrices (all its skins' joints
// and its unskinned mesh nodes), MaxTargets morph targets per mesh and
// MaxWeights blend-shape weights in all; a file beyond them is refused
// with the limit in the message. Accessors without a buffer view hold at
// most 2^22 values; byte strides are at most 252, as glTF says.
//
// Every Model the loader returns satisfies Validate; Validate checks models
// built in code, and Single makes the model of one rigid part.
package model
