package model

import (
	"fmt"
	"image"
	"io/fs"
	"math"
	"strings"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/qmuntal/gltf"
)

// converter turns one glTF document into a Model.
//
//srccheck:wrapped by convert, as "model: <name>: ..."
type converter struct {
	doc    *gltf.Document
	fsys   fs.FS // the files URIs name, or nil
	dir    string
	budget int // values left to read (maxValues at the start)
	m      *Model

	newIndex []int               // file node -> index in m.Nodes, -1 outside the scene
	order    []int               // file nodes in m.Nodes order
	skins    map[int]int         // skin -> palette index of its first joint
	rigid    map[int]int         // unskinned mesh node (file index) -> its palette entry
	blocks   map[int]weightBlock // mesh node with morph targets (file index) -> its weights
	images   map[int]*image.RGBA // decoded images, by image index
	imageErr map[int]error       // images that failed, by image index
}

// weightBlock locates one mesh node's blend-shape weights in the model's.
type weightBlock struct{ first, count int }

// convert converts doc; fsys and dir, when fsys is not nil, locate the
// files the document's images name.
func convert(doc *gltf.Document, name string, fsys fs.FS, dir string) (m *Model, err error) {
	defer func() {
		if r := recover(); r != nil {
			m, err = nil, fmt.Errorf("model: %s: internal error while converting (a bug in the loader): %v", name, r)
		}
	}()
	c := &converter{
		doc: doc, fsys: fsys, dir: dir, budget: maxValues,
		m:      &Model{Name: name},
		skins:  map[int]int{},
		rigid:  map[int]int{},
		blocks: map[int]weightBlock{},
		images: map[int]*image.RGBA{}, imageErr: map[int]error{},
	}
	if err := c.run(); err != nil {
		return nil, fmt.Errorf("model: %s: %w", name, err)
	}
	return c.m, nil
}

func (c *converter) run() error {
	if len(c.doc.ExtensionsRequired) > 0 {
		return fmt.Errorf("requires the extension %s, which the loader does not support", c.doc.ExtensionsRequired[0])
	}
	if v := c.doc.Asset.Version; v != "" && !strings.HasPrefix(v, "2.") {
		return fmt.Errorf("glTF version %q, only 2.x is read", v)
	}
	roots, err := c.roots()
	if err != nil {
		return err
	}
	if err := c.hierarchy(roots); err != nil {
		return err
	}
	if err := c.checkMeshes(); err != nil {
		return err
	}
	if err := c.palette(); err != nil {
		return err
	}
	if err := c.weights(); err != nil {
		return err
	}
	if err := c.parts(); err != nil {
		return err
	}
	return c.clips()
}

func (c *converter) nodeName(i int) string {
	if n := c.doc.Nodes[i]; n != nil && n.Name != "" {
		return fmt.Sprintf("node %d (%s)", i, n.Name)
	}
	return fmt.Sprintf("node %d", i)
}

func (c *converter) meshName(i int) string {
	if m := c.doc.Meshes[i]; m != nil && m.Name != "" {
		return fmt.Sprintf("mesh %d (%s)", i, m.Name)
	}
	return fmt.Sprintf("mesh %d", i)
}

// vec3s groups floats by three, checking they are finite.
//
//srccheck:wrapped by the converter
func vec3s(v []float32) ([]mgl32.Vec3, error) {
	out := make([]mgl32.Vec3, len(v)/3)
	for i := range out {
		out[i] = mgl32.Vec3{v[3*i], v[3*i+1], v[3*i+2]}
		if !finite(out[i][:]...) {
			return nil, fmt.Errorf("vertex %d is not finite: %v", i, out[i])
		}
	}
	return out, nil
}

// finite reports whether every value is neither infinite nor NaN.
func finite(vs ...float32) bool {
	for _, v := range vs {
		if v-v != 0 {
			return false
		}
	}
	return true
}

// unitOrUp returns v normalised, or +Y when v has no length.
func unitOrUp(v mgl32.Vec3) mgl32.Vec3 {
	l := math.Sqrt(float64(v[0])*float64(v[0]) + float64(v[1])*float64(v[1]) + float64(v[2])*float64(v[2]))
	if !(l > 1e-20) || math.IsInf(l, 0) {
		return mgl32.Vec3{0, 1, 0}
	}
	return mgl32.Vec3{float32(float64(v[0]) / l), float32(float64(v[1]) / l), float32(float64(v[2]) / l)}
}

// unorm8 converts a colour component in [0, 1] (clamped) to 0..255.
func unorm8(v float32) uint8 {
	switch {
	case !(v > 0):
		return 0
	case v >= 1:
		return 255
	}
	return uint8(v*255 + 0.5)
}
