// Command apicheck keeps Nebula's public API honest: it compares the
// exported API of the module's public packages with the API of the last
// release, recorded in api/, using golang.org/x/exp/apidiff (pinned in
// go.mod), and fails when an incompatible change is not written in
// CHANGELOG.md's Unreleased section. Compatible changes (additions) are
// printed for information.
//
// Usage, from the module's root:
//
//	go run ./internal/apicheck          check (make test runs this)
//	go run ./internal/apicheck -write   record the API of a release (make api)
//
// The public packages are those outside cmd/ and outside every internal/
// folder, main packages aside. The record is two files: api/nebula.export,
// the packages' export data (a zip that cmd/apidiff also reads: apidiff -m
// api/nebula.export github.com/nebulaengine/nebula), and api/nebula.txt, a
// line per exported name for people to read in a diff. The check fails if
// the two disagree, and if the release the record names is not
// CHANGELOG.md's latest.
//
// An incompatible change is in the change log when the Unreleased section
// names it as PKG.NAME: PKG the package's path inside the module (engine,
// engine/geom, timing), NAME what apidiff names, with a pointer receiver's
// parentheses and star left out. Removing engine's Engine.AddFixed is
// listed by engine.Engine.AddFixed; changing a field Rate of timing's Config
// by timing.Config.Rate; removing a whole package engine/foo by
// engine/foo. The name must stand alone (engine.Engine.Add does not list
// engine.Engine.AddFixed).
//
// A copy of the module under another path (scripts/newgame.sh) is not
// compared: every type's path differs from the record's. The check says so
// and passes; make api in the copy records the copy's own API.
//
// CONTRIBUTING.md says when and how to use it.
package main

import (
	"archive/zip"
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/exp/apidiff"
	"golang.org/x/tools/go/gcexportdata"
	"golang.org/x/tools/go/packages"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// Paths inside the module's root.
const (
	exportFile    = "api/nebula.export"
	listingFile   = "api/nebula.txt"
	changelogFile = "CHANGELOG.md"
)

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("apicheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	root := fs.String("C", ".", "the module's root `folder`")
	write := fs.Bool("write", false, "record the current API as the API of CHANGELOG.md's latest release (make api)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 0 {
		fmt.Fprintf(stderr, "apicheck: unexpected arguments %q\n", fs.Args())
		return 2
	}
	var err error
	ok := true
	if *write {
		err = record(*root, stdout)
	} else {
		ok, err = check(*root, stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "apicheck: %v\n", err)
		return 1
	}
	if !ok {
		return 1
	}
	return 0
}

// record writes the API of the module at root into api/, as the API of
// CHANGELOG.md's latest release.
func record(root string, stdout io.Writer) error {
	log, err := os.ReadFile(filepath.Join(root, changelogFile))
	if err != nil {
		return err
	}
	version, err := latestRelease(log)
	if err != nil {
		return fmt.Errorf("%s: %w", changelogFile, err)
	}
	fset := token.NewFileSet()
	mod, err := loadModule(fset, root)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(root, "api"), 0o755); err != nil {
		return err
	}
	trimmed, err := trimFileSet(fset, root)
	if err != nil {
		return err
	}
	if err := writeExport(filepath.Join(root, exportFile), trimmed, mod); err != nil {
		return fmt.Errorf("writing %s: %w", exportFile, err)
	}
	// The listing is made from the file just written, as check makes it.
	saved, err := readExport(token.NewFileSet(), filepath.Join(root, exportFile))
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(root, listingFile), listing(saved, version), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "apicheck: recorded the API of %d packages as %s's (%s, %s)\n",
		len(mod.Packages), version, exportFile, listingFile)
	return nil
}

// check compares the module's API at root with the recorded one and
// reports. It returns false when the check fails.
func check(root string, stdout io.Writer) (bool, error) {
	log, err := os.ReadFile(filepath.Join(root, changelogFile))
	if err != nil {
		return false, err
	}
	latest, err := latestRelease(log)
	if err != nil {
		return false, fmt.Errorf("%s: %w", changelogFile, err)
	}
	unreleased, err := unreleasedSection(log)
	if err != nil {
		return false, fmt.Errorf("%s: %w", changelogFile, err)
	}
	old, err := readExport(token.NewFileSet(), filepath.Join(root, exportFile))
	if err != nil {
		return false, fmt.Errorf("%w (make api records it)", err)
	}
	text, err := os.ReadFile(filepath.Join(root, listingFile))
	if err != nil {
		return false, fmt.Errorf("%w (make api records it)", err)
	}
	if !bytes.Equal(text, listing(old, recordedVersion(text))) {
		fmt.Fprintf(stdout, "apicheck: %s does not list what %s holds (edited by hand?); run make api at a release\n", listingFile, exportFile)
		return false, nil
	}
	if v := recordedVersion(text); v != latest {
		fmt.Fprintf(stdout, "apicheck: api/ records the API of %s, but %s's latest release is %s: run make api to record it\n", v, changelogFile, latest)
		return false, nil
	}
	cur, err := loadModule(token.NewFileSet(), root)
	if err != nil {
		return false, err
	}
	if cur.Path != old.Path {
		// A copy made by scripts/newgame.sh: its packages' paths differ
		// from the record's in every type, which apidiff would report as
		// changed. The record is Nebula's, not the copy's.
		fmt.Fprintf(stdout, "apicheck: skipped: api/ records the API of %s, and this module is %s (a copy: run make api to record its own)\n", old.Path, cur.Path)
		return true, nil
	}
	res := compare(old, cur, unreleased)
	fmt.Fprintf(stdout, "apicheck: the API against %s's: %d incompatible changes (%d in %s's Unreleased section), %d compatible\n",
		latest, len(res.unlisted)+len(res.listed), len(res.listed), changelogFile, len(res.compatible))
	section := func(title string, lines []string) {
		if len(lines) == 0 {
			return
		}
		fmt.Fprintln(stdout, title)
		for _, l := range lines {
			fmt.Fprintln(stdout, "  "+l)
		}
	}
	section("incompatible, in the change log:", res.listed)
	section("compatible:", res.compatible)
	if len(res.unlisted) > 0 {
		section("INCOMPATIBLE, NOT IN THE CHANGE LOG (name each as `PKG.NAME` under Unreleased, saying what to do; keep a // Deprecated: alias where it can be; see CONTRIBUTING.md):", res.unlisted)
		return false, nil
	}
	return true, nil
}

// result is compare's answer: each change as "PKG.NAME: what apidiff says".
type result struct {
	unlisted, listed, compatible []string
}

// compare compares the old and new modules' packages one by one and
// sorts the changes by whether the Unreleased section names them.
func compare(old, cur *apidiff.Module, unreleased string) result {
	var res result
	oldPkgs := byRelPath(old)
	newPkgs := byRelPath(cur)
	add := func(key, what string, compatible bool) {
		line := key + what
		switch {
		case compatible:
			res.compatible = append(res.compatible, line)
		case names(unreleased, key):
			res.listed = append(res.listed, line)
		default:
			res.unlisted = append(res.unlisted, line)
		}
	}
	for _, rel := range sortedKeys(oldPkgs) {
		np, ok := newPkgs[rel]
		if !ok {
			add(rel, ": package removed", false)
			continue
		}
		for _, c := range apidiff.Changes(oldPkgs[rel], np).Changes {
			name, what := splitMessage(c.Message)
			add(rel+"."+name, what, c.Compatible)
		}
	}
	for _, rel := range sortedKeys(newPkgs) {
		if _, ok := oldPkgs[rel]; !ok {
			add(rel, ": package added", true)
		}
	}
	return res
}

// splitMessage splits a message of apidiff.Changes into the name it is
// about and the rest: "(*World).Spawn: removed" is World.Spawn and ":
// removed"; "(*embedded).M, method set of *T: removed" is embedded.M and ",
// method set of *T: removed".
func splitMessage(msg string) (name, rest string) {
	i := strings.IndexAny(msg, ",:")
	if i < 0 {
		return msg, ""
	}
	name, rest = msg[:i], msg[i:]
	if strings.HasPrefix(name, "(*") {
		name = strings.Replace(name[2:], ")", "", 1)
	}
	return name, rest
}

// names reports whether text names key standing alone: not as part of a
// longer name (engine.Engine.Add is not engine.Engine.AddFixed, nor
// xengine.World).
func names(text, key string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], key)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(key)
		if !nameByte(text, start-1) && !nameByte(text, end) {
			return true
		}
		i = start + 1
	}
}

// nameByte reports whether text[i] exists and could continue a name:
// a letter, digit, underscore, or a dot or slash followed by one.
func nameByte(text string, i int) bool {
	if i < 0 || i >= len(text) {
		return false
	}
	c := text[i]
	if c == '.' || c == '/' {
		return i+1 < len(text) && isIdent(text[i+1]) && i > 0 && isIdent(text[i-1])
	}
	return isIdent(c)
}

func isIdent(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c >= 0x80
}

// byRelPath maps each package of m by its path inside the module ("engine",
// "engine/geom"; the root package is ".").
func byRelPath(m *apidiff.Module) map[string]*types.Package {
	pkgs := map[string]*types.Package{}
	for _, p := range m.Packages {
		pkgs[relPath(m.Path, p.Path())] = p
	}
	return pkgs
}

func relPath(module, pkg string) string {
	if pkg == module {
		return "."
	}
	return strings.TrimPrefix(pkg, module+"/")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// public reports whether the package at rel (its path inside the module)
// is public API: not a program's (under cmd/) and in no internal folder.
func public(rel string) bool {
	for _, elem := range strings.Split(rel, "/") {
		if elem == "internal" {
			return false
		}
	}
	return rel != "cmd" && !strings.HasPrefix(rel, "cmd/")
}

// loadModule type-checks the public packages of the module at root (from
// the build's export data, through go list).
func loadModule(fset *token.FileSet, root string) (*apidiff.Module, error) {
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedTypes | packages.NeedModule,
		Dir:  root,
		Fset: fset,
	}
	loaded, err := packages.Load(cfg, "./...")
	if err != nil {
		return nil, fmt.Errorf("loading the module's packages: %w", err)
	}
	var (
		mod  = &apidiff.Module{}
		errs []error
	)
	for _, p := range loaded {
		for _, e := range p.Errors {
			errs = append(errs, e)
		}
		if p.Module == nil || p.Name == "main" {
			continue
		}
		mod.Path = p.Module.Path
		if public(relPath(p.Module.Path, p.PkgPath)) {
			mod.Packages = append(mod.Packages, p.Types)
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("loading the module's packages: %w", errors.Join(errs...))
	}
	if len(mod.Packages) == 0 {
		return nil, fmt.Errorf("no public packages in %s", root)
	}
	slices.SortFunc(mod.Packages, func(a, b *types.Package) int { return strings.Compare(a.Path(), b.Path()) })
	return mod, nil
}

// trimFileSet returns a copy of fset whose files are named without the
// folders of this machine (the module's root, the module cache, GOROOT),
// so that the recorded export data is the same wherever it is made.
func trimFileSet(fset *token.FileSet, root string) (*token.FileSet, error) {
	out, err := exec.Command("go", "env", "GOMODCACHE", "GOROOT").Output()
	if err != nil {
		return nil, fmt.Errorf("go env: %w", err)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	prefixes := []string{abs + string(filepath.Separator)}
	for _, dir := range strings.Fields(string(out)) {
		prefixes = append(prefixes, dir+string(filepath.Separator))
	}
	trimmed := token.NewFileSet()
	fset.Iterate(func(f *token.File) bool {
		name := f.Name()
		for _, p := range prefixes {
			if rest, ok := strings.CutPrefix(name, p); ok {
				name = filepath.ToSlash(rest)
				break
			}
		}
		if f.Base() < trimmed.Base() {
			err = fmt.Errorf("trimming file names: %s overlaps the file before it", f.Name())
			return false
		}
		t := trimmed.AddFile(name, f.Base(), f.Size())
		t.SetLines(f.Lines())
		return true
	})
	return trimmed, err
}

// writeExport writes the module's packages as cmd/apidiff -m -w does: a
// zip with an entry "module" holding the module's path and an entry
// PACKAGE.x with each package's export data.
func writeExport(name string, fset *token.FileSet, mod *apidiff.Module) (err error) {
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	entry, err := w.Create("module")
	if err != nil {
		return err
	}
	if _, err := io.WriteString(entry, mod.Path); err != nil {
		return err
	}
	for _, p := range mod.Packages {
		entry, err := w.Create(p.Path() + ".x")
		if err != nil {
			return err
		}
		if err := gcexportdata.Write(entry, fset, p); err != nil {
			return fmt.Errorf("%s: %w", p.Path(), err)
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	return os.WriteFile(name, buf.Bytes(), 0o644)
}

// readExport reads a file writeExport wrote.
func readExport(fset *token.FileSet, name string) (*apidiff.Module, error) {
	z, err := zip.OpenReader(name)
	if err != nil {
		return nil, err
	}
	defer z.Close()
	mod := &apidiff.Module{}
	for _, f := range z.File {
		r, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		data, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", name, f.Name, err)
		}
		if f.Name == "module" {
			mod.Path = string(data)
			continue
		}
		path, ok := strings.CutSuffix(f.Name, ".x")
		if !ok {
			return nil, fmt.Errorf("%s: unexpected entry %q", name, f.Name)
		}
		p, err := gcexportdata.Read(bytes.NewReader(data), fset, map[string]*types.Package{}, path)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", name, path, err)
		}
		mod.Packages = append(mod.Packages, p)
	}
	if mod.Path == "" {
		return nil, fmt.Errorf("%s: no module entry", name)
	}
	return mod, nil
}

// listing returns the module's API as text, a line per exported name, for
// people to read: the first line names the release.
func listing(mod *apidiff.Module, version string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# API %s of %s (its public packages), written by make api from %s; do not edit.\n", version, mod.Path, exportFile)
	pkgs := byRelPath(mod)
	for _, rel := range sortedKeys(pkgs) {
		p := pkgs[rel]
		qual := func(other *types.Package) string {
			if other == p {
				return ""
			}
			return other.Name()
		}
		var lines []string
		line := func(s string) { lines = append(lines, "pkg "+rel+", "+s) }
		scope := p.Scope()
		for _, name := range scope.Names() {
			obj := scope.Lookup(name)
			if !obj.Exported() {
				continue
			}
			switch obj := obj.(type) {
			case *types.Const:
				line(fmt.Sprintf("const %s %s = %s", obj.Name(), types.TypeString(obj.Type(), qual), obj.Val()))
			case *types.TypeName:
				describeType(obj, qual, line)
			default:
				line(types.ObjectString(obj, qual))
			}
		}
		slices.Sort(lines)
		for _, l := range lines {
			b.WriteString(l + "\n")
		}
	}
	return b.Bytes()
}

// describeType writes the lines of a type: its declaration, its exported
// fields or interface methods, and its exported methods.
func describeType(obj *types.TypeName, qual types.Qualifier, line func(string)) {
	decl := types.ObjectString(obj, qual)
	switch u := obj.Type().Underlying().(type) {
	case *types.Struct:
		if !obj.IsAlias() {
			decl = strings.TrimSuffix(decl, types.TypeString(u, qual)) + "struct"
		}
		line(decl)
		for i := range u.NumFields() {
			if f := u.Field(i); f.Exported() {
				if f.Embedded() {
					line(fmt.Sprintf("type %s struct, embedded %s", obj.Name(), types.TypeString(f.Type(), qual)))
				} else {
					line(fmt.Sprintf("type %s struct, %s %s", obj.Name(), f.Name(), types.TypeString(f.Type(), qual)))
				}
			}
		}
	case *types.Interface:
		if !obj.IsAlias() {
			decl = strings.TrimSuffix(decl, types.TypeString(u, qual)) + "interface"
		}
		line(decl)
		for i := range u.NumEmbeddeds() {
			line(fmt.Sprintf("type %s interface, %s", obj.Name(), types.TypeString(u.EmbeddedType(i), qual)))
		}
		for i := range u.NumExplicitMethods() {
			if m := u.ExplicitMethod(i); m.Exported() {
				line(fmt.Sprintf("type %s interface, %s%s", obj.Name(), m.Name(), strings.TrimPrefix(types.TypeString(m.Type(), qual), "func")))
			}
		}
	default:
		line(decl)
	}
	named, ok := obj.Type().(*types.Named)
	if !ok || obj.IsAlias() {
		return
	}
	for i := range named.NumMethods() {
		m := named.Method(i)
		if !m.Exported() {
			continue
		}
		sig := m.Type().(*types.Signature)
		recv := types.TypeString(sig.Recv().Type(), qual)
		line(fmt.Sprintf("method (%s) %s%s", recv, m.Name(), strings.TrimPrefix(types.TypeString(sig, qual), "func")))
	}
}

// recordedVersion returns the release a listing's first line names.
func recordedVersion(listing []byte) string {
	first, _, _ := bytes.Cut(listing, []byte("\n"))
	f := strings.Fields(string(first))
	if len(f) < 3 || f[0] != "#" || f[1] != "API" {
		return ""
	}
	return f[2]
}

// releaseHeading matches a release's heading in the change log:
// "## [0.15.0] - 2026-11-27" or "## [Unreleased]".
var releaseHeading = regexp.MustCompile(`^## \[([^\]]+)\]`)

// unreleasedSection returns the text of the change log's Unreleased
// section, up to the next release's heading.
func unreleasedSection(log []byte) (string, error) {
	var (
		b  strings.Builder
		in bool
	)
	sc := bufio.NewScanner(bytes.NewReader(log))
	for sc.Scan() {
		if m := releaseHeading.FindStringSubmatch(sc.Text()); m != nil {
			if in {
				return b.String(), nil
			}
			in = m[1] == "Unreleased"
			continue
		}
		if in {
			b.WriteString(sc.Text() + "\n")
		}
	}
	if !in {
		return "", errors.New(`no "## [Unreleased]" section`)
	}
	return b.String(), sc.Err()
}

// latestRelease returns the version of the change log's first release
// heading after Unreleased, with a "v": "## [0.15.0]" is v0.15.0.
func latestRelease(log []byte) (string, error) {
	sc := bufio.NewScanner(bytes.NewReader(log))
	for sc.Scan() {
		if m := releaseHeading.FindStringSubmatch(sc.Text()); m != nil && m[1] != "Unreleased" {
			return "v" + m[1], nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", errors.New("no release heading (## [X.Y.Z] - DATE)")
}
