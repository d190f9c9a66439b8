package modelgen

import (
	"fmt"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"

	"github.com/nebulaengine/nebula/engine/model"
)

// The broken files below are Arm with one fault each, for the loader's
// tests: loading one must give exactly one error naming the file and the
// part at fault.

// TruncatedGLB returns Arm's .glb without its last 100 bytes (inside the
// BIN chunk): the GLB header's length is 100 bytes more than the file's.
func TruncatedGLB() ([]byte, error) {
	data, err := ArmGLB()
	if err != nil {
		return nil, err
	}
	return data[:len(data)-100], nil
}

// BadAccessor returns Arm whose mesh 0 (arm) primitive 1's POSITION is
// accessor len(Accessors)+2, which does not exist.
func BadAccessor() *gltf.Document {
	doc := Arm()
	doc.Meshes[0].Primitives[1].Attributes[gltf.POSITION] = len(doc.Accessors) + 2
	return doc
}

// MissingBuffer returns Arm with a buffer 1 whose uri is "does-not-exist.bin", a
// file that does not exist, and a buffer view on it. Write it with
// WriteGLTF (a .glb holds only its first buffer).
func MissingBuffer() *gltf.Document {
	doc := Arm()
	doc.Buffers = append(doc.Buffers, &gltf.Buffer{URI: "does-not-exist.bin", ByteLength: 16})
	doc.BufferViews = append(doc.BufferViews, &gltf.BufferView{Buffer: 1, ByteLength: 16})
	return doc
}

// TooManyJoints returns Arm whose skin 0 has model.MaxPalette+1 joints:
// its three bones and MaxPalette-2 more nodes, children of the shoulder.
func TooManyJoints() *gltf.Document {
	doc := Arm()
	for i := range model.MaxPalette - 2 {
		doc.Nodes = append(doc.Nodes, &gltf.Node{Name: fmt.Sprintf("extra.%d", i)})
		doc.Nodes[3].Children = append(doc.Nodes[3].Children, len(doc.Nodes)-1)
		doc.Skins[0].Joints = append(doc.Skins[0].Joints, len(doc.Nodes)-1)
	}
	ibm := make([][4][4]float32, len(doc.Skins[0].Joints))
	for i := range ibm {
		ibm[i] = translation(0, 0, 0)
	}
	doc.Skins[0].InverseBindMatrices = gltf.Index(accessor(doc, ibm))
	return doc
}

// UnsupportedMode returns Arm whose mesh 1 (marker) primitive 0 is drawn
// as POINTS.
func UnsupportedMode() *gltf.Document {
	doc := Arm()
	doc.Meshes[1].Primitives[0].Mode = gltf.PrimitivePoints
	return doc
}

// BadWeights returns Arm whose mesh 0 (arm) primitive 0's WEIGHTS_0 gives
// vertex 5 four weights of 0.
func BadWeights() *gltf.Document {
	doc := Arm()
	w := make([][4]float32, 8)
	for v := range w {
		w[v] = [4]float32{1, 0, 0, 0}
	}
	w[5] = [4]float32{}
	doc.Meshes[0].Primitives[0].Attributes[gltf.WEIGHTS_0] = modeler.WriteWeights(doc, w)
	return doc
}

// ShortAnimation returns Arm whose animation 0 (bend) sampler 2 (channel
// 2, the weights) has two output values for its three keys.
func ShortAnimation() *gltf.Document {
	doc := Arm()
	doc.Animations[0].Samplers[2].Output = accessor(doc, []float32{0, 1})
	return doc
}
