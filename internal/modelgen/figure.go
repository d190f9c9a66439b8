package modelgen

import (
	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
)

// The figure's bones, in Figure's node order (node i is bone i; node
// FigureBones is the mesh node).
const (
	BoneHips = iota
	BoneSpine
	BoneHead
	BoneUpperArmL
	BoneForearmL
	BoneUpperArmR
	BoneForearmR
	BoneThighL
	BoneShinL
	BoneThighR
	BoneShinR
	// FigureBones is the number of the figure's bones.
	FigureBones
)

// The figure's clips, in Figure's animation order.
const (
	// ClipWalk is the walk cycle: legs and arms swing, the hips bob; 1 s,
	// made to loop.
	ClipWalk = "walk"
	// ClipWave is the wave: the right arm up, its forearm waving, the head
	// tilting and squashing (its blend shape); 1.2 s, made to loop.
	ClipWave = "wave"
)

// bone is one of the figure's bones: its parent and where it sits in the
// model's space at rest (no bone is rotated at rest).
type bone struct {
	name   string
	parent int
	at     [3]float32
}

var figureBones = [FigureBones]bone{
	BoneHips:      {"hips", -1, [3]float32{0, -0.05, 0}},
	BoneSpine:     {"spine", BoneHips, [3]float32{0, 0, 0}},
	BoneHead:      {"head", BoneSpine, [3]float32{0, 0.25, 0}},
	BoneUpperArmL: {"upperarm.L", BoneSpine, [3]float32{0.19, 0.22, 0}},
	BoneForearmL:  {"forearm.L", BoneUpperArmL, [3]float32{0.19, 0.04, 0}},
	BoneUpperArmR: {"upperarm.R", BoneSpine, [3]float32{-0.19, 0.22, 0}},
	BoneForearmR:  {"forearm.R", BoneUpperArmR, [3]float32{-0.19, 0.04, 0}},
	BoneThighL:    {"thigh.L", BoneHips, [3]float32{0.08, -0.05, 0}},
	BoneShinL:     {"shin.L", BoneThighL, [3]float32{0.08, -0.275, 0}},
	BoneThighR:    {"thigh.R", BoneHips, [3]float32{-0.08, -0.05, 0}},
	BoneShinR:     {"shin.R", BoneThighR, [3]float32{-0.08, -0.275, 0}},
}

// Figure returns the demo's animated model: a figure standing in the unit
// cube (feet at y = -0.5, the top of the head at 0.49), facing +Z, its
// left at +X. It is skinned to FigureBones bones (nodes 0 to 10, parents
// first; node 11 is the mesh node) and has one mesh of seven primitives,
// each its own bright colour: torso (blue), head (yellow) and nose (red)
// rigid on their bones, and two arms (orange) and two legs (green) of two
// boxes each whose vertices at the elbow or knee are shared half and half
// by the two bones. One blend shape, "squash", flattens the head (its top
// 0.07 lower, its sides 0.02 wider). Two clips, both linear and made to
// loop: ClipWalk (1 s) and ClipWave (1.2 s, which also drives the squash
// through a weights channel and holds the right arm up with a
// single-key step channel).
func Figure() *gltf.Document {
	doc := newDocument("figure")
	mesh := FigureBones
	doc.Scenes[0].Nodes = []int{BoneHips, mesh}

	// Nodes: the bones, then the mesh node.
	for i, b := range figureBones {
		n := &gltf.Node{Name: b.name}
		t := b.at
		if b.parent >= 0 {
			p := figureBones[b.parent].at
			t = [3]float32{t[0] - p[0], t[1] - p[1], t[2] - p[2]}
			doc.Nodes[b.parent].Children = append(doc.Nodes[b.parent].Children, i)
		}
		n.Translation = [3]float64{float64(t[0]), float64(t[1]), float64(t[2])}
		doc.Nodes = append(doc.Nodes, n)
	}
	doc.Nodes = append(doc.Nodes, &gltf.Node{Name: "figure", Mesh: gltf.Index(0), Skin: gltf.Index(0)})

	ibms := make([][4][4]float32, FigureBones)
	joints := make([]int, FigureBones)
	for i, b := range figureBones {
		ibms[i] = translation(-b.at[0], -b.at[1], -b.at[2])
		joints[i] = i
	}
	doc.Skins = []*gltf.Skin{{
		Name: "figure", Joints: joints, Skeleton: gltf.Index(BoneHips),
		InverseBindMatrices: gltf.Index(accessor(doc, ibms)),
	}}

	blue := material(doc, "torso", [4]float64{0.15, 0.45, 1, 1}, -1)
	yellow := material(doc, "head", [4]float64{1, 0.85, 0.25, 1}, -1)
	red := material(doc, "nose", [4]float64{1, 0.25, 0.2, 1}, -1)
	orange := material(doc, "arm", [4]float64{1, 0.55, 0.1, 1}, -1)
	green := material(doc, "leg", [4]float64{0.2, 0.8, 0.35, 1}, -1)

	var prims []*gltf.Primitive
	// add writes a primitive of boxes: each box's bottom and top ring
	// skinned to the given bones (two bones share a ring half and half).
	// squash, when set, is the head's morph target: its top ring lower
	// and wider.
	type ringBones [2]int // -1 for none
	type boxSpec struct {
		min, max     [3]float32
		bottom, top  ringBones
		squashTarget bool
	}
	add := func(mat int, boxes ...boxSpec) {
		var pos, delta [][3]float32
		var js [][4]uint8
		var ws [][4]float32
		var idx []uint16
		for _, bx := range boxes {
			p, ix := box(bx.min[0], bx.max[0], bx.min[1], bx.max[1], bx.min[2], bx.max[2])
			base := uint16(len(pos))
			for _, x := range ix {
				idx = append(idx, base+uint16(x))
			}
			for v := range p {
				rb := bx.bottom
				if v >= 4 {
					rb = bx.top
				}
				j := [4]uint8{uint8(rb[0]), 0, 0, 0}
				w := [4]float32{1, 0, 0, 0}
				if rb[1] >= 0 {
					j[1], w = uint8(rb[1]), [4]float32{0.5, 0.5, 0, 0}
				}
				js, ws = append(js, j), append(ws, w)
				var d [3]float32
				if bx.squashTarget && v >= 4 {
					sx, sz := float32(0.02), float32(0.02)
					if p[v][0] < 0 {
						sx = -sx
					}
					if p[v][2] < 0 {
						sz = -sz
					}
					d = [3]float32{sx, -0.07, sz}
				}
				delta = append(delta, d)
			}
			pos = append(pos, p...)
		}
		attr := gltf.PrimitiveAttributes{
			gltf.POSITION:  modeler.WritePosition(doc, pos),
			gltf.JOINTS_0:  modeler.WriteJoints(doc, js),
			gltf.WEIGHTS_0: modeler.WriteWeights(doc, ws),
		}
		target := modeler.WriteAccessor(doc, gltf.TargetArrayBuffer, delta)
		prims = append(prims, &gltf.Primitive{
			Attributes: attr,
			Indices:    gltf.Index(modeler.WriteIndices(doc, idx)),
			Material:   gltf.Index(mat),
			Targets:    []gltf.PrimitiveAttributes{{gltf.POSITION: target}},
		})
	}
	one := func(b int) ringBones { return ringBones{b, -1} }
	two := func(a, b int) ringBones { return ringBones{a, b} }

	add(blue, boxSpec{min: [3]float32{-0.14, -0.08, -0.08}, max: [3]float32{0.14, 0.25, 0.08},
		bottom: one(BoneSpine), top: one(BoneSpine)})
	add(yellow, boxSpec{min: [3]float32{-0.1, 0.27, -0.09}, max: [3]float32{0.1, 0.49, 0.09},
		bottom: one(BoneHead), top: one(BoneHead), squashTarget: true})
	add(red, boxSpec{min: [3]float32{-0.025, 0.35, 0.09}, max: [3]float32{0.025, 0.4, 0.13},
		bottom: one(BoneHead), top: one(BoneHead)})
	limb := func(mat int, x, top, mid, bottom, hw float32, upper, lower int) {
		add(mat,
			boxSpec{min: [3]float32{x - hw, mid, -hw}, max: [3]float32{x + hw, top, hw},
				bottom: two(upper, lower), top: one(upper)},
			boxSpec{min: [3]float32{x - hw, bottom, -hw}, max: [3]float32{x + hw, mid, hw},
				bottom: one(lower), top: two(upper, lower)},
		)
	}
	limb(orange, 0.19, 0.24, 0.04, -0.14, 0.04, BoneUpperArmL, BoneForearmL)
	limb(orange, -0.19, 0.24, 0.04, -0.14, 0.04, BoneUpperArmR, BoneForearmR)
	limb(green, 0.08, -0.05, -0.275, -0.5, 0.05, BoneThighL, BoneShinL)
	limb(green, -0.08, -0.05, -0.275, -0.5, 0.05, BoneThighR, BoneShinR)

	doc.Meshes = []*gltf.Mesh{{
		Name: "figure", Primitives: prims, Weights: []float64{0},
		Extras: map[string]any{"targetNames": []string{"squash"}},
	}}

	doc.Animations = []*gltf.Animation{figureWalk(doc), figureWave(doc, mesh)}
	return doc
}

// clip builds an animation from channels on a shared key time list.
type clip struct {
	doc  *gltf.Document
	anim *gltf.Animation
	keys int // the shared input accessor
}

func newClip(doc *gltf.Document, name string, times []float32) *clip {
	return &clip{doc: doc, anim: &gltf.Animation{Name: name}, keys: accessor(doc, times)}
}

func (c *clip) channel(node int, path gltf.TRSProperty, interp gltf.Interpolation, input int, output any) {
	c.anim.Samplers = append(c.anim.Samplers, &gltf.AnimationSampler{
		Input: input, Output: accessor(c.doc, output), Interpolation: interp,
	})
	c.anim.Channels = append(c.anim.Channels, &gltf.AnimationChannel{
		Sampler: len(c.anim.Samplers) - 1,
		Target:  gltf.AnimationChannelTarget{Node: gltf.Index(node), Path: path},
	})
}

// rotations is a linear rotation channel about one axis, in degrees per
// key.
func (c *clip) rotations(node int, axis func(float64) [4]float32, deg ...float64) {
	q := make([][4]float32, len(deg))
	for i, d := range deg {
		q[i] = axis(d)
	}
	c.channel(node, gltf.TRSRotation, gltf.InterpolationLinear, c.keys, q)
}

// figureWalk: keys every quarter second over 1 s, the last equal to the
// first so that the loop is seamless.
func figureWalk(doc *gltf.Document) *gltf.Animation {
	c := newClip(doc, ClipWalk, []float32{0, 0.25, 0.5, 0.75, 1})
	c.rotations(BoneThighL, quatX, -30, 0, 30, 0, -30)
	c.rotations(BoneThighR, quatX, 30, 0, -30, 0, 30)
	c.rotations(BoneShinL, quatX, 10, 35, 10, 0, 10)
	c.rotations(BoneShinR, quatX, 10, 0, 10, 35, 10)
	c.rotations(BoneUpperArmL, quatX, 25, 0, -25, 0, 25)
	c.rotations(BoneUpperArmR, quatX, -25, 0, 25, 0, -25)
	c.rotations(BoneForearmL, quatX, -20, -10, -20, -10, -20)
	c.rotations(BoneForearmR, quatX, -20, -10, -20, -10, -20)
	c.channel(BoneHips, gltf.TRSTranslation, gltf.InterpolationLinear, c.keys,
		[][3]float32{{0, -0.05, 0}, {0, -0.03, 0}, {0, -0.05, 0}, {0, -0.03, 0}, {0, -0.05, 0}})
	return c.anim
}

// figureWave: keys every 0.3 s over 1.2 s; the right arm held up by a
// single step key, its forearm waving about Z, the head tilting and
// squashing twice.
func figureWave(doc *gltf.Document, mesh int) *gltf.Animation {
	c := newClip(doc, ClipWave, []float32{0, 0.3, 0.6, 0.9, 1.2})
	c.channel(BoneUpperArmR, gltf.TRSRotation, gltf.InterpolationStep, accessor(doc, []float32{0}),
		[][4]float32{quatZ(-150)})
	c.rotations(BoneForearmR, quatZ, 0, 35, 0, -35, 0)
	c.rotations(BoneHead, quatZ, 0, 8, 0, -8, 0)
	c.channel(mesh, gltf.TRSWeights, gltf.InterpolationLinear, c.keys, []float32{0, 0.8, 0, 0.8, 0})
	return c.anim
}

// FigureGLB returns Figure encoded as a .glb file.
func FigureGLB() ([]byte, error) { return GLB(Figure()) }
