package engine_test

import (
	"testing"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/rollback"
)

// The sync test (rollback's re-simulation from SaveState) passes over a
// world whose hierarchy changes every tick.
func TestHierarchySyncTest(t *testing.T) {
	e := engine.HierScene(t)
	if err := rollback.SyncTest(e, rollback.SyncTestConfig{Ticks: 200, Depth: 6}); err != nil {
		t.Fatal(err)
	}
	if engine.HierarchyLinked(e.World) == 0 {
		t.Error("the scene ends without a hierarchy")
	}
}
