package anim

import (
	"fmt"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/geom"
)

// Attachment is the value of the "joint attachment" component: the joint
// of its parent's model an entity follows, and where it sits relative to
// that joint. It is simulated state (hashed, snapshotted, rolled back).
// The layout is 44 bytes without padding.
type Attachment struct {
	// Offset is the entity's transform relative to the joint: a sword's
	// grip in the hand.
	Offset geom.Transform
	// Joint is the index of the joint in the model's Palette.
	Joint uint32
}

// AttachmentName is the name the joint attachment component is
// registered under.
const AttachmentName = "joint attachment"

// Attachments makes entities follow the animated joints of models (a sword
// in a hand): an attached entity is a child (engine.World.SetParent) of
// the entity drawn with the model, and Follow, a fixed system, sets its
// transform every tick to the joint's transform in the model at the end
// of the tick, times the attachment's offset. The world's transform
// propagation then places it in the world with the model's entity, and
// the renderer draws it between ticks like any child: at every tick it is
// exactly at the joint; between ticks its world transform is interpolated
// while the model's pose is blended, which agree to within the curvature
// of the joint's path over one tick.
//
// Set-up, after New and beside the other components:
//
//	anims := anim.New(e.World)
//	joints := anim.NewAttachments(anims)                    // registers "joint attachment"
//	e.AddSystem(engine.StageScripts, "anim", anims.Advance) // first
//	e.AddSystem(engine.StageScripts, "game", game)          // may Play, Attach, Detach
//	if err := e.AddStage("attach", engine.Before(engine.StageTransforms)); err != nil {
//		return err
//	}
//	e.AddSystem("attach", "joints", joints.Follow) // after every system that moves, before propagation
//
// Like Animations, it is not safe for concurrent use.
type Attachments struct {
	a    *Animations
	comp *engine.Component[Attachment]

	// Scratch for Follow: the pose sampled last, for which entity and key.
	pose    LocalPose
	posed   bool
	posedAt int32
	posedBy *rig
	posedK  poseKey
}

// NewAttachments registers the "joint attachment" component with a's world
// and returns the attachments. Call it where the world's other components
// are registered, in the same order in every run.
func NewAttachments(a *Animations) *Attachments {
	return &Attachments{a: a, comp: engine.NewComponent[Attachment](a.w, AttachmentName)}
}

// Component returns the joint attachment component.
func (t *Attachments) Component() *engine.Component[Attachment] { return t.comp }

// Attach makes child follow joint (an index in the model's Palette) of the
// model drawn for figure, offset from it: child becomes figure's child in
// the world's hierarchy (its world transform jumps there, drawn at once),
// and its transform is set to the joint's at the end of the current tick
// times offset, now and by Follow every tick after. It returns an error,
// and changes nothing, when figure's mesh has no model (SetModel), the
// model has no such joint, or SetParent refuses (dead entities, a cycle).
// Call it in fixed code or at set-up.
func (t *Attachments) Attach(child, figure engine.Entity, joint int, offset geom.Transform) error {
	w := t.a.w
	r := t.a.rig(w.Mesh(figure))
	switch {
	case !w.Alive(figure):
		return fmt.Errorf("anim: Attach(%v, %v): the figure %v is not alive", child, figure, figure)
	case r == nil:
		return fmt.Errorf("anim: Attach(%v, %v): the figure's mesh %d has no model (SetModel)", child, figure, w.Mesh(figure))
	case joint < 0 || joint >= len(r.joints):
		return fmt.Errorf("anim: Attach(%v, %v): joint %d, model %q has %d", child, figure, joint, r.m.Name, len(r.joints))
	}
	if err := w.SetParent(child, figure, engine.KeepLocal); err != nil {
		return fmt.Errorf("anim: Attach: %w", err)
	}
	t.comp.Set(child, Attachment{Offset: offset, Joint: uint32(joint)})
	t.posed = false
	t.follow(child.Index())
	return nil
}

// Detach makes child stop following a joint and takes it from its parent
// (engine.World.Unparent with keep: KeepWorld leaves it where it is, a
// dropped sword), and reports whether it was attached.
func (t *Attachments) Detach(child engine.Entity, keep engine.Keep) bool {
	if !t.comp.Remove(child) {
		return false
	}
	t.a.w.Unparent(child, keep)
	return true
}

// Follow is the fixed system that sets every attached entity's transform
// to its joint's transform at the end of the tick, in its parent's model,
// times its offset: the model's pose is sampled from the parent's
// animator (Clip, Time, Loop; the rest pose without one), the same bits
// on every build, once per parent and tick. Add it after the systems that
// call Play, Stop and Attach, before the transform propagation. An
// attached entity that the game took from its parent, or whose parent's
// mesh has lost its model or the joint, keeps its transform.
func (t *Attachments) Follow(c *engine.FixedContext) {
	if c.World != t.a.w {
		panic("anim: Follow: the tick's world is not the one NewAttachments registered the attachments with")
	}
	t.posed = false
	for _, i := range t.comp.Indices() {
		t.follow(int(i))
	}
}

// follow sets the transform of the attached entity in slot i.
func (t *Attachments) follow(i int) {
	w := t.a.w
	child, _ := w.EntityAt(i)
	at, _ := t.comp.Get(child)
	figure, ok := w.Parent(child)
	if !ok {
		return
	}
	r := t.a.rig(w.Mesh(figure))
	if r == nil || int(at.Joint) >= len(r.joints) {
		return
	}
	key := r.key(NoClip, 0, false)
	if an, ok := t.a.comp.Get(figure); ok {
		key = r.key(an.Clip, an.Time, an.Loop)
	}
	pose := &r.rest
	if key.clip != NoClip {
		if !t.posed || t.posedAt != int32(figure.Index()) || t.posedBy != r || t.posedK != key {
			sampleAt(r.m, int(key.clip), key.ns, &t.pose)
			t.posed, t.posedAt, t.posedBy, t.posedK = true, int32(figure.Index()), r, key
		}
		pose = &t.pose
	}
	w.SetTransform(child, jointTransform(r, pose, int(r.joints[at.Joint])).Mul(at.Offset))
}

// jointTransform returns node's transform in the model (its ancestors'
// local transforms composed, from the root down) in pose p.
func jointTransform(r *rig, p *LocalPose, node int) geom.Transform {
	root := node
	for r.parent[root] >= 0 {
		root = int(r.parent[root])
	}
	t := p.Nodes[root]
	// Down from the root: the depth is small (a skeleton's), so walking
	// up from node for each level costs less than keeping a path.
	for root != node {
		next := node
		for int(r.parent[next]) != root {
			next = int(r.parent[next])
		}
		t = t.Mul(p.Nodes[next])
		root = next
	}
	return t
}
