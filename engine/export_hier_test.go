package engine

import "testing"

// HierScene and HierarchyLinked are for the external tests that need
// package rollback (which imports engine, so only package engine_test can
// import it).
func HierScene(t testing.TB) *Engine { return hierScene(t) }

// HierarchyLinked returns the number of entities of w that have a parent.
func HierarchyLinked(w *World) int { return w.hier.linked }
