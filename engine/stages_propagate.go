package engine

// propagate is the hook of StageTransforms' built-in system: it will
// compute the world transforms of a hierarchy, parents before children.
// Until a world has a hierarchy it has nothing to do.
func (w *World) propagate() {}
