package gfx

// PerInstance is the naive per-cube drawing the instanced path is measured
// and checked against (see perInstance), for the package's external tests.
type PerInstance = perInstance

// NewPerInstance builds the per-cube baseline beside r.
func NewPerInstance(r *Renderer) (*PerInstance, error) { return newPerInstance(r) }
