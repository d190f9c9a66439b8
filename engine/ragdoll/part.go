package ragdoll

import (
	"math"
	"strings"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine/model"
	"github.com/nebulaengine/nebula/engine/physics"
)

// Part says which body of a human figure a bone is, which decides its
// joint to its parent's body and that joint's default limits
// (DefaultJoint).
type Part uint8

//go:generate go run golang.org/x/tools/cmd/stringer@v0.52.0 -type=Part -linecomment

// The parts of a ragdoll.
const (
	// PartPelvis is the hips: usually the root body.
	PartPelvis Part = iota + 1 // pelvis
	// PartSpine is a bone of the spine or the chest: a spherical joint
	// with a small cone.
	PartSpine // spine
	// PartNeck is the neck: a spherical joint with a small cone.
	PartNeck // neck
	// PartHead is the head: a spherical joint with a small cone.
	PartHead // head
	// PartUpperArm is an upper arm: a spherical joint (the shoulder) with
	// a wide cone and twist limits.
	PartUpperArm // upper_arm
	// PartForearm is a forearm: a revolute joint (the elbow) that bends
	// forward only.
	PartForearm // forearm
	// PartHand is a hand: a spherical joint (the wrist).
	PartHand // hand
	// PartThigh is a thigh: a spherical joint (the hip) with a cone and
	// twist limits.
	PartThigh // thigh
	// PartShin is a shin: a revolute joint (the knee) that bends backward
	// only.
	PartShin // shin
	// PartFoot is a foot: a spherical joint (the ankle) with a small cone.
	PartFoot // foot
)

// lastPart is the highest Part.
const lastPart = PartFoot

// partByName is the mapping file's name of each part.
func partByName(s string) (Part, bool) {
	for p := PartPelvis; p <= lastPart; p++ {
		if p.String() == s {
			return p, true
		}
	}
	return 0, false
}

// partNames lists the parts' names, for messages.
func partNames() string {
	var b strings.Builder
	for p := PartPelvis; p <= lastPart; p++ {
		if p > PartPelvis {
			b.WriteString(", ")
		}
		b.WriteString(p.String())
	}
	return b.String()
}

// Limits is how a part's body is joined to its parent's: the joint's
// kind and its limits, in radians.
//
// A spherical joint's twist axis is the child bone's direction at rest
// (from the joint towards the bone's far end): Swing is the cone about
// it (how far the bone may lean from its rest direction, relative to its
// parent) and [Lower, Upper] its twist about its own length. A revolute
// joint turns about the axis across the bone that bends it forward (an
// elbow: Bend BendForward) or backward (a knee: BendBackward); [Lower,
// Upper] is its angle from the rest pose, positive the way it bends. A
// fixed joint holds the two bodies together.
type Limits struct {
	Kind physics.JointKind // JointSpherical, JointRevolute or JointFixed
	// Swing is a spherical joint's cone (0 < Swing < π).
	Swing float32
	// Lower and Upper bound a spherical joint's twist or a revolute
	// joint's angle (−π < Lower <= 0 <= Upper < π, Lower < Upper).
	Lower, Upper float32
	// Bend is the way a revolute joint bends (BendForward or
	// BendBackward).
	Bend Bend
}

// Bend is the way a revolute joint bends from its rest pose.
type Bend uint8

// The ways a revolute joint bends.
const (
	// BendForward bends the bone towards the model's front (+Z): an
	// elbow.
	BendForward Bend = iota
	// BendBackward bends the bone towards the model's back: a knee.
	BendBackward
)

// DefaultJoint returns the joint a part has to its parent by default:
// spherical with a small cone for the spine, neck, head and the wrists
// and ankles; spherical with a wide cone and twist limits for the
// shoulders and hips; revolute for the elbows (forward, 0 to 2.4 rad)
// and knees (backward, 0 to 2.4 rad). The pelvis, usually the root, has
// a spine's.
func DefaultJoint(p Part) Limits {
	sph := func(swing, twist float32) Limits {
		return Limits{Kind: physics.JointSpherical, Swing: swing, Lower: -twist, Upper: twist}
	}
	switch p {
	case PartUpperArm:
		return sph(1.4, 1.0)
	case PartForearm:
		return Limits{Kind: physics.JointRevolute, Lower: 0, Upper: 2.4, Bend: BendForward}
	case PartHand:
		return sph(0.9, 0.4)
	case PartThigh:
		return sph(1.2, 0.5)
	case PartShin:
		return Limits{Kind: physics.JointRevolute, Lower: 0, Upper: 2.4, Bend: BendBackward}
	case PartFoot:
		return sph(0.5, 0.2)
	case PartNeck, PartHead:
		return sph(0.6, 0.6)
	default: // pelvis, spine
		return sph(0.35, 0.3)
	}
}

// check reports what is wrong with l, for a message, or "".
func (l Limits) check() string {
	switch l.Kind {
	case physics.JointFixed:
		return ""
	case physics.JointSpherical:
		if !(l.Swing > 0 && l.Swing < math.Pi) {
			return "the swing cone must be in (0, π) rad"
		}
	case physics.JointRevolute:
		if l.Bend > BendBackward {
			return "the bend is unknown"
		}
	default:
		return "the joint must be spherical, revolute or fixed"
	}
	if !(l.Lower > -math.Pi && l.Lower <= 0 && l.Upper >= 0 && l.Upper < math.Pi && l.Lower < l.Upper) {
		return "the limits must have −π < lower <= 0 <= upper < π and lower < upper"
	}
	return ""
}

// Mapping says which bones of a model become bodies of its ragdoll, and
// how each is joined to its parent's body. DefaultMapping makes one from
// common bone names; ParseMapping reads one from a file.
type Mapping struct {
	Bones []BoneMapping // the bones that get a body, in any order
}

// BoneMapping maps one bone of a model to a body of its ragdoll.
type BoneMapping struct {
	// Bone is the bone's node name in the model.
	Bone string
	// Part is which body it is.
	Part Part
	// Joint is its joint to its parent's body; the zero value is the
	// part's DefaultJoint.
	Joint Limits
	// Shape is its body's shape, physics.Capsule or physics.Box; 0 lets
	// Build choose from the bone's vertices (a capsule for a long round
	// bone, else a box).
	Shape physics.ShapeKind
}

// ClassifyBone returns the part a bone of this name is by the common
// naming conventions, and whether it is one: Mixamo's
// ("mixamorig:LeftUpLeg"), Blender's rigs ("thigh.L", "forearm_r",
// "upper_arm.R"), and the names of the demo's figure. The name is
// lower-cased, a namespace prefix ("mixamorig:") and a side ("Left",
// "Right", ".L", "_r", "l_", ...) are dropped, then every character that
// is not a letter, so "Spine2" is a spine bone. Clavicles, fingers, toes
// and end bones are no part.
func ClassifyBone(name string) (Part, bool) {
	s := strings.ToLower(name)
	if i := strings.LastIndexAny(s, ":|"); i >= 0 {
		s = s[i+1:]
	}
	for _, p := range []string{"left", "right", "l_", "r_", "l.", "r.", "l-", "r-"} {
		if t, ok := strings.CutPrefix(s, p); ok && t != "" {
			s = t
			break
		}
	}
	for _, p := range []string{"left", "right", "_l", "_r", ".l", ".r", "-l", "-r", " l", " r"} {
		if t, ok := strings.CutSuffix(s, p); ok && t != "" {
			s = t
			break
		}
	}
	var b strings.Builder
	for _, r := range s {
		if r >= 'a' && r <= 'z' {
			b.WriteRune(r)
		}
	}
	switch b.String() {
	case "hips", "hip", "pelvis":
		return PartPelvis, true
	case "spine", "chest", "upperchest", "torso", "abdomen":
		return PartSpine, true
	case "neck":
		return PartNeck, true
	case "head":
		return PartHead, true
	case "upperarm", "arm":
		return PartUpperArm, true
	case "forearm", "lowerarm":
		return PartForearm, true
	case "hand", "wrist":
		return PartHand, true
	case "thigh", "upleg", "upperleg":
		return PartThigh, true
	case "shin", "leg", "lowerleg", "calf":
		return PartShin, true
	case "foot", "ankle":
		return PartFoot, true
	}
	return 0, false
}

// DefaultMapping maps every bone of m whose name ClassifyBone knows and
// that some vertex is skinned mostly to (a hips bone may have none) to
// its part, with the part's default joint, in node order.
func DefaultMapping(m *model.Model) Mapping {
	skinned := make([]bool, len(m.Nodes))
	dominant(m, func(_ mgl32.Vec3, n int) { skinned[n] = true })
	var mp Mapping
	for i, n := range m.Nodes {
		if !skinned[i] {
			continue
		}
		if p, ok := ClassifyBone(n.Name); ok {
			mp.Bones = append(mp.Bones, BoneMapping{Bone: n.Name, Part: p})
		}
	}
	return mp
}
