// Package ragdoll makes ragdolls from skinned models and switches a
// character between its animation and its ragdoll, under the fixed step.
//
// # Building a ragdoll
//
// Build makes a model's ragdoll (a Def) from a Mapping: which bones get a
// body, which part of a body each is (Part), and how it is joined to its
// parent's body (Limits). Each mapped bone gets one capsule (a long round
// bone) or box, sized from the vertices skinned mostly to it (their
// largest weight is the bone's) and placed along it: its Y axis runs from
// the bone's origin towards its child bone (or its vertices), its Z axis
// towards the model's front (glTF's +Z). Each body is joined to the body
// of its nearest mapped ancestor, at the bone's origin, with the joint
// the part suits (DefaultJoint): a knee (PartShin) and an elbow
// (PartForearm) are revolute joints that bend one way, backward and
// forward, from straight to 2.4 rad; hips and shoulders are spherical
// with a swing cone and twist limits; the spine, neck and head spherical
// with small cones. The joints' rest pose is the bind pose. A bone above
// the mapped ones (a hips bone with no vertices of its own) follows the
// body of its first mapped descendant.
//
// DefaultMapping maps bones by their names (ClassifyBone: Mixamo's
// "mixamorig:LeftUpLeg", Blender's "thigh.L", the demo figure's); a
// model with names of its own gets a mapping file, read by ParseMapping:
//
//	{"format": "nebula-ragdoll/1", "bones": [
//	  {"bone": "Bip01 Pelvis", "part": "pelvis"},
//	  {"bone": "Bip01 L Calf", "part": "shin", "limits": [0, 2.2]}
//	]}
//
// # Switching
//
// Ragdolls owns the "ragdoll" component (Ragdoll: the phase, the bodies
// and joints, the pose kept for the blend back) and the "ragdoll part"
// component of the bodies and joints (PartOf), so snapshots, the state
// hash, replays and rollback carry a fall like everything else. Set-up:
//
//	anims := anim.New(e.World)
//	rags := ragdoll.New(space, anims)                 // registers its components
//	def, err := ragdoll.Build(m, ragdoll.DefaultMapping(m))
//	err = rags.SetDef(meshHero, def, ragdoll.DefaultOptions())
//	err = rags.Add(hero)                              // the hero entity, drawn with meshHero
//	e.AddSystem(engine.StageScripts, "anim", anims.Advance)
//	e.AddStage("ragdoll", engine.Before(engine.StagePhysics))
//	e.AddSystem("ragdoll", "ragdoll", rags.Update)
//	e.AddRender("pose", anims.Pose)
//	e.AddRender("ragdoll", rags.Pose)                 // after the animation's
//
// Then, in a fixed system after the physics step: Start(hero) when it is
// hit, StandUp(hero, ticks) when it should get up. Start places each body
// at its bone's world transform in the animation's pose at the end of
// that tick, with the velocity and angular velocity the bone had over the
// tick (from the animator's previous and current clip times and the
// entity's previous and current transforms): the ragdoll takes over where
// the animation left off. While the character is Falling the renderer
// draws its skin from the bodies (Pose); StandUp keeps the pose the
// bodies have, seen from the entity, and blends from it to the animation,
// bone by bone (anim.Blend), over the given ticks. With Options.Hitboxes
// the bodies exist while the character is animated too, as kinematic
// bodies following its pose, so shots hit it and it pushes what it
// walks into.
//
// Every number that enters the simulation (the bodies' sizes, frames,
// joints, poses and velocities) is computed with each product rounded
// (internal/detcheck checks the package), so a ragdoll is the same bits
// on every build.
//
// # Limits
//
//   - At most MaxParts bodies a ragdoll.
//   - Bones are rigid transforms with a uniform scale; a character is a
//     root entity drawn at a uniform scale, which scales its bodies.
//   - Ragdolls of one character do not collide with each other's joined
//     parent and child (physics.JointDef.CollideConnected is false); other
//     parts do.
package ragdoll
