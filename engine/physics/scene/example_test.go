package scene_test

import (
	"fmt"
	"math"
	"os"
	"time"

	"github.com/nebulaengine/nebula/engine/physics/scene"
)

func ExampleParse() {
	sc, err := scene.Parse([]byte(`{"format": "nebula-scene/1", "name": "drop", "hz": 60, "steps": 120,
		"gravity": [0, -9.81, 0], "bodies": [
		{"id": "ball", "kind": "dynamic", "shape": {"type": "sphere", "radius": 0.5}, "position": [0, 3, 0]}]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	b := sc.Bodies[0]
	fmt.Println(sc.Name, sc.Steps, "steps of", 1/sc.Hz, "s")
	fmt.Println(b.ID, b.Kind, b.Shape.Type, b.Rotation, b.Density, b.Friction)

	_, err = scene.Parse([]byte(`{"format": "nebula-scene/1", "name": "x", "hz": 60, "steps": 1, "gravity": [0, 0, 0],
		"bodies": [{"id": "ball", "kind": "dynamic", "shape": {"type": "cone"}, "position": [0, 0, 0]}]}`))
	fmt.Println(err)
	// Output:
	// drop 120 steps of 0.016666666666666666 s
	// ball dynamic sphere [0 0 0 1] 1 0.5
	// scene: bodies[0] (id "ball"): shape.type must be "box", "sphere" or "capsule", got "cone"
}

func ExampleResult_WriteTo() {
	r := scene.Result{
		Engine: "my-engine 1.0", Scene: "drop", Steps: 3, Hz: 60,
		StepMS: scene.Summarize([]time.Duration{250 * time.Microsecond, time.Millisecond, 500 * time.Microsecond}),
		Bodies: []scene.Record{{ID: "ball", Position: [3]float32{0, 0.5, 0}, Rotation: [4]float32{0, 0, 0, 1}, LinearVelocity: [3]float32{0, -0.1, 0}}},
		Hash:   scene.Hash([]byte("state")),
	}
	r.WriteTo(os.Stdout)
	// Output:
	// {"engine":"my-engine 1.0","scene":"drop","steps":3,"hz":60,"step_ms":{"mean":0.583333,"p50":0.5,"p95":1,"max":1},"init_ms":0,"bodies":[{"id":"ball","position":[0,0.5,0],"rotation":[0,0,0,1],"linear_velocity":[0,-0.10000000149011612,0],"angular_velocity":[0,0,0],"sleeping":false}],"hash":"sha256:4ba69735ca53765ed6a709edb56c6ea236b7193a3b29a6b390c346f0f4340e4e"}
}

func ExampleJoint_Measure() {
	sc, err := scene.Parse([]byte(`{"format": "nebula-scene/2", "name": "hinge", "hz": 60, "steps": 1,
		"gravity": [0, -9.81, 0], "bodies": [
		{"id": "post", "kind": "static", "shape": {"type": "sphere", "radius": 0.1}, "position": [0, 2, 0]},
		{"id": "flap", "kind": "dynamic", "shape": {"type": "box", "half_extents": [0.5, 0.05, 0.05]}, "position": [0.5, 2, 0]}],
		"joints": [{"id": "hinge", "type": "revolute", "body_a": "post", "body_b": "flap",
		"anchor_a": [0, 0, 0], "anchor_b": [-0.5, 0, 0], "axis_a": [0, 0, 1], "normal_a": [1, 0, 0],
		"axis_b": [0, 0, 1], "normal_b": [1, 0, 0], "limits": [-0.6, 0.3]}]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	j := &sc.Joints[0]
	post := scene.Pose{Position: sc.Bodies[j.A].Position, Rotation: [4]float64{0, 0, 0, 1}}
	// The flap turned down by 0.7 rad about the post's anchor, 0.1 rad
	// beyond its lower limit.
	s, c := math.Sin(-0.35), math.Cos(-0.35)
	flap := scene.Pose{Position: [3]float64{0.5 * math.Cos(-0.7), 2 + 0.5*math.Sin(-0.7), 0}, Rotation: [4]float64{0, 0, s, c}}

	var tracker scene.JointTracker
	records := []scene.JointRecord{j.Measure(post, flap)}
	tracker.Sample(records) // after step 1
	sum := tracker.Summary(records)
	r := scene.Result{Engine: "my-engine 1.0", Scene: sc.Name, Steps: 1, Hz: 60, Joints: records, JointErrors: &sum}
	fmt.Printf("θ %.4f rad, limit error %.4f rad\n", records[0].Coordinate, records[0].LimitError)
	fmt.Printf("limit peak %.4f at %s, step %d\n", sum.Limit.Peak, sum.Limit.PeakJoint, sum.Limit.PeakStep)
	fmt.Println(sum.Position != nil, sum.Angle != nil, len(r.AppendJSON(nil)) > 0)
	// Output:
	// θ -0.7000 rad, limit error 0.1000 rad
	// limit peak 0.1000 at hinge, step 1
	// true true true
}
