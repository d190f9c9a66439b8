package detmath

import (
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

func BenchmarkIntegrate(b *testing.B) {
	q := mgl32.QuatIdent()
	w := mgl32.Vec3{1.1, -2.3, 0.7}
	for b.Loop() {
		q = Integrate(q, w, 1.0/60)
	}
	_ = q
}
