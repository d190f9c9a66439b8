package physics

import (
	"errors"
	"fmt"

	"github.com/go-gl/mathgl/mgl32"
)

// HeightGrid is static terrain (the HeightField kind): a grid of heights, Columns × Rows
// samples CellX and CellZ metres apart. Sample (c, r) is at (c·CellX,
// heights[r·Columns + c], r·CellZ) in the frame of the body that carries
// it, so the grid starts at the body's position and runs along +X and
// +Z. Each cell is two triangles (split from (c, r+1) to (c+1, r)); the
// step, the queries and the sweeps meet them as they meet a
// TriangleMesh's, with the seams inside flat stretches smoothed the same
// way, and allocate nothing.
//
// Like meshes it is an asset: build the same height fields in the same
// order in every run and on every peer, add them (Space.AddHeightField)
// and name one in a static body's Shape (HeightFieldShape).
type HeightGrid struct {
	columns, rows int
	cellX, cellZ  float32
	mesh          *TriangleMesh
}

// MaxHeightFieldSamples is the most samples a HeightField has.
const MaxHeightFieldSamples = 1 << 22

// NewHeightField makes a height field of columns × rows samples (at least
// 2 × 2, at most MaxHeightFieldSamples in all) from heights, row by row
// (len(heights) == columns·rows), cellX and cellZ metres apart. It
// returns an error, naming the first thing wrong, for sizes out of range,
// a heights slice of another length, a height that is not finite or
// beyond ±10,000 m, and a cell size that is not finite or outside
// [0.0001, 10,000] m.
//
//	hf, err := physics.NewHeightField(3, 3, []float32{
//		0, 0, 0,
//		0, 1, 0,
//		0, 0, 0,
//	}, 1, 1)
//	id, err := space.AddHeightField(hf)
//	err = space.AddBody(ground, physics.NewBodyDef(physics.Static, physics.HeightFieldShape(id)))
func NewHeightField(columns, rows int, heights []float32, cellX, cellZ float32) (*HeightGrid, error) {
	if columns < 2 || rows < 2 {
		return nil, fmt.Errorf("physics: NewHeightField: at least 2 columns and 2 rows, got %d × %d", columns, rows)
	}
	if columns > MaxHeightFieldSamples || rows > MaxHeightFieldSamples/columns {
		return nil, fmt.Errorf("physics: NewHeightField: at most %d samples, got %d × %d", MaxHeightFieldSamples, columns, rows)
	}
	if len(heights) != columns*rows {
		return nil, fmt.Errorf("physics: NewHeightField: %d × %d samples need %d heights, got %d", columns, rows, columns*rows, len(heights))
	}
	for _, c := range [2]float32{cellX, cellZ} {
		if !finite(c) || c < minShapeSize || c > maxShapeSize {
			return nil, fmt.Errorf("physics: NewHeightField: the cell size must be finite and in [%g, %g] m, got %v × %v", minShapeSize, maxShapeSize, cellX, cellZ)
		}
	}
	pos := make([]mgl32.Vec3, len(heights))
	for i, h := range heights {
		if !finite(h) || abs(h) > maxShapeSize {
			return nil, fmt.Errorf("physics: NewHeightField: height %d (column %d, row %d) must be finite and within ±%g m, got %v", i, i%columns, i/columns, float32(maxShapeSize), h)
		}
		pos[i] = mgl32.Vec3{float32(float32(i%columns) * cellX), h, float32(float32(i/columns) * cellZ)}
	}
	idx := make([]uint32, 0, 6*(columns-1)*(rows-1))
	for r := range rows - 1 {
		for c := range columns - 1 {
			v00 := uint32(r*columns + c)
			v10, v01 := v00+1, v00+uint32(columns)
			v11 := v01 + 1
			idx = append(idx, v00, v01, v10, v10, v01, v11)
		}
	}
	m, err := NewTriangleMesh(pos, idx)
	if err != nil {
		return nil, fmt.Errorf("physics: NewHeightField: %w", err)
	}
	return &HeightGrid{columns: columns, rows: rows, cellX: cellX, cellZ: cellZ, mesh: m}, nil
}

// Size returns the number of columns and rows of samples.
func (h *HeightGrid) Size() (columns, rows int) { return h.columns, h.rows }

// HeightFieldID names a HeightField added to a Space
// (Space.AddHeightField), from 1; 0 is none.
type HeightFieldID uint32

// HeightFieldShape returns the Shape of a static body made of the height
// field id: Shape{Kind: HeightField, HeightField: id}.
func HeightFieldShape(id HeightFieldID) Shape { return Shape{Kind: HeightField, HeightField: id} }

// MaxHeightFields is the most height fields a Space takes.
const MaxHeightFields = 1 << 16

// AddHeightField adds h to the Space and returns the HeightFieldID a
// static body's Shape names it by (HeightFieldShape(id)). Height fields are
// assets, like meshes: add the same ones in the same order in every run,
// and to a new Space made for a restored world, before its first Step.
func (s *Space) AddHeightField(h *HeightGrid) (HeightFieldID, error) {
	if h == nil || h.mesh == nil {
		return 0, errors.New("physics: AddHeightField: the height field is nil or empty (make it with NewHeightField)")
	}
	if len(s.heights) >= MaxHeightFields {
		return 0, fmt.Errorf("physics: AddHeightField: a Space holds at most %d height fields", MaxHeightFields)
	}
	s.heights = append(s.heights, h)
	return HeightFieldID(len(s.heights)), nil
}
