package physics

import (
	"os/exec"
	"testing"

	"github.com/nebulaengine/nebula/internal/detcheck"
)

// TestNoFusedArithmetic checks the package's source (test files aside)
// against the rule that keeps the step the same bits on every build
// (internal/detcheck): every floating-point product is written inside a
// conversion to its own type, float32(a*b), so Go cannot fuse it with an
// addition into one multiply-add (arm64, amd64 with GOAMD64=v3); no
// function of math whose result may differ by platform (Sin, Exp, Pow,
// FMA, ...), none of math/cmplx, no arithmetic of mathgl, no range over
// a map, no goroutine. Each finding names the file, line and expression.
// It needs the go command (a test binary copied to a machine without one
// skips it).
func TestNoFusedArithmetic(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skipf("no go command to list the package's files and imports: %v", err)
	}
	findings, err := detcheck.Dir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range findings {
		t.Error(f)
	}
}
