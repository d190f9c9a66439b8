package scene_test

import (
	"fmt"
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
