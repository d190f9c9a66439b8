package ragdoll

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/nebulaengine/nebula/engine/physics"
)

// MappingFormat is the format string a mapping file starts with.
const MappingFormat = "nebula-ragdoll/1"

// MaxMappingSize is the largest mapping file ParseMapping reads, in
// bytes.
const MaxMappingSize = 1 << 20

// fileMapping and fileBone are a mapping file's JSON.
type fileMapping struct {
	Format *string    `json:"format"`
	Bones  []fileBone `json:"bones"`
}

type fileBone struct {
	Bone   *string    `json:"bone"`
	Part   *string    `json:"part"`
	Joint  *string    `json:"joint"`
	Swing  *float64   `json:"swing"`
	Limits *[]float64 `json:"limits"`
	Bend   *string    `json:"bend"`
	Shape  *string    `json:"shape"`
}

// ParseMapping reads a mapping file: JSON naming, for each bone of a
// model's own that becomes a body, which part it is and, optionally, its
// joint and shape:
//
//	{
//	  "format": "nebula-ragdoll/1",
//	  "bones": [
//	    {"bone": "Bip01 Pelvis", "part": "pelvis", "shape": "box"},
//	    {"bone": "Bip01 L Thigh", "part": "thigh", "swing": 1.0, "limits": [-0.4, 0.4]},
//	    {"bone": "Bip01 L Calf", "part": "shin"},
//	    {"bone": "Bip01 L UpperArm", "part": "upper_arm", "joint": "spherical", "swing": 1.5},
//	    {"bone": "Bip01 L Forearm", "part": "forearm", "joint": "revolute", "limits": [0, 2.6], "bend": "forward"}
//	  ]
//	}
//
// "part" is one of pelvis, spine, neck, head, upper_arm, forearm, hand,
// thigh, shin, foot; "joint" spherical, revolute or fixed (default: the
// part's, DefaultJoint); "swing" a spherical joint's cone in radians;
// "limits" [lower, upper] in radians, a spherical joint's twist or a
// revolute joint's angle (−π < lower <= 0 <= upper < π); "bend" forward
// or backward (a revolute joint's); "shape" capsule or box. What a bone
// does not say is the part's default when the joint's kind is the
// part's, else the kind's (spherical: a 0.5 rad cone and ±0.3 rad of
// twist; revolute: 0 to 1.5 rad, forward). Unknown fields, a bone named
// twice, a value out of range or given to a joint that has none, and
// anything after the object are errors, each naming the bone entry and
// the field; so is a file over MaxMappingSize bytes. Whether the bones
// exist is Build's to check.
func ParseMapping(data []byte) (Mapping, error) {
	if len(data) > MaxMappingSize {
		return Mapping{}, fmt.Errorf("ragdoll: mapping: %d bytes, at most %d", len(data), MaxMappingSize)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f fileMapping
	if err := dec.Decode(&f); err != nil {
		return Mapping{}, fmt.Errorf("ragdoll: mapping: %w", jsonError(err, dec))
	}
	if _, err := dec.Token(); err != io.EOF {
		return Mapping{}, fmt.Errorf("ragdoll: mapping: data after the mapping's object at byte %d", dec.InputOffset())
	}
	switch {
	case f.Format == nil:
		return Mapping{}, fmt.Errorf("ragdoll: mapping: no \"format\" (want %q)", MappingFormat)
	case *f.Format != MappingFormat:
		return Mapping{}, fmt.Errorf("ragdoll: mapping: format %q, want %q", *f.Format, MappingFormat)
	case len(f.Bones) == 0:
		return Mapping{}, errors.New("ragdoll: mapping: no bones")
	case len(f.Bones) > MaxParts:
		return Mapping{}, fmt.Errorf("ragdoll: mapping: %d bones, at most %d", len(f.Bones), MaxParts)
	}
	var mp Mapping
	seen := make(map[string]int, len(f.Bones))
	for i, fb := range f.Bones {
		b, err := fb.mapping()
		if err != nil {
			name := ""
			if fb.Bone != nil {
				name = fmt.Sprintf(" (%q)", *fb.Bone)
			}
			return Mapping{}, fmt.Errorf("ragdoll: mapping: bones[%d]%s: %w", i, name, err)
		}
		if j, ok := seen[b.Bone]; ok {
			return Mapping{}, fmt.Errorf("ragdoll: mapping: bones[%d] (%q): the bone is bones[%d] already", i, b.Bone, j)
		}
		seen[b.Bone] = i
		mp.Bones = append(mp.Bones, b)
	}
	return mp, nil
}

// jsonError adds where a JSON error happened, when the error does not say.
//
//srccheck:wrapped by ParseMapping, as "ragdoll: mapping: ..."
func jsonError(err error, dec *json.Decoder) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Errorf("at byte %d: %w", syn.Offset, err)
	case errors.As(err, &typ):
		return fmt.Errorf("at byte %d: %w", typ.Offset, err)
	case err == io.EOF:
		return errors.New("empty: want a JSON object")
	}
	return fmt.Errorf("near byte %d: %w", dec.InputOffset(), err)
}

// mapping checks one bone entry and makes it a BoneMapping.
//
//srccheck:wrapped by ParseMapping, as "ragdoll: mapping: bones[i]: ..."
func (fb *fileBone) mapping() (BoneMapping, error) {
	var b BoneMapping
	switch {
	case fb.Bone == nil:
		return b, errors.New("no \"bone\"")
	case *fb.Bone == "":
		return b, errors.New("\"bone\" is empty")
	case fb.Part == nil:
		return b, errors.New("no \"part\"")
	}
	b.Bone = *fb.Bone
	p, ok := partByName(*fb.Part)
	if !ok {
		return b, fmt.Errorf("\"part\" %q is unknown (want one of %s)", *fb.Part, partNames())
	}
	b.Part = p
	l := DefaultJoint(p)
	if fb.Joint != nil {
		var k physics.JointKind
		switch *fb.Joint {
		case "spherical":
			k = physics.JointSpherical
		case "revolute":
			k = physics.JointRevolute
		case "fixed":
			k = physics.JointFixed
		default:
			return b, fmt.Errorf("\"joint\" %q is unknown (want spherical, revolute or fixed)", *fb.Joint)
		}
		if k != l.Kind {
			l = kindDefault(k)
		}
	}
	if fb.Swing != nil {
		if l.Kind != physics.JointSpherical {
			return b, fmt.Errorf("\"swing\": a %v joint has no swing cone", l.Kind)
		}
		s := *fb.Swing
		if !(s > 0 && s < math.Pi) {
			return b, fmt.Errorf("\"swing\" %v is out of range (want 0 < swing < π)", s)
		}
		l.Swing = float32(s)
	}
	if fb.Limits != nil {
		if l.Kind == physics.JointFixed {
			return b, errors.New("\"limits\": a fixed joint has no limits")
		}
		if len(*fb.Limits) != 2 {
			return b, fmt.Errorf("\"limits\" has %d numbers, want 2 ([lower, upper])", len(*fb.Limits))
		}
		lo, hi := (*fb.Limits)[0], (*fb.Limits)[1]
		if !(lo > -math.Pi && lo <= 0 && hi >= 0 && hi < math.Pi && lo < hi) {
			return b, fmt.Errorf("\"limits\" [%v, %v] are out of range (want −π < lower <= 0 <= upper < π, lower < upper)", lo, hi)
		}
		l.Lower, l.Upper = float32(lo), float32(hi)
		if l.Lower >= l.Upper { // two values a float32 cannot tell apart
			return b, fmt.Errorf("\"limits\" [%v, %v] are the same in float32", lo, hi)
		}
	}
	if fb.Bend != nil {
		if l.Kind != physics.JointRevolute {
			return b, fmt.Errorf("\"bend\": a %v joint does not bend one way (revolute joints do)", l.Kind)
		}
		switch *fb.Bend {
		case "forward":
			l.Bend = BendForward
		case "backward":
			l.Bend = BendBackward
		default:
			return b, fmt.Errorf("\"bend\" %q is unknown (want forward or backward)", *fb.Bend)
		}
	}
	b.Joint = l
	if fb.Shape != nil {
		switch *fb.Shape {
		case "capsule":
			b.Shape = physics.Capsule
		case "box":
			b.Shape = physics.Box
		default:
			return b, fmt.Errorf("\"shape\" %q is unknown (want capsule or box)", *fb.Shape)
		}
	}
	return b, nil
}

// kindDefault returns the default limits of a joint of kind k for a part
// whose own default joint is of another kind.
func kindDefault(k physics.JointKind) Limits {
	switch k {
	case physics.JointRevolute:
		return Limits{Kind: k, Lower: 0, Upper: 1.5, Bend: BendForward}
	case physics.JointSpherical:
		return Limits{Kind: k, Swing: 0.5, Lower: -0.3, Upper: 0.3}
	}
	return Limits{Kind: k}
}
