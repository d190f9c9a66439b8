package modelgen

import (
	"bytes"
	"image"
	"image/color"
	"image/png"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
)

// Arm returns the loader's test model: a segmented arm of three bones in a
// chain along +Y, every kind of data the loader reads at least once. Its
// numbers are part of its contract (engine/model's tests check them):
//
// Nodes, in the file's order, which is not parents first:
//
//	0 "forearm"  translation (0, 1, 0), child 2
//	1 "arm"      mesh 0, skin 0, morph weights [0.25] (its mesh says [0.5])
//	2 "hand"     translation (0, 1, 0), child 4
//	3 "shoulder" at the origin, child 0
//	4 "marker"   mesh 1, matrix = translate(0, 1, 0) · rotate 90° about Y · scale 0.5
//	5 "offstage" in no scene, animated by the clip (a loader drops that channel)
//
// Scene 0 (the default) has roots [3, 1]; parents first, depth first, the
// nodes are shoulder, forearm, hand, marker, arm. Skin 0 has joints
// [3, 0, 2] (shoulder, forearm, hand) with inverse bind matrices
// translate(0, 0, 0), (0, -1, 0) and (0, -2, 0).
//
// Mesh 0 "arm" has three primitives, segment k a box from y = k to k+1,
// x and z in [-0.2, 0.2], 8 corners (the bottom ring first, each ring
// (-x, -z), (+x, -z), (+x, +z), (-x, +z)), no normals, 36 indices; joints
// below are the skin's joint numbers:
//
//	segment 0: material 0 "upper" (1, 0.25, 0.25, 1); interleaved POSITION,
//	           JOINTS_0 (u8), WEIGHTS_0 (float); u8 indices;
//	           bottom ring joint 0 weight 1, top ring joints 0 and 1 at 0.5 each
//	segment 1: material 1 "lower" (0.25, 1, 0.25, 1); JOINTS_0 u16, WEIGHTS_0
//	           unorm8 (128, 128: 0.5 each once normalised; 255: 1); COLOR_0
//	           float RGB, bottom ring (1, 1, 1), top ring (0.5, 0.5, 0.5);
//	           u16 indices; bottom ring joints 0 and 1, top ring 1 and 2
//	segment 2: material 2 "hand" (0.25, 0.25, 1, 1); JOINTS_0 u8, WEIGHTS_0
//	           unorm16 (32768, 32768; 65535); u32 indices; bottom ring
//	           joints 1 and 2, top ring joint 2 weight 1 (with joint 7, out of
//	           the skin, at weight 0 in the second slot)
//
// Every segment has one morph target. Segments 0 and 1 share a POSITION
// accessor without a buffer view (all zeros); segment 2's is sparse: its
// top ring (vertices 4 to 7) moves outward by 0.2 along x and z, to
// (-0.4, 3, -0.4), (0.4, 3, -0.4), (0.4, 3, 0.4), (-0.4, 3, 0.4) at weight 1.
//
// Mesh 1 "marker" is a cube of half-size 0.1 with normals, texture
// coordinates and u16 indices (24 vertices, 36 indices; its faces +X, -X,
// +Y, -Y, +Z, -Z; vertex 0 at (0.1, -0.1, -0.1)), material 3 "checker":
// base colour (1, 1, 1, 1) and texture 0, a 4×4 PNG in a buffer view whose
// texel (x, y) is white when x+y is even and orange (255, 128, 0, 255)
// when odd.
//
// Animation 0 "bend", 2 s long, all keys' inputs at times [0, 1, 2] except
// channel 3's [0, 1]:
//
//	channel 0: forearm rotation, LINEAR, float: 0°, 90°, 0° about Z
//	channel 1: hand rotation, LINEAR, normalised int16: 0°, 45°, 0° about Z
//	           ((0, 0, 12540, 30273) / 32767 at 45°)
//	channel 2: arm's morph weights, LINEAR: 0, 1, 0
//	channel 3: shoulder translation, STEP: (0, 0, 0), (0, 0.25, 0)
//	channel 4: offstage rotation (sampler 0's)
func Arm() *gltf.Document {
	doc := newDocument("arm")
	doc.Scenes[0].Nodes = []int{3, 1}

	type segment struct {
		joints  [2][4]uint16
		weights [2][4]float32
	}
	seg := [3]segment{
		{joints: [2][4]uint16{{0, 0, 0, 0}, {0, 1, 0, 0}}, weights: [2][4]float32{{1, 0, 0, 0}, {0.5, 0.5, 0, 0}}},
		{joints: [2][4]uint16{{0, 1, 0, 0}, {1, 2, 0, 0}}, weights: [2][4]float32{{0.5, 0.5, 0, 0}, {0.5, 0.5, 0, 0}}},
		{joints: [2][4]uint16{{1, 2, 0, 0}, {2, 7, 0, 0}}, weights: [2][4]float32{{0.5, 0.5, 0, 0}, {1, 0, 0, 0}}},
	}
	ring := func(v int) int { return v / 4 } // 0 bottom, 1 top

	// Segment 0: interleaved attributes, u8 indices.
	pos0, idx := box(-0.2, 0.2, 0, 1, -0.2, 0.2)
	j0 := make([][4]uint8, 8)
	w0 := make([][4]float32, 8)
	for v := range 8 {
		for k := range 4 {
			j0[v][k] = uint8(seg[0].joints[ring(v)][k])
		}
		w0[v] = seg[0].weights[ring(v)]
	}
	attr0, err := modeler.WritePrimitiveAttributes(doc,
		modeler.PrimitiveAttribute{Name: gltf.POSITION, Data: pos0},
		modeler.PrimitiveAttribute{Name: gltf.JOINTS_0, Data: j0},
		modeler.PrimitiveAttribute{Name: gltf.WEIGHTS_0, Data: w0},
	)
	if err != nil {
		panic("modelgen: Arm: " + err.Error())
	}
	idx8 := make([]uint8, len(idx))
	for i, x := range idx {
		idx8[i] = uint8(x)
	}
	ind0 := modeler.WriteAccessor(doc, gltf.TargetElementArrayBuffer, idx8)

	// Segment 1: u16 joints, unorm8 weights, float colours, u16 indices.
	pos1, _ := box(-0.2, 0.2, 1, 2, -0.2, 0.2)
	j1 := make([][4]uint16, 8)
	w1 := make([][4]uint8, 8)
	c1 := make([][3]float32, 8)
	for v := range 8 {
		j1[v] = seg[1].joints[ring(v)]
		for k, w := range seg[1].weights[ring(v)] {
			switch w {
			case 1:
				w1[v][k] = 255
			case 0.5:
				w1[v][k] = 128
			}
		}
		c1[v] = [3]float32{1, 1, 1}
		if ring(v) == 1 {
			c1[v] = [3]float32{0.5, 0.5, 0.5}
		}
	}
	idx16 := make([]uint16, len(idx))
	for i, x := range idx {
		idx16[i] = uint16(x)
	}
	attr1 := gltf.PrimitiveAttributes{
		gltf.POSITION:  modeler.WritePosition(doc, pos1),
		gltf.JOINTS_0:  modeler.WriteJoints(doc, j1),
		gltf.WEIGHTS_0: modeler.WriteWeights(doc, w1),
		gltf.COLOR_0:   modeler.WriteColor(doc, c1),
	}
	ind1 := modeler.WriteIndices(doc, idx16)

	// Segment 2: u8 joints, unorm16 weights, u32 indices.
	pos2, _ := box(-0.2, 0.2, 2, 3, -0.2, 0.2)
	j2 := make([][4]uint8, 8)
	w2 := make([][4]uint16, 8)
	for v := range 8 {
		for k := range 4 {
			j2[v][k] = uint8(seg[2].joints[ring(v)][k])
			switch seg[2].weights[ring(v)][k] {
			case 1:
				w2[v][k] = 65535
			case 0.5:
				w2[v][k] = 32768
			}
		}
	}
	attr2 := gltf.PrimitiveAttributes{
		gltf.POSITION:  modeler.WritePosition(doc, pos2),
		gltf.JOINTS_0:  modeler.WriteJoints(doc, j2),
		gltf.WEIGHTS_0: modeler.WriteWeights(doc, w2),
	}
	ind2 := modeler.WriteIndices(doc, idx)

	// Morph targets: zeros for segments 0 and 1, sparse for segment 2.
	doc.Accessors = append(doc.Accessors, &gltf.Accessor{
		ComponentType: gltf.ComponentFloat, Type: gltf.AccessorVec3, Count: 8,
	})
	zeros := len(doc.Accessors) - 1
	align(doc)
	sparseIdx := modeler.WriteBufferView(doc, gltf.TargetNone, []uint32{4, 5, 6, 7})
	sparseVal := modeler.WriteBufferView(doc, gltf.TargetNone, [][3]float32{
		{-0.2, 0, -0.2}, {0.2, 0, -0.2}, {0.2, 0, 0.2}, {-0.2, 0, 0.2},
	})
	doc.Accessors = append(doc.Accessors, &gltf.Accessor{
		ComponentType: gltf.ComponentFloat, Type: gltf.AccessorVec3, Count: 8,
		Sparse: &gltf.Sparse{
			Count:   4,
			Indices: gltf.SparseIndices{BufferView: sparseIdx, ComponentType: gltf.ComponentUint},
			Values:  gltf.SparseValues{BufferView: sparseVal},
		},
	})
	bulge := len(doc.Accessors) - 1

	// The marker: a textured cube.
	cpos, cnrm, cuv, cidx := cube(0.1)
	attrM := gltf.PrimitiveAttributes{
		gltf.POSITION:   modeler.WritePosition(doc, cpos),
		gltf.NORMAL:     modeler.WriteNormal(doc, cnrm),
		gltf.TEXCOORD_0: modeler.WriteTextureCoord(doc, cuv),
	}
	indM := modeler.WriteIndices(doc, cidx)

	// Skin.
	ibm := accessor(doc, [][4][4]float32{translation(0, 0, 0), translation(0, -1, 0), translation(0, -2, 0)})
	doc.Skins = []*gltf.Skin{{Name: "arm", Joints: []int{3, 0, 2}, InverseBindMatrices: gltf.Index(ibm), Skeleton: gltf.Index(3)}}

	// Animation.
	times3 := accessor(doc, []float32{0, 1, 2})
	times2 := accessor(doc, []float32{0, 1})
	forearm := accessor(doc, [][4]float32{quatZ(0), quatZ(90), quatZ(0)})
	hand := accessor(doc, [][4]int16{{0, 0, 0, 32767}, {0, 0, 12540, 30273}, {0, 0, 0, 32767}})
	doc.Accessors[hand].Normalized = true
	weights := accessor(doc, []float32{0, 1, 0})
	lift := accessor(doc, [][3]float32{{0, 0, 0}, {0, 0.25, 0}})
	doc.Animations = []*gltf.Animation{{
		Name: "bend",
		Samplers: []*gltf.AnimationSampler{
			{Input: times3, Output: forearm, Interpolation: gltf.InterpolationLinear},
			{Input: times3, Output: hand, Interpolation: gltf.InterpolationLinear},
			{Input: times3, Output: weights, Interpolation: gltf.InterpolationLinear},
			{Input: times2, Output: lift, Interpolation: gltf.InterpolationStep},
		},
		Channels: []*gltf.AnimationChannel{
			{Sampler: 0, Target: gltf.AnimationChannelTarget{Node: gltf.Index(0), Path: gltf.TRSRotation}},
			{Sampler: 1, Target: gltf.AnimationChannelTarget{Node: gltf.Index(2), Path: gltf.TRSRotation}},
			{Sampler: 2, Target: gltf.AnimationChannelTarget{Node: gltf.Index(1), Path: gltf.TRSWeights}},
			{Sampler: 3, Target: gltf.AnimationChannelTarget{Node: gltf.Index(3), Path: gltf.TRSTranslation}},
			{Sampler: 0, Target: gltf.AnimationChannelTarget{Node: gltf.Index(5), Path: gltf.TRSRotation}},
		},
	}}

	// The texture, last in the buffer (its length is not a multiple of 4).
	img, err := modeler.WriteImage(doc, "checker", "image/png", bytes.NewReader(checkerPNG()))
	if err != nil {
		panic("modelgen: Arm: " + err.Error())
	}
	doc.Samplers = []*gltf.Sampler{{MagFilter: gltf.MagNearest, MinFilter: gltf.MinNearest}}
	doc.Textures = []*gltf.Texture{{Name: "checker", Source: gltf.Index(img), Sampler: gltf.Index(0)}}

	material(doc, "upper", [4]float64{1, 0.25, 0.25, 1}, -1)
	material(doc, "lower", [4]float64{0.25, 1, 0.25, 1}, -1)
	material(doc, "hand", [4]float64{0.25, 0.25, 1, 1}, -1)
	material(doc, "checker", [4]float64{1, 1, 1, 1}, 0)

	target := func(a int) []gltf.PrimitiveAttributes { return []gltf.PrimitiveAttributes{{gltf.POSITION: a}} }
	doc.Meshes = []*gltf.Mesh{
		{
			Name:    "arm",
			Weights: []float64{0.5},
			Extras:  map[string]any{"targetNames": []string{"bulge"}},
			Primitives: []*gltf.Primitive{
				{Attributes: attr0, Indices: gltf.Index(ind0), Material: gltf.Index(0), Targets: target(zeros)},
				{Attributes: attr1, Indices: gltf.Index(ind1), Material: gltf.Index(1), Targets: target(zeros)},
				{Attributes: attr2, Indices: gltf.Index(ind2), Material: gltf.Index(2), Targets: target(bulge)},
			},
		},
		{
			Name:       "marker",
			Primitives: []*gltf.Primitive{{Attributes: attrM, Indices: gltf.Index(indM), Material: gltf.Index(3)}},
		},
	}
	doc.Nodes = []*gltf.Node{
		{Name: "forearm", Translation: [3]float64{0, 1, 0}, Children: []int{2}},
		{Name: "arm", Mesh: gltf.Index(0), Skin: gltf.Index(0), Weights: []float64{0.25}},
		{Name: "hand", Translation: [3]float64{0, 1, 0}, Children: []int{4}},
		{Name: "shoulder", Children: []int{0}},
		{Name: "marker", Mesh: gltf.Index(1), Matrix: [16]float64{
			0, 0, -0.5, 0,
			0, 0.5, 0, 0,
			0.5, 0, 0, 0,
			0, 1, 0, 1,
		}},
		{Name: "offstage"},
	}
	return doc
}

// ArmGLB returns Arm encoded as a .glb file.
func ArmGLB() ([]byte, error) { return GLB(Arm()) }

// checkerPNG is a 4×4 PNG: white where x+y is even, orange elsewhere.
func checkerPNG() []byte {
	img := image.NewNRGBA(image.Rect(0, 0, 4, 4))
	for y := range 4 {
		for x := range 4 {
			c := color.NRGBA{255, 255, 255, 255}
			if (x+y)%2 == 1 {
				c = color.NRGBA{255, 128, 0, 255}
			}
			img.SetNRGBA(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		panic("modelgen: " + err.Error())
	}
	return buf.Bytes()
}
