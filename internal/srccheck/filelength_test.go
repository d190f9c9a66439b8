package srccheck

import (
	"go/ast"
	"testing"
)

// maxLines is the most lines a non-test Go file may have.
const maxLines = 700

// TestFileLength checks that no non-test Go file of the module (outside
// testdata, vendor and hidden folders) has more than maxLines lines: a
// longer file is split by job, one file a job. Generated files (a "Code
// generated ... DO NOT EDIT." line) are not checked; nobody reads them
// as rooms.
func TestFileLength(t *testing.T) {
	fset, files := parseModule(t)
	for _, f := range files {
		if ast.IsGenerated(f.file) {
			continue
		}
		if n := fset.File(f.file.Package).LineCount(); n > maxLines {
			t.Errorf("%s: %d lines, more than %d: split it by job, one file a job", f.rel, n, maxLines)
		}
	}
}
