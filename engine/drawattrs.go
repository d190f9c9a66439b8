package engine

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/zeebo/xxh3"

	"github.com/nebulaengine/nebula/internal/binread"
)

// Draw attributes: how an entity is drawn beyond its transform, colour
// and mesh. They are simulated state, like the colour (a fixed system
// lights a lamp or hides a pickup, and rollback must undo it), but a
// world that leaves every one at its default hashes, saves and dumps as
// if they did not exist, so that older recordings and snapshots keep
// their hashes.

// SetMeshScale sets the size e's mesh is drawn at along each of the
// mesh's axes, on top of e's transform (one when spawned). Unlike the
// transform's scale it is drawn only: e's children are not scaled by it,
// and it is not interpolated (a change shows from the next frame). Use it
// to size a unit mesh to what it stands for, as physics.SpawnBody sizes a
// cube to its box, so that children placed on the entity are not
// stretched with it.
func (w *World) SetMeshScale(e Entity, s mgl32.Vec3) {
	if w.Alive(e) {
		w.cur.MeshScale[e.index] = s
	}
}

// MeshScale returns the size e's mesh is drawn at on top of its transform
// (see SetMeshScale; one when e is not alive).
func (w *World) MeshScale(e Entity) mgl32.Vec3 {
	if !w.Alive(e) {
		return unitScale
	}
	return w.cur.MeshScale[e.index]
}

// SetEmissive sets the light e's surface gives off, RGB (black, the
// default, for none): it is added to the lit colour, so that e glows
// whatever lights it, in the dark too (a lamp's glass, a goal). It does
// not light other entities; a light does (see package render's lights).
func (w *World) SetEmissive(e Entity, rgb [3]uint8) {
	if w.Alive(e) {
		w.cur.Emissive[e.index] = rgb
	}
}

// Emissive returns the light e's surface gives off (black when e is not
// alive).
func (w *World) Emissive(e Entity) [3]uint8 {
	if !w.Alive(e) {
		return [3]uint8{}
	}
	return w.cur.Emissive[e.index]
}

// SetVisible shows or hides e, and with it its descendants (visible when
// spawned). A hidden entity is not drawn and costs no draw work: it is
// left out of the frame (RenderBuffer), as are entities of render.MeshNone
// (pivots). Hiding changes nothing else: a hidden entity moves, collides
// and is hashed as before.
func (w *World) SetVisible(e Entity, visible bool) {
	if w.Alive(e) {
		w.cur.Hidden[e.index] = !visible
	}
}

// Visible reports whether e itself is visible (SetVisible), whatever its
// ancestors are; false when e is not alive. VisibleInTree says whether it
// is drawn.
func (w *World) Visible(e Entity) bool { return w.Alive(e) && !w.cur.Hidden[e.index] }

// VisibleInTree reports whether e and every ancestor of e are visible,
// as Godot's is_visible_in_tree does: whether e is drawn, given a mesh
// other than render.MeshNone.
func (w *World) VisibleInTree(e Entity) bool {
	if !w.Alive(e) {
		return false
	}
	for i := e.index; ; {
		if w.cur.Hidden[i] {
			return false
		}
		if !w.hier.on() || w.hier.parent[i] == 0 {
			return true
		}
		i = w.hier.parent[i] - 1
	}
}

// unitScale is the scale that changes nothing.
var unitScale = mgl32.Vec3{1, 1, 1}

// drawAttrs reports whether some slot's draw attributes are not the
// defaults: only then are they hashed, saved and dumped. Dead slots hold
// the defaults (freeSlot), so this is a function of the live entities'
// state.
func (w *World) drawAttrs() bool {
	for _, s := range w.cur.MeshScale {
		if s != unitScale {
			return true
		}
	}
	for _, c := range w.cur.Emissive {
		if c != ([3]uint8{}) {
			return true
		}
	}
	return w.anyHidden()
}

// anyHidden reports whether some slot is hidden.
func (w *World) anyHidden() bool {
	for _, h := range w.cur.Hidden {
		if h {
			return true
		}
	}
	return false
}

// hashDrawAttrs adds the draw attributes to h: every slot's mesh scale,
// emissive colour and hidden flag, column by column.
func (w *World) hashDrawAttrs(h *xxh3.Hasher) {
	h.Write(bytesOf(w.cur.MeshScale))
	h.Write(bytesOf(w.cur.Emissive))
	h.Write(bytesOf(w.cur.Hidden))
}

// appendDrawAttrs appends the draw attributes' section of a snapshot.
func (w *World) appendDrawAttrs(b []byte) []byte {
	b = appendColumn(b, w.cur.MeshScale)
	b = appendColumn(b, w.cur.Emissive)
	for _, h := range w.cur.Hidden {
		b = append(b, boolByte(h))
	}
	return b
}

// readDrawAttrs reads the draw attributes' section of a snapshot of
// version v into t, or sets the defaults when v has none.
func readDrawAttrs(r *binread.Reader, t *World, v uint16, n int) {
	if !hasDrawAttrs(v) {
		if r.Err() == nil {
			t.cur.MeshScale = make([]mgl32.Vec3, n)
			for i := range t.cur.MeshScale {
				t.cur.MeshScale[i] = unitScale
			}
			t.cur.Emissive = make([][3]uint8, n)
			t.cur.Hidden = make([]bool, n)
		}
		return
	}
	t.cur.MeshScale = readColumn[mgl32.Vec3](r, "mesh scales", n)
	t.cur.Emissive = readColumn[[3]uint8](r, "emissive colours", n)
	at := r.Offset()
	t.cur.Hidden = make([]bool, n)
	for i := range t.cur.Hidden {
		switch h := r.U8("hidden flags"); {
		case r.Err() != nil:
			return
		case h > 1:
			r.FailAt(at+i, "hidden flags", fmt.Errorf("slot %d has %d, want 0 or 1", i, h))
			return
		default:
			t.cur.Hidden[i] = h == 1
		}
	}
}

// hiddenInTree returns, when some entity is hidden, each slot's hidden
// flag or'ed with its ancestors' (parents first, in the propagation
// order), in w's scratch; nil when none is hidden.
func (w *World) hiddenInTree() []bool {
	if !w.anyHidden() {
		return nil
	}
	n := len(w.gen)
	out := append(w.hiddenScratch[:0], w.cur.Hidden[:n]...)
	if h := &w.hier; h.linked > 0 {
		for _, i := range h.order {
			if i >= 0 && !out[i] {
				out[i] = out[h.parent[i]-1]
			}
		}
	}
	w.hiddenScratch = out
	return out
}
