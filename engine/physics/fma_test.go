package physics

import (
	"testing"

	"github.com/nebulaengine/nebula/internal/detcheck"
)

// TestNoFusedArithmetic checks the package's source (test files aside)
// against the rule that keeps the step the same bits on every build
// (internal/detcheck): every floating-point product is written inside a
// conversion to its own type, float32(a*b), so Go cannot fuse it with an
// addition into one multiply-add (arm64, amd64 with GOAMD64=v3); no
// function of math whose result may differ by platform (Sin, Exp, Pow,
// FMA, ...), none of math/cmplx, no arithmetic of mathgl. Each finding
// names the file, line and expression.
func TestNoFusedArithmetic(t *testing.T) {
	findings, err := detcheck.Dir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range findings {
		t.Error(f)
	}
}
