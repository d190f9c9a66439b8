package modelgen

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
)

// GLB encodes doc as a binary glTF file: its buffer 0 becomes the BIN
// chunk.
func GLB(doc *gltf.Document) ([]byte, error) {
	var buf bytes.Buffer
	enc := gltf.NewEncoder(&buf)
	enc.AsBinary = true
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("modelgen: %w", err)
	}
	return buf.Bytes(), nil
}

// WriteGLTF writes doc as dir/name.gltf (JSON) with its buffer 0 beside it
// in dir/name.bin, and returns the .gltf's path. doc is left as it was.
func WriteGLTF(doc *gltf.Document, dir, name string) (string, error) {
	if len(doc.Buffers) == 0 || doc.Buffers[0] == nil || doc.Buffers[0].URI != "" {
		return "", fmt.Errorf("modelgen: WriteGLTF(%s): buffer 0 must exist and have no uri", name)
	}
	b := doc.Buffers[0]
	b.URI = name + ".bin"
	defer func() { b.URI = "" }()
	var buf bytes.Buffer
	enc := gltf.NewEncoder(&buf)
	enc.AsBinary = false
	enc.SetJSONIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return "", fmt.Errorf("modelgen: %w", err)
	}
	path := filepath.Join(dir, name+".gltf")
	if err := os.WriteFile(filepath.Join(dir, b.URI), b.Data, 0o644); err != nil {
		return "", fmt.Errorf("modelgen: %w", err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return "", fmt.Errorf("modelgen: %w", err)
	}
	return path, nil
}

// newDocument returns an empty document with one scene (the default) and
// an empty buffer 0.
func newDocument(scene string) *gltf.Document {
	doc := gltf.NewDocument()
	doc.Asset.Generator = "Nebula internal/modelgen"
	doc.Scenes[0].Name = scene
	doc.Buffers = []*gltf.Buffer{{}}
	return doc
}

// align pads buffer 0 to a multiple of 4 bytes, so that the next buffer
// view written by hand starts aligned (modeler.WriteAccessor aligns on its
// own, modeler.WriteBufferView does not).
func align(doc *gltf.Document) {
	b := doc.Buffers[len(doc.Buffers)-1]
	for len(b.Data)%4 != 0 {
		b.Data = append(b.Data, 0)
		b.ByteLength++
	}
}

// accessor writes data as a new accessor (no buffer target: animation and
// skin data) and returns its index.
func accessor(doc *gltf.Document, data any) int {
	return modeler.WriteAccessor(doc, gltf.TargetNone, data)
}

// material appends a material of base colour rgba (and texture tex, when
// not negative) and returns its index.
func material(doc *gltf.Document, name string, rgba [4]float64, tex int) int {
	pbr := &gltf.PBRMetallicRoughness{
		BaseColorFactor: &rgba,
		MetallicFactor:  gltf.Float(0),
		RoughnessFactor: gltf.Float(0.8),
	}
	if tex >= 0 {
		pbr.BaseColorTexture = &gltf.TextureInfo{Index: tex}
	}
	doc.Materials = append(doc.Materials, &gltf.Material{Name: name, PBRMetallicRoughness: pbr})
	return len(doc.Materials) - 1
}

// box returns the 8 corners of an axis-aligned box, the bottom ring
// (y = y0) first and then the top ring (y = y1), each ring in the order
// (x0, z0), (x1, z0), (x1, z1), (x0, z1), and its 12 triangles,
// counter-clockwise seen from outside. The corners are shared between
// faces, so a loader computes smooth normals for it.
func box(x0, x1, y0, y1, z0, z1 float32) ([][3]float32, []uint32) {
	pos := [][3]float32{
		{x0, y0, z0}, {x1, y0, z0}, {x1, y0, z1}, {x0, y0, z1},
		{x0, y1, z0}, {x1, y1, z0}, {x1, y1, z1}, {x0, y1, z1},
	}
	idx := []uint32{0, 1, 2, 0, 2, 3, 4, 6, 5, 4, 7, 6}
	for i := uint32(0); i < 4; i++ {
		j := (i + 1) % 4
		idx = append(idx, i, 4+j, j, i, 4+i, 4+j)
	}
	return pos, idx
}

// cube returns a cube of half-size h centred on the origin with a face of
// its own per side (24 vertices): positions, unit normals, texture
// coordinates (each face from (0, 0) to (1, 1)) and 36 indices. The faces
// come in the order +X, -X, +Y, -Y, +Z, -Z; a face's corners in the order
// (-u-v), (+u-v), (+u+v), (-u+v) where u and v are the face's axes with
// u×v the normal.
func cube(h float32) (pos, nrm [][3]float32, uv [][2]float32, idx []uint16) {
	for axis := range 3 {
		for _, sign := range []float32{1, -1} {
			var n, u, v [3]float32
			n[axis] = sign
			if sign > 0 {
				u[(axis+1)%3], v[(axis+2)%3] = 1, 1
			} else {
				u[(axis+2)%3], v[(axis+1)%3] = 1, 1
			}
			base := uint16(len(pos))
			corners := [4][2]float32{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}}
			for _, c := range corners {
				var p [3]float32
				for i := range 3 {
					p[i] = h * (n[i] + c[0]*u[i] + c[1]*v[i])
				}
				pos = append(pos, p)
				nrm = append(nrm, n)
				uv = append(uv, [2]float32{(c[0] + 1) / 2, (c[1] + 1) / 2})
			}
			idx = append(idx, base, base+1, base+2, base, base+2, base+3)
		}
	}
	return pos, nrm, uv, idx
}

// quatX and quatZ return the rotation by deg degrees about an axis,
// x y z w.
func quatX(deg float64) [4]float32 { s, c := halfSinCos(deg); return [4]float32{s, 0, 0, c} }
func quatZ(deg float64) [4]float32 { s, c := halfSinCos(deg); return [4]float32{0, 0, s, c} }

func halfSinCos(deg float64) (float32, float32) {
	s, c := math.Sincos(deg * math.Pi / 360)
	return float32(s), float32(c)
}

// translation returns the matrix of a translation, row by row (the
// modeler package writes a [4][4]float32 as [row][column]).
func translation(x, y, z float32) [4][4]float32 {
	return [4][4]float32{{1, 0, 0, x}, {0, 1, 0, y}, {0, 0, 1, z}, {0, 0, 0, 1}}
}
