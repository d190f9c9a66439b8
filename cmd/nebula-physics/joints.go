package main

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/geom"
	"github.com/nebulaengine/nebula/engine/physics"
	"github.com/nebulaengine/nebula/engine/physics/scene"
)

// addJoints makes the joints of sc, in file order, after every body: one
// entity each, made a joint of the Space between the entities of its two
// bodies.
func (s *sim) addJoints(sc *scene.Scene) error {
	s.joints = sc.Joints
	s.jointRecords = make([]scene.JointRecord, 0, len(sc.Joints)) // no allocation while stepping
	w := s.engine.World
	for i := range sc.Joints {
		j := &sc.Joints[i]
		e := w.Spawn(geom.NewTransform(mgl32.Vec3{}), engine.Interpolate)
		if err := s.space.AddJoint(e, jointDef(j, s.entities[j.A], s.entities[j.B])); err != nil {
			return fmt.Errorf("joints[%d] (id %q): %w", i, j.ID, err)
		}
	}
	return nil
}

// jointDef returns the physics joint of a scene's joint between the
// entities a and b. Both say anchors and frames in the body's own
// coordinates, relative to its centre of mass, which is the entity's
// position; the numbers are rounded to float32.
func jointDef(j *scene.Joint, a, b engine.Entity) physics.JointDef {
	d := physics.NewJointDef(jointKind(j.Type), a, b)
	d.AnchorA, d.AnchorB = vec3(j.AnchorA), vec3(j.AnchorB)
	switch j.Type {
	case scene.JointFixed, scene.JointRevolute, scene.JointPrismatic:
		d.AxisA, d.NormalA = vec3(j.AxisA), vec3(j.NormalA)
		d.AxisB, d.NormalB = vec3(j.AxisB), vec3(j.NormalB)
	}
	if j.Limits != nil {
		d.Limits, d.Lower, d.Upper = true, float32(j.Limits[0]), float32(j.Limits[1])
	}
	if j.Motor != nil {
		d.Motor, d.MotorSpeed, d.MaxMotorForce = true, float32(j.Motor.TargetVelocity), float32(j.Motor.MaxForce)
	}
	if j.Type == scene.JointDistance {
		// A rope: at most Length apart, no push (MinLength 0); with a
		// spring, its rest length.
		d.MaxLength = float32(j.Length)
		if j.Spring != nil {
			d.Spring, d.Stiffness, d.Damping = true, float32(j.Spring.Stiffness), float32(j.Spring.Damping)
		}
	}
	d.CollideConnected = j.CollideConnected
	return d
}

// jointKind returns the physics kind of a scene's joint type.
func jointKind(t scene.JointType) physics.JointKind {
	switch t {
	case scene.JointFixed:
		return physics.JointFixed
	case scene.JointSpherical:
		return physics.JointSpherical
	case scene.JointRevolute:
		return physics.JointRevolute
	case scene.JointPrismatic:
		return physics.JointPrismatic
	}
	return physics.JointDistance
}

// pose returns the position and rotation of the scene's body i as the
// world holds them, widened to float64: what the joint records measure.
func (s *sim) pose(i int) scene.Pose {
	wb := s.engine.World.Bodies()
	k := s.entities[i].Index()
	p, q := wb.Pos[k], wb.Rot[k]
	return scene.Pose{
		Position: [3]float64{float64(p[0]), float64(p[1]), float64(p[2])},
		Rotation: [4]float64{float64(q.V[0]), float64(q.V[1]), float64(q.V[2]), float64(q.W)},
	}
}

// measureJoints returns the record of every joint in the current state, in
// scene order, in dst's memory.
func (s *sim) measureJoints(dst []scene.JointRecord) []scene.JointRecord {
	dst = dst[:0]
	for i := range s.joints {
		j := &s.joints[i]
		dst = append(dst, j.Measure(s.pose(j.A), s.pose(j.B)))
	}
	return dst
}

// sampleJoints measures the joints after a step, for the peaks of the
// result's joint errors.
func (s *sim) sampleJoints() {
	s.jointRecords = s.measureJoints(s.jointRecords)
	s.tracker.Sample(s.jointRecords)
}

// jointResult puts the joints' records after the last step and the
// summary of their errors into r, when the scene has joints.
func (s *sim) jointResult(r *scene.Result) {
	if len(s.joints) == 0 {
		return
	}
	r.Joints = s.measureJoints(nil)
	sum := s.tracker.Summary(r.Joints)
	r.JointErrors = &sum
}
