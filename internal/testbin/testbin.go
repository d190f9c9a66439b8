// Package testbin builds a program's main package once per test process,
// for the tests that run a Nebula program as a user does: as a binary, with
// its flags, reading what it prints and writes.
//
//	var demo = testbin.New("nebula-demo", ".")
//
//	func TestMain(m *testing.M) { code := m.Run(); demo.Remove(); os.Exit(code) }
//
//	func TestHeadless(t *testing.T) {
//		out, err := exec.Command(demo.Path(t), "-headless", "-ticks", "60").Output()
//		...
//	}
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// Program is a main package built on first use, into a temporary folder
// that Remove deletes.
type Program struct {
	name, pkg string

	once sync.Once
	path string
	err  error
}

// New returns the program named name (the binary's file name) built from
// the package pkg, a path as `go build` takes it ("." for the package under
// test).
func New(name, pkg string) *Program { return &Program{name: name, pkg: pkg} }

// Path builds the program the first time it is called (later calls, from
// any test of the process, reuse the binary) and returns the binary's path.
// A failed build fails t with the compiler's output.
func (p *Program) Path(t testing.TB) string {
	t.Helper()
	p.once.Do(func() {
		dir, err := os.MkdirTemp("", p.name+"-test-")
		if err != nil {
			p.err = err
			return
		}
		p.path = filepath.Join(dir, p.name)
		if out, err := exec.Command("go", "build", "-o", p.path, p.pkg).CombinedOutput(); err != nil {
			p.err = fmt.Errorf("testbin: go build %s: %v\n%s", p.pkg, err, out)
		}
	})
	if p.err != nil {
		t.Fatal(p.err)
	}
	return p.path
}

// Remove deletes the binary's folder, if it was built. Call it from
// TestMain after the tests ran.
func (p *Program) Remove() {
	if p.path != "" {
		os.RemoveAll(filepath.Dir(p.path))
	}
}
