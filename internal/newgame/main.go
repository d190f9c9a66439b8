// Command newgame is the Go half of scripts/newgame.sh: it rewrites a
// module path in the import paths of every Go file under a directory, the
// way gofmt would have written them, so that the copy of a module made by
// the script stays gofmt-clean.
//
//	go run ./internal/newgame -from OLD/MODULE -to NEW/MODULE DIR
//
// An import path that is OLD/MODULE or starts with OLD/MODULE/ has that
// part replaced by NEW/MODULE; nothing else in the file changes (comments,
// strings and identifiers are left as they are). The imports are then
// sorted within their groups (ast.SortImports, as gofmt does: a new module
// path may sort differently among its neighbours) and the file is printed
// with go/format. A Go file that names the old module but does not parse
// is an error naming the file; one that does not name it is not read
// further. It prints the number of files it rewrote. Exit status: 0 done,
// 1 a file could not be read, parsed or written, 2 bad usage.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run is the command: args without the program's name; it returns the exit
// status.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("newgame", flag.ContinueOnError)
	fs.SetOutput(stderr)
	from := fs.String("from", "", "the module path to replace")
	to := fs.String("to", "", "the module path to write instead")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: go run ./internal/newgame -from OLD/MODULE -to NEW/MODULE DIR")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() != 1 || *from == "" || *to == "" {
		fs.Usage()
		return 2
	}
	n, err := rewriteTree(fs.Arg(0), *from, *to)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	fmt.Fprintln(stdout, n)
	return 0
}

// rewriteTree rewrites the import paths of every .go file under dir
// (rewriteFile) and returns how many files changed.
func rewriteTree(dir, from, to string) (int, error) {
	n := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		out, changed, err := rewriteFile(path, src, from, to)
		if err != nil || !changed {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if err := os.WriteFile(path, out, info.Mode().Perm()); err != nil {
			return err
		}
		n++
		return nil
	})
	if err != nil {
		return n, fmt.Errorf("newgame: %w", err)
	}
	return n, nil
}

// rewriteFile returns src with every import path under the module from
// moved to the module to, its imports sorted and the file formatted as
// gofmt formats it, and whether anything changed. The error names the file
// (name).
func rewriteFile(name string, src []byte, from, to string) ([]byte, bool, error) {
	if !bytes.Contains(src, []byte(`"`+from)) {
		return src, false, nil // no string starting with the module path
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, false, fmt.Errorf("newgame: %w", err)
	}
	changed := false
	for _, imp := range f.Imports {
		path, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			return nil, false, fmt.Errorf("newgame: %s: import path %s: %w", fset.Position(imp.Pos()), imp.Path.Value, err)
		}
		if path == from || strings.HasPrefix(path, from+"/") {
			imp.Path.Value = strconv.Quote(to + path[len(from):])
			changed = true
		}
	}
	if !changed {
		return src, false, nil
	}
	ast.SortImports(fset, f)
	var buf bytes.Buffer
	if err := format.Node(&buf, fset, f); err != nil {
		return nil, false, fmt.Errorf("newgame: %s: %w", name, err)
	}
	return buf.Bytes(), true, nil
}
