package ragdoll

import (
	"strings"
	"testing"

	"github.com/nebulaengine/nebula/engine/physics"
)

func TestParseMapping(t *testing.T) {
	mp, err := ParseMapping([]byte(`{
	  "format": "nebula-ragdoll/1",
	  "bones": [
	    {"bone": "spine", "part": "spine", "shape": "box"},
	    {"bone": "head", "part": "head", "swing": 0.3, "limits": [-0.2, 0.25]},
	    {"bone": "thigh.L", "part": "thigh"},
	    {"bone": "shin.L", "part": "shin", "limits": [-0.05, 2]},
	    {"bone": "upperarm.L", "part": "upper_arm", "joint": "revolute", "bend": "backward"},
	    {"bone": "forearm.L", "part": "forearm", "joint": "fixed"}
	  ]
	}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []BoneMapping{
		{Bone: "spine", Part: PartSpine, Joint: DefaultJoint(PartSpine), Shape: physics.Box},
		{Bone: "head", Part: PartHead, Joint: Limits{Kind: physics.JointSpherical, Swing: 0.3, Lower: -0.2, Upper: 0.25}},
		{Bone: "thigh.L", Part: PartThigh, Joint: DefaultJoint(PartThigh)},
		{Bone: "shin.L", Part: PartShin, Joint: Limits{Kind: physics.JointRevolute, Lower: -0.05, Upper: 2, Bend: BendBackward}},
		{Bone: "upperarm.L", Part: PartUpperArm, Joint: Limits{Kind: physics.JointRevolute, Lower: 0, Upper: 1.5, Bend: BendBackward}},
		{Bone: "forearm.L", Part: PartForearm, Joint: Limits{Kind: physics.JointFixed}},
	}
	if len(mp.Bones) != len(want) {
		t.Fatalf("%d bones, want %d", len(mp.Bones), len(want))
	}
	for i := range want {
		if mp.Bones[i] != want[i] {
			t.Errorf("bone %d: %+v, want %+v", i, mp.Bones[i], want[i])
		}
	}
	// The figure builds from it.
	m := figure(t)
	d, err := Build(m, mp)
	if err != nil {
		t.Fatal(err)
	}
	if d.Parts[3].Name != "forearm.L" || d.Parts[3].Joint.Kind != physics.JointFixed || d.Parts[0].Shape.Kind != physics.Box {
		t.Errorf("built: %+v", d.Parts)
	}
}

// A mapping file's errors: one line naming the entry and the field.
func TestParseMappingErrors(t *testing.T) {
	const f = `"format": "nebula-ragdoll/1", `
	for _, c := range []struct{ in, want string }{
		{``, "ragdoll: mapping: empty: want a JSON object"},
		{`[]`, "ragdoll: mapping: at byte 1: json: cannot unmarshal array"},
		{`{"format": "nebula-ragdoll/1", "bones": [{"bone": "a", "part": "head"}]} {}`, "ragdoll: mapping: data after the mapping's object at byte"},
		{`{"bones": [{"bone": "a", "part": "head"}]}`, `ragdoll: mapping: no "format" (want "nebula-ragdoll/1")`},
		{`{"format": "nebula-ragdoll/2", "bones": []}`, `ragdoll: mapping: format "nebula-ragdoll/2", want "nebula-ragdoll/1"`},
		{`{` + f + `"bones": []}`, "ragdoll: mapping: no bones"},
		{`{` + f + `"bones": [{"bone": "a", "part": "head"}], "extra": 1}`, `ragdoll: mapping: near byte`},
		{`{` + f + `"bones": [{"part": "head"}]}`, `ragdoll: mapping: bones[0]: no "bone"`},
		{`{` + f + `"bones": [{"bone": "", "part": "head"}]}`, `ragdoll: mapping: bones[0] (""): "bone" is empty`},
		{`{` + f + `"bones": [{"bone": "a"}]}`, `ragdoll: mapping: bones[0] ("a"): no "part"`},
		{`{` + f + `"bones": [{"bone": "a", "part": "tail"}]}`, `ragdoll: mapping: bones[0] ("a"): "part" "tail" is unknown (want one of pelvis, spine, neck, head, upper_arm, forearm, hand, thigh, shin, foot)`},
		{`{` + f + `"bones": [{"bone": "a", "part": "head", "joint": "ball"}]}`, `"joint" "ball" is unknown (want spherical, revolute or fixed)`},
		{`{` + f + `"bones": [{"bone": "a", "part": "shin", "swing": 0.5}]}`, `bones[0] ("a"): "swing": a revolute joint has no swing cone`},
		{`{` + f + `"bones": [{"bone": "a", "part": "head", "swing": 3.2}]}`, `"swing" 3.2 is out of range (want 0 < swing < π)`},
		{`{` + f + `"bones": [{"bone": "a", "part": "head", "swing": 0}]}`, `"swing" 0 is out of range`},
		{`{` + f + `"bones": [{"bone": "a", "part": "head", "joint": "fixed", "limits": [0, 1]}]}`, `"limits": a fixed joint has no limits`},
		{`{` + f + `"bones": [{"bone": "a", "part": "shin", "limits": [0.1, 1]}]}`, `"limits" [0.1, 1] are out of range`},
		{`{` + f + `"bones": [{"bone": "a", "part": "shin", "limits": [0, 0]}]}`, `"limits" [0, 0] are out of range`},
		{`{` + f + `"bones": [{"bone": "a", "part": "shin", "limits": [0, 1, 2]}]}`, `"limits" has 3 numbers, want 2`},
		{`{` + f + `"bones": [{"bone": "a", "part": "shin", "limits": [-1e-46, 1e-46]}]}`, `are the same in float32`},
		{`{` + f + `"bones": [{"bone": "a", "part": "head", "bend": "forward"}]}`, `"bend": a spherical joint does not bend one way`},
		{`{` + f + `"bones": [{"bone": "a", "part": "shin", "bend": "sideways"}]}`, `"bend" "sideways" is unknown`},
		{`{` + f + `"bones": [{"bone": "a", "part": "shin", "shape": "sphere"}]}`, `"shape" "sphere" is unknown (want capsule or box)`},
		{`{` + f + `"bones": [{"bone": "a", "part": "shin"}, {"bone": "a", "part": "foot"}]}`, `bones[1] ("a"): the bone is bones[0] already`},
		{`{` + f + `"bones": [{"bone": "a", "part": "shin", "limits": "x"}]}`, `json: cannot unmarshal string`},
		{`{` + f + `"bones": [{"bone": 1, "part": "shin"}]}`, `json: cannot unmarshal number`},
		{`{` + f + `"bones": [`, `ragdoll: mapping: `},
	} {
		_, err := ParseMapping([]byte(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "ragdoll: mapping: ") {
			t.Errorf("ParseMapping(%s): %v, want an error with %q", c.in, err, c.want)
		}
	}
	big := make([]byte, MaxMappingSize+1)
	if _, err := ParseMapping(big); err == nil || !strings.Contains(err.Error(), "at most 1048576") {
		t.Errorf("a file over the limit: %v", err)
	}
}

// ParseMapping never panics, and what it accepts Build takes or refuses
// with an error, never a panic.
func FuzzParseMapping(f *testing.F) {
	f.Add([]byte(`{"format": "nebula-ragdoll/1", "bones": [{"bone": "spine", "part": "spine", "shape": "box"}, {"bone": "shin.L", "part": "shin", "limits": [-0.05, 2]}]}`))
	f.Add([]byte(`{"format": "nebula-ragdoll/1", "bones": [{"bone": "head", "part": "head", "joint": "revolute", "bend": "backward", "limits": [-1, 1]}]}`))
	f.Add([]byte(`{"format": "nebula-ragdoll/1", "bones": [{"bone": "thigh.R", "part": "thigh", "swing": 1, "joint": "spherical"}, {"bone": "figure", "part": "foot"}]}`))
	f.Add([]byte(`{"format": 1}`))
	m := figure(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		mp, err := ParseMapping(data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "ragdoll: mapping: ") {
				t.Errorf("error without the prefix: %v", err)
			}
			return
		}
		for _, b := range mp.Bones {
			if b.Bone == "" || b.Part < PartPelvis || b.Part > lastPart || b.Joint.check() != "" {
				t.Errorf("accepted a bad bone: %+v", b)
			}
		}
		if d, err := Build(m, mp); err == nil && len(d.Parts) != len(mp.Bones) {
			t.Errorf("built %d parts from %d bones", len(d.Parts), len(mp.Bones))
		}
	})
}
