package ragdoll

import (
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine/geom"
	"github.com/nebulaengine/nebula/engine/model"
	"github.com/nebulaengine/nebula/engine/physics"
	"github.com/nebulaengine/nebula/internal/modelgen"
)

// figure returns the demo's figure model.
func figure(t testing.TB) *model.Model {
	t.Helper()
	m, err := model.FromDocument(modelgen.Figure(), "figure")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// The figure's ragdoll by the default mapping: a body per bone that has
// vertices (the hips has none: its node follows the spine's body), each
// inside the extent of the vertices skinned mostly to its bone and filling
// it along the bone, joined to its parent's body where the bones meet,
// with each part's joint and limits.
func TestBuildFigure(t *testing.T) {
	m := figure(t)
	d, err := Build(m, DefaultMapping(m))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name   string
		part   Part
		parent string
		shape  physics.ShapeKind
	}{
		{"spine", PartSpine, "", physics.Box},
		{"head", PartHead, "spine", physics.Capsule},
		{"upperarm.L", PartUpperArm, "spine", physics.Capsule},
		{"forearm.L", PartForearm, "upperarm.L", physics.Capsule},
		{"upperarm.R", PartUpperArm, "spine", physics.Capsule},
		{"forearm.R", PartForearm, "upperarm.R", physics.Capsule},
		{"thigh.L", PartThigh, "spine", physics.Capsule},
		{"shin.L", PartShin, "thigh.L", physics.Capsule},
		{"thigh.R", PartThigh, "spine", physics.Capsule},
		{"shin.R", PartShin, "thigh.R", physics.Capsule},
	}
	if len(d.Parts) != len(want) {
		t.Fatalf("%d parts, want %d", len(d.Parts), len(want))
	}
	// The vertices skinned mostly to each bone, in the model's space.
	verts := map[int][]mgl32.Vec3{}
	dominant(m, func(p mgl32.Vec3, n int) { verts[n] = append(verts[n], p) })
	const eps = 1e-5
	for i, w := range want {
		p := d.Parts[i]
		parent := ""
		if p.Parent >= 0 {
			parent = d.Parts[p.Parent].Name
		}
		if p.Name != w.name || p.Part != w.part || parent != w.parent || p.Shape.Kind != w.shape {
			t.Errorf("part %d: %s %v, parent %q, %v; want %s %v, parent %q, %v", i, p.Name, p.Part, parent, p.Shape.Kind, w.name, w.part, w.parent, w.shape)
		}
		// The vertices' extent in the body's frame.
		inv := p.Bind.Inverse()
		lo, hi := mgl32.Vec3{1e9, 1e9, 1e9}, mgl32.Vec3{-1e9, -1e9, -1e9}
		for _, v := range verts[p.Bone] {
			l := inv.Apply(v)
			for k := range 3 {
				lo[k], hi[k] = min(lo[k], l[k]), max(hi[k], l[k])
			}
		}
		var ext mgl32.Vec3 // the shape's half extent along the body's axes
		switch p.Shape.Kind {
		case physics.Capsule:
			ext = mgl32.Vec3{p.Shape.Radius, p.Shape.HalfHeight + p.Shape.Radius, p.Shape.Radius}
		case physics.Box:
			ext = p.Shape.HalfExtents
		}
		for k := range 3 {
			if -ext[k] < lo[k]-eps || ext[k] > hi[k]+eps {
				t.Errorf("%s: the shape spans ±%v along axis %d, beyond its vertices' [%v, %v]", p.Name, ext[k], k, lo[k], hi[k])
			}
		}
		// Along the bone (Y) it fills the vertices' extent.
		if ext[1] < (hi[1]-lo[1])/2-eps {
			t.Errorf("%s: the shape's half length %v is short of the vertices' %v", p.Name, ext[1], (hi[1]-lo[1])/2)
		}
		if p.Parent < 0 {
			if p.Joint.Kind != 0 {
				t.Errorf("%s: the root has a joint", p.Name)
			}
			continue
		}
		// The joint: anchors and frames coincide at the bind pose, at the
		// child's bone origin.
		a, j := d.Parts[p.Parent], p.Joint
		origin := bindOrigin(t, m, p.Bone)
		if g := dist(a.Bind.Apply(j.AnchorA), origin) + dist(p.Bind.Apply(j.AnchorB), origin); g > 1e-5 {
			t.Errorf("%s: the anchors are %v from the bone's origin %v", p.Name, g, origin)
		}
		if g := dist(geom.Rotate(a.Bind.Rot, j.AxisA), geom.Rotate(p.Bind.Rot, j.AxisB)) + dist(geom.Rotate(a.Bind.Rot, j.NormalA), geom.Rotate(p.Bind.Rot, j.NormalB)); g > 1e-5 {
			t.Errorf("%s: the frames differ by %v at bind", p.Name, g)
		}
		l := DefaultJoint(p.Part)
		if j.Kind != l.Kind || j.Lower != l.Lower || j.Upper != l.Upper || j.SwingLimit != l.Swing || !j.Limits || j.CollideConnected {
			t.Errorf("%s: joint %v limits %v [%v, %v] swing %v, want %v", p.Name, j.Kind, j.Limits, j.Lower, j.Upper, j.SwingLimit, l)
		}
	}
	// The knees bend backward and the elbows forward: a positive turn
	// about the axis carries the lower limb's far end (down, -Y) to -Z
	// (knee) or +Z (elbow).
	for i, p := range d.Parts {
		if p.Joint.Kind != physics.JointRevolute {
			continue
		}
		axis := geom.Rotate(d.Parts[p.Parent].Bind.Rot, p.Joint.AxisA)
		dz := cross(axis, mgl32.Vec3{0, -1, 0})[2] // the far end's motion for a small positive turn
		if p.Part == PartShin && dz >= 0 || p.Part == PartForearm && dz <= 0 {
			t.Errorf("part %d %s: a positive turn moves its end by %v along z", i, p.Name, dz)
		}
	}
	// The hips node, with no body, follows the spine's.
	if f := d.follow[modelgen.BoneHips]; f != 0 {
		t.Errorf("the hips follow %d, want the spine's body 0", f)
	}
}

func dist(a, b mgl32.Vec3) float32 { return length(sub(a, b)) }

// bindOrigin returns node n's origin in the model's space at bind.
func bindOrigin(t *testing.T, m *model.Model, n int) mgl32.Vec3 {
	for _, j := range m.Palette {
		if j.Node == n {
			inv, ok := invertAffine(&j.InverseBind)
			if !ok {
				t.Fatalf("node %d: the inverse bind matrix does not invert", n)
			}
			return inv.Pos
		}
	}
	t.Fatalf("node %d is no joint", n)
	return mgl32.Vec3{}
}

func TestClassifyBone(t *testing.T) {
	for _, c := range []struct {
		name string
		part Part
	}{
		{"mixamorig:Hips", PartPelvis}, {"mixamorig:Spine", PartSpine}, {"mixamorig:Spine1", PartSpine},
		{"mixamorig:Spine2", PartSpine}, {"mixamorig:Neck", PartNeck}, {"mixamorig:Head", PartHead},
		{"mixamorig:LeftArm", PartUpperArm}, {"mixamorig:LeftForeArm", PartForearm}, {"mixamorig:LeftHand", PartHand},
		{"mixamorig:RightUpLeg", PartThigh}, {"mixamorig:RightLeg", PartShin}, {"mixamorig:RightFoot", PartFoot},
		{"upperarm.L", PartUpperArm}, {"forearm.R", PartForearm}, {"thigh.L", PartThigh}, {"shin.R", PartShin},
		{"upper_arm.L", PartUpperArm}, {"lowerarm_r", PartForearm}, {"calf_l", PartShin}, {"pelvis", PartPelvis},
		{"Armature|hips", PartPelvis}, {"l_thigh", PartThigh},
		{"mixamorig:LeftShoulder", 0}, {"mixamorig:LeftHandThumb1", 0}, {"mixamorig:HeadTop_End", 0},
		{"mixamorig:LeftToeBase", 0}, {"figure", 0}, {"", 0}, {"Left", 0},
	} {
		p, ok := ClassifyBone(c.name)
		if p != c.part || ok != (c.part != 0) {
			t.Errorf("ClassifyBone(%q) = %v, %v; want %v", c.name, p, ok, c.part)
		}
	}
}

// Build's errors name the bone and what is wrong with it.
func TestBuildErrors(t *testing.T) {
	m := figure(t)
	bm := func(bone string, p Part) BoneMapping { return BoneMapping{Bone: bone, Part: p} }
	for _, c := range []struct {
		name string
		mp   Mapping
		want string
	}{
		{"empty", Mapping{}, "the mapping has no bones"},
		{"unknown bone", Mapping{Bones: []BoneMapping{bm("spine", PartSpine), bm("tail", PartSpine)}}, `bone "tail" is not a node of the model`},
		{"not a joint", Mapping{Bones: []BoneMapping{bm("figure", PartSpine)}}, `bone "figure" is not a joint of the model's skin`},
		{"twice", Mapping{Bones: []BoneMapping{bm("spine", PartSpine), bm("spine", PartHead)}}, `bone "spine" is mapped twice`},
		{"no vertices", Mapping{Bones: []BoneMapping{bm("hips", PartPelvis), bm("spine", PartSpine)}}, `bone "hips": no vertex is skinned mostly to it`},
		{"bad limits", Mapping{Bones: []BoneMapping{bm("spine", PartSpine), {Bone: "head", Part: PartHead, Joint: Limits{Kind: physics.JointRevolute, Lower: 0.2, Upper: 1}}}}, `bone "head": the limits must have`},
		{"bad cone", Mapping{Bones: []BoneMapping{bm("spine", PartSpine), {Bone: "head", Part: PartHead, Joint: Limits{Kind: physics.JointSpherical, Swing: 4}}}}, `bone "head": the swing cone must be in (0, π) rad`},
		{"bad shape", Mapping{Bones: []BoneMapping{{Bone: "spine", Part: PartSpine, Shape: physics.Sphere}}}, `bone "spine": the shape must be a capsule or a box`},
		{"bad part", Mapping{Bones: []BoneMapping{bm("spine", 0)}}, `bone "spine": the part 0 is unknown`},
	} {
		_, err := Build(m, c.mp)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "ragdoll: Build(figure): ") {
			t.Errorf("%s: got %v, want an error with %q", c.name, err, c.want)
		}
	}
	// A mapping of the figure's own: the legs alone, a shape forced.
	d, err := Build(m, Mapping{Bones: []BoneMapping{
		{Bone: "thigh.L", Part: PartPelvis, Shape: physics.Box},
		{Bone: "shin.L", Part: PartShin, Joint: Limits{Kind: physics.JointRevolute, Lower: -0.1, Upper: 1, Bend: BendBackward}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Parts) != 2 || d.Parts[0].Shape.Kind != physics.Box || d.Parts[1].Joint.Lower != -0.1 || d.Parts[1].Joint.Upper != 1 {
		t.Errorf("the legs' ragdoll: %+v", d.Parts)
	}
}
