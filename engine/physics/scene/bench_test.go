package scene

import (
	"fmt"
	"io"
	"strings"
	"testing"
)

// pileText returns a scene file of n unit cubes in the layout of the
// benchmark piles (a lattice, each cube turned), with a floor.
func pileText(n int) string {
	var b strings.Builder
	b.WriteString(`{"format": "nebula-scene/1", "name": "pile", "hz": 60, "steps": 600, "gravity": [0, -9.81, 0], "bodies": [`)
	b.WriteString(`{"id": "floor", "kind": "static", "shape": {"type": "box", "half_extents": [8, 0.5, 8]}, "position": [0, -0.5, 0], "friction": 0.5, "restitution": 0.1}`)
	for i := range n {
		fmt.Fprintf(&b, `, {"id": "cube-%04d", "kind": "dynamic", "shape": {"type": "box", "half_extents": [0.5, 0.5, 0.5]}, "position": [%g, %g, %g], "rotation": [0.18257418583505536, 0.3651483716701107, 0.5477225575051661, 0.7302967433402214], "friction": 0.5, "restitution": 0.1}`,
			i, float64(i%10)*1.5-6.75, 2+float64(i/100)*1.5, float64(i/10%10)*1.5-6.75)
	}
	b.WriteString("]}")
	return b.String()
}

func BenchmarkParsePile1000(b *testing.B) {
	data := []byte(pileText(1000))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriteResult1000(b *testing.B) {
	r := Result{Engine: "e", Scene: "pile", Steps: 600, Hz: 60}
	for i := range 1000 {
		r.Bodies = append(r.Bodies, Record{ID: fmt.Sprintf("cube-%04d", i), Position: [3]float32{float32(i) * 0.1, 0.4999, -3.25},
			Rotation: [4]float32{0.001, -0.7, 0.0002, 0.714}, LinearVelocity: [3]float32{1e-9, -0.003, 0}})
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.WriteTo(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

func TestPileTextParses(t *testing.T) {
	sc, err := Parse([]byte(pileText(10)))
	if err != nil || len(sc.Bodies) != 11 {
		t.Fatalf("Parse(pileText(10)): %v", err)
	}
}
