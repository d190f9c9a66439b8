package engine_test

import (
	"fmt"

	"github.com/nebulaengine/nebula/engine"
)

// A game adds its systems to the tick's stages, and a stage of its own
// before scripts; the tick runs the stages in order, and each stage's
// systems in the order they were added.
func ExampleEngine_AddStage() {
	e, err := engine.New(engine.DefaultConfig())
	if err != nil {
		panic(err)
	}
	say := func(c *engine.FixedContext) { fmt.Println("tick", c.Tick, "stage", c.Stage) }
	e.AddSystem(engine.StagePhysics, "gravity", say) // a built-in stage: cannot fail
	e.AddSystem(engine.StageScripts, "rules", say)

	const stageNetcode engine.Stage = "netcode"
	if err := e.AddStage(stageNetcode, engine.Before(engine.StageScripts)); err != nil {
		panic(err)
	}
	if err := e.AddSystem(stageNetcode, "reconcile", say); err != nil {
		panic(err)
	}
	fmt.Println(e.AddStage(stageNetcode, engine.After(engine.StageAI)))
	fmt.Println(e.AddStage("replay", engine.After("nope")))

	fmt.Print(e.Schedule())
	e.StepTick(0)
	// Output:
	// engine: AddStage("netcode", after ai): the schedule has a stage "netcode" already
	// engine: AddStage("replay", after nope): no stage "nope" in the schedule (input, netcode, scripts, physics, collision, ai, transforms)
	// input
	// netcode
	//   reconcile
	// scripts
	//   rules
	// physics
	//   gravity
	// collision
	// ai
	// transforms
	//   propagate
	// tick 1 stage netcode
	// tick 1 stage scripts
	// tick 1 stage physics
}
