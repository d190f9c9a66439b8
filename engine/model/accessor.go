package model

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/qmuntal/gltf"
)

// The loader reads accessors itself rather than through the gltf module's
// modeler package: modeler.ReadAccessor panics on an accessor whose
// byteOffset lies beyond its buffer view and ignores the byte stride of
// interleaved 8-bit scalars. Every offset, stride and count here is checked
// before a byte is read.

const (
	// maxStride is glTF's largest bufferView.byteStride.
	maxStride = 252
	// maxZeroValues bounds the values of an accessor without a buffer view
	// (all zeros, possibly with sparse values): nothing in the file backs
	// its size.
	maxZeroValues = 1 << 22
	// maxValues bounds the values one conversion reads, all accessors
	// together, so that a small file that refers to one big accessor from
	// many places cannot make the loader allocate without bound.
	maxValues = 1 << 27
)

// componentSize is the size in bytes of one component of type ct, or 0
// for a type glTF does not define.
func componentSize(ct gltf.ComponentType) int {
	switch ct {
	case gltf.ComponentByte, gltf.ComponentUbyte:
		return 1
	case gltf.ComponentShort, gltf.ComponentUshort:
		return 2
	case gltf.ComponentUint, gltf.ComponentFloat:
		return 4
	}
	return 0
}

// componentCount is the number of components of an element of type t.
// The loader reads no MAT2 or MAT3 accessor (they would need glTF's
// column padding).
func componentCount(t gltf.AccessorType) int {
	switch t {
	case gltf.AccessorScalar:
		return 1
	case gltf.AccessorVec2:
		return 2
	case gltf.AccessorVec3:
		return 3
	case gltf.AccessorVec4:
		return 4
	case gltf.AccessorMat4:
		return 16
	}
	return 0
}

// accessorUse says what a use of an accessor accepts.
type accessorUse struct {
	types      []gltf.AccessorType
	components []gltf.ComponentType
}

var (
	floatVec3 = accessorUse{
		types:      []gltf.AccessorType{gltf.AccessorVec3},
		components: []gltf.ComponentType{gltf.ComponentFloat},
	}
	floatScalar = accessorUse{
		types:      []gltf.AccessorType{gltf.AccessorScalar},
		components: []gltf.ComponentType{gltf.ComponentFloat},
	}
	floatMat4 = accessorUse{
		types:      []gltf.AccessorType{gltf.AccessorMat4},
		components: []gltf.ComponentType{gltf.ComponentFloat},
	}
	colorUse = accessorUse{
		types:      []gltf.AccessorType{gltf.AccessorVec3, gltf.AccessorVec4},
		components: []gltf.ComponentType{gltf.ComponentFloat, gltf.ComponentUbyte, gltf.ComponentUshort},
	}
	texcoordUse = accessorUse{
		types:      []gltf.AccessorType{gltf.AccessorVec2},
		components: []gltf.ComponentType{gltf.ComponentFloat, gltf.ComponentUbyte, gltf.ComponentUshort},
	}
	jointsUse = accessorUse{
		types:      []gltf.AccessorType{gltf.AccessorVec4},
		components: []gltf.ComponentType{gltf.ComponentUbyte, gltf.ComponentUshort},
	}
	weightsUse = accessorUse{
		types:      []gltf.AccessorType{gltf.AccessorVec4},
		components: []gltf.ComponentType{gltf.ComponentFloat, gltf.ComponentUbyte, gltf.ComponentUshort},
	}
	indicesUse = accessorUse{
		types:      []gltf.AccessorType{gltf.AccessorScalar},
		components: []gltf.ComponentType{gltf.ComponentUbyte, gltf.ComponentUshort, gltf.ComponentUint},
	}
	rotationUse = accessorUse{
		types: []gltf.AccessorType{gltf.AccessorVec4},
		components: []gltf.ComponentType{gltf.ComponentFloat, gltf.ComponentByte, gltf.ComponentUbyte,
			gltf.ComponentShort, gltf.ComponentUshort},
	}
	morphWeightsUse = accessorUse{
		types: []gltf.AccessorType{gltf.AccessorScalar},
		components: []gltf.ComponentType{gltf.ComponentFloat, gltf.ComponentByte, gltf.ComponentUbyte,
			gltf.ComponentShort, gltf.ComponentUshort},
	}
)

// accessor returns accessor i, checked to exist and to suit use.
func (c *converter) accessor(i int, use accessorUse) (*gltf.Accessor, error) {
	if i < 0 || i >= len(c.doc.Accessors) {
		return nil, fmt.Errorf("accessor %d does not exist (the file has %d)", i, len(c.doc.Accessors))
	}
	a := c.doc.Accessors[i]
	if a == nil {
		return nil, fmt.Errorf("accessor %d is null", i)
	}
	if !contains(use.types, a.Type) {
		return nil, fmt.Errorf("accessor %d: type %s, want %s", i, a.Type, joinNames(use.types))
	}
	if !contains(use.components, a.ComponentType) {
		return nil, fmt.Errorf("accessor %d: component type %s, want %s", i, a.ComponentType, joinNames(use.components))
	}
	if a.Count < 1 {
		return nil, fmt.Errorf("accessor %d: count %d, at least 1", i, a.Count)
	}
	return a, nil
}

func contains[T comparable](list []T, v T) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func joinNames[T fmt.Stringer](list []T) string {
	names := make([]string, len(list))
	for i, x := range list {
		names[i] = x.String()
	}
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// bufferView returns the bytes of buffer view i, checked to lie in its
// buffer.
func (c *converter) bufferView(i int) ([]byte, *gltf.BufferView, error) {
	if i < 0 || i >= len(c.doc.BufferViews) {
		return nil, nil, fmt.Errorf("buffer view %d does not exist (the file has %d)", i, len(c.doc.BufferViews))
	}
	bv := c.doc.BufferViews[i]
	if bv == nil {
		return nil, nil, fmt.Errorf("buffer view %d is null", i)
	}
	if bv.Buffer < 0 || bv.Buffer >= len(c.doc.Buffers) {
		return nil, nil, fmt.Errorf("buffer view %d: buffer %d does not exist (the file has %d)", i, bv.Buffer, len(c.doc.Buffers))
	}
	b := c.doc.Buffers[bv.Buffer]
	if b == nil {
		return nil, nil, fmt.Errorf("buffer view %d: buffer %d is null", i, bv.Buffer)
	}
	if bv.ByteOffset < 0 || bv.ByteLength < 1 {
		return nil, nil, fmt.Errorf("buffer view %d: byteOffset %d, byteLength %d", i, bv.ByteOffset, bv.ByteLength)
	}
	if len(b.Data) < b.ByteLength {
		if len(b.Data) == 0 && b.URI != "" {
			return nil, nil, fmt.Errorf("buffer %d: missing (uri %q not loaded)", bv.Buffer, b.URI)
		}
		return nil, nil, fmt.Errorf("buffer %d: %d bytes of data, byteLength says %d", bv.Buffer, len(b.Data), b.ByteLength)
	}
	data := b.Data
	if b.ByteLength >= 0 && len(data) > b.ByteLength {
		data = data[:b.ByteLength]
	}
	if bv.ByteOffset > len(data) || bv.ByteLength > len(data)-bv.ByteOffset {
		return nil, nil, fmt.Errorf("buffer view %d: bytes %d to %d, beyond the %d bytes of buffer %d",
			i, bv.ByteOffset, int64(bv.ByteOffset)+int64(bv.ByteLength), len(data), bv.Buffer)
	}
	return data[bv.ByteOffset : bv.ByteOffset+bv.ByteLength], bv, nil
}

// spend takes n values from the conversion's budget.
func (c *converter) spend(n int) error {
	if n > c.budget {
		return fmt.Errorf("too large: the model has more than %d values", maxValues)
	}
	c.budget -= n
	return nil
}

// elements locates the elements of accessor a (number i): for element e
// and component k, the component's bytes start at data[e*stride+k*size].
// data is nil for an accessor without a buffer view (all zeros).
func (c *converter) elements(i int, a *gltf.Accessor) (data []byte, stride int, err error) {
	size, comps := componentSize(a.ComponentType), componentCount(a.Type)
	elem := size * comps
	if a.BufferView == nil {
		if a.Count > maxZeroValues/comps {
			return nil, 0, fmt.Errorf("accessor %d: %d elements without a buffer view, at most %d", i, a.Count, maxZeroValues/comps)
		}
		return nil, elem, nil
	}
	view, bv, err := c.bufferView(*a.BufferView)
	if err != nil {
		return nil, 0, fmt.Errorf("accessor %d: %w", i, err)
	}
	stride = bv.ByteStride
	switch {
	case stride == 0:
		stride = elem
	case stride < elem || stride > maxStride:
		return nil, 0, fmt.Errorf("accessor %d: buffer view %d's byteStride %d does not fit %d-byte elements (at most %d)",
			i, *a.BufferView, stride, elem, maxStride)
	}
	if a.ByteOffset < 0 || a.ByteOffset > len(view) || a.Count > len(view) {
		return nil, 0, fmt.Errorf("accessor %d: byteOffset %d and count %d do not fit buffer view %d's %d bytes",
			i, a.ByteOffset, a.Count, *a.BufferView, len(view))
	}
	if end := a.ByteOffset + (a.Count-1)*stride + elem; end > len(view) {
		return nil, 0, fmt.Errorf("accessor %d: %d elements end at byte %d of buffer view %d, which has %d",
			i, a.Count, end, *a.BufferView, len(view))
	}
	return view[a.ByteOffset:], stride, nil
}

// sparse reads accessor a's sparse substitutions: the elements they
// replace and their values, tightly packed elements.
func (c *converter) sparse(i int, a *gltf.Accessor) (indices []uint32, values []byte, err error) {
	s := a.Sparse
	if s.Count < 1 || s.Count > a.Count {
		return nil, nil, fmt.Errorf("accessor %d: sparse count %d, want 1 to %d", i, s.Count, a.Count)
	}
	switch s.Indices.ComponentType {
	case gltf.ComponentUbyte, gltf.ComponentUshort, gltf.ComponentUint:
	default:
		return nil, nil, fmt.Errorf("accessor %d: sparse indices of component type %s", i, s.Indices.ComponentType)
	}
	isize := componentSize(s.Indices.ComponentType)
	iview, _, err := c.bufferView(s.Indices.BufferView)
	if err != nil {
		return nil, nil, fmt.Errorf("accessor %d: sparse indices: %w", i, err)
	}
	if s.Indices.ByteOffset < 0 || s.Indices.ByteOffset > len(iview) || s.Count > (len(iview)-s.Indices.ByteOffset)/isize {
		return nil, nil, fmt.Errorf("accessor %d: %d sparse indices from byte %d do not fit buffer view %d's %d bytes",
			i, s.Count, s.Indices.ByteOffset, s.Indices.BufferView, len(iview))
	}
	elem := componentSize(a.ComponentType) * componentCount(a.Type)
	vview, _, err := c.bufferView(s.Values.BufferView)
	if err != nil {
		return nil, nil, fmt.Errorf("accessor %d: sparse values: %w", i, err)
	}
	if s.Values.ByteOffset < 0 || s.Values.ByteOffset > len(vview) || s.Count > (len(vview)-s.Values.ByteOffset)/elem {
		return nil, nil, fmt.Errorf("accessor %d: %d sparse values from byte %d do not fit buffer view %d's %d bytes",
			i, s.Count, s.Values.ByteOffset, s.Values.BufferView, len(vview))
	}
	if err := c.spend(s.Count); err != nil {
		return nil, nil, err
	}
	indices = make([]uint32, s.Count)
	for k := range indices {
		indices[k] = readUint(s.Indices.ComponentType, iview[s.Indices.ByteOffset+k*isize:])
		if int64(indices[k]) >= int64(a.Count) {
			return nil, nil, fmt.Errorf("accessor %d: sparse index %d is %d, the accessor has %d elements", i, k, indices[k], a.Count)
		}
	}
	return indices, vview[s.Values.ByteOffset:], nil
}

// floats reads accessor i for use as floats, count×components values
// element after element. Integer components are normalised, as glTF's
// colours, texture coordinates, weights and rotations are: unsigned to
// [0, 1], signed to [-1, 1].
func (c *converter) floats(i int, use accessorUse) ([]float32, int, error) {
	return readAccessor(c, i, use, readFloat)
}

// uints reads accessor i for use as unsigned integers (indices, joints).
func (c *converter) uints(i int, use accessorUse) ([]uint32, int, error) {
	return readAccessor(c, i, use, readUint)
}

// readAccessor reads accessor i, count×components values element after
// element, each component decoded by read, with its sparse values applied.
func readAccessor[T float32 | uint32](c *converter, i int, use accessorUse, read func(gltf.ComponentType, []byte) T) ([]T, int, error) {
	a, err := c.accessor(i, use)
	if err != nil {
		return nil, 0, err
	}
	comps, size := componentCount(a.Type), componentSize(a.ComponentType)
	data, stride, err := c.elements(i, a)
	if err != nil {
		return nil, 0, err
	}
	if err := c.spend(a.Count * comps); err != nil {
		return nil, 0, err
	}
	out := make([]T, a.Count*comps)
	if data != nil {
		for e := 0; e < a.Count; e++ {
			for k := 0; k < comps; k++ {
				out[e*comps+k] = read(a.ComponentType, data[e*stride+k*size:])
			}
		}
	}
	if a.Sparse != nil {
		indices, values, err := c.sparse(i, a)
		if err != nil {
			return nil, 0, err
		}
		for j, e := range indices {
			for k := 0; k < comps; k++ {
				out[int(e)*comps+k] = read(a.ComponentType, values[(j*comps+k)*size:])
			}
		}
	}
	return out, comps, nil
}

// readFloat decodes one component as a float, normalising integers.
func readFloat(ct gltf.ComponentType, b []byte) float32 {
	switch ct {
	case gltf.ComponentFloat:
		return math.Float32frombits(binary.LittleEndian.Uint32(b))
	case gltf.ComponentUbyte:
		return float32(b[0]) / 255
	case gltf.ComponentByte:
		return max(float32(int8(b[0]))/127, -1)
	case gltf.ComponentUshort:
		return float32(binary.LittleEndian.Uint16(b)) / 65535
	case gltf.ComponentShort:
		return max(float32(int16(binary.LittleEndian.Uint16(b)))/32767, -1)
	case gltf.ComponentUint:
		return float32(binary.LittleEndian.Uint32(b))
	}
	return 0
}

// readUint decodes one unsigned integer component.
func readUint(ct gltf.ComponentType, b []byte) uint32 {
	switch ct {
	case gltf.ComponentUbyte:
		return uint32(b[0])
	case gltf.ComponentUshort:
		return uint32(binary.LittleEndian.Uint16(b))
	case gltf.ComponentUint:
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}
