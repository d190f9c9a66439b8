// Package modelgen makes the project's own test and demo models in code,
// as glTF 2.0 documents (github.com/qmuntal/gltf and its modeler
// package): nothing is downloaded, and no generated file is committed.
//
//   - Arm: the loader's test model, a three-bone arm that holds every kind
//     of data engine/model reads (skin, morph target, sparse and
//     buffer-less accessors, interleaved attributes, u8/u16/u32 indices,
//     normalised weights and rotations, vertex colours, a PNG texture, a
//     node matrix, LINEAR and STEP channels, a channel on a node outside
//     the scene). Its exact numbers are in its doc comment.
//   - Figure: the demo's animated figure, 11 bones, clips "walk" and
//     "wave", a blend shape.
//   - TruncatedGLB, BadAccessor, MissingBuffer, TooManyJoints,
//     UnsupportedMode, BadWeights, ShortAnimation: Arm with one fault each.
//
// GLB encodes a document as a .glb; WriteGLTF writes a .gltf and its .bin.
//
// A test loads a model from a temporary directory:
//
//	data, err := modelgen.ArmGLB()
//	if err != nil {
//		t.Fatal(err)
//	}
//	path := filepath.Join(t.TempDir(), "arm.glb")
//	if err := os.WriteFile(path, data, 0o644); err != nil {
//		t.Fatal(err)
//	}
//	m, err := model.Load(path)
package modelgen
