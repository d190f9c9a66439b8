package deploycheck

import (
	"archive/tar"
	"bytes"
	"debug/elf"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// root is the module's root, two folders up from this package.
const root = "../.."

// serverPkg is the program the image carries.
const serverPkg = "./cmd/nebula-server"

// podmanPath returns podman's path, or skips t.
func podmanPath(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("podman")
	if err != nil {
		t.Skip("deploycheck: podman not found (make deps installs it): the image is not built")
	}
	return p
}

// run runs a command and returns its standard output, failing t with its
// output on an error.
func run(t *testing.T, dir string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s%s", name, strings.Join(args, " "), err, out.Bytes(), errb.Bytes())
	}
	return out.String()
}

// TestImage builds the server's image with podman, unpacks it and runs its
// entrypoint alone (the package doc says how).
func TestImage(t *testing.T) {
	podman := podmanPath(t)
	dir := t.TempDir()

	// Can podman build here at all? A one-file image says.
	probe := filepath.Join(dir, "probe")
	if err := os.MkdirAll(probe, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(probe, "file"), []byte("probe\n"), 0o644)
	os.WriteFile(filepath.Join(probe, "Dockerfile"), []byte("FROM scratch\nCOPY file /file\n"), 0o644)
	probeTag := fmt.Sprintf("localhost/nebula-deploycheck-probe:%d", os.Getpid())
	if out, err := exec.Command(podman, "build", "-q", "-t", probeTag, probe).CombinedOutput(); err != nil {
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		t.Skipf("deploycheck: podman cannot build an image here (%v: %s): the image is not built", err, lines[len(lines)-1])
	}
	exec.Command(podman, "rmi", "-f", probeTag).Run()

	// The binary, as the Dockerfile's comment says to build it.
	bin := imageBinary(t)
	context := filepath.Join(dir, "context")
	if err := os.MkdirAll(context, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(bin, filepath.Join(context, "nebula-server")); err != nil {
		b, err := os.ReadFile(bin)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(context, "nebula-server"), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}

	tag := fmt.Sprintf("localhost/nebula-server-deploycheck:%d", os.Getpid())
	run(t, root, podman, "build", "-q", "-t", tag, "-f", "deploy/Dockerfile", context)
	t.Cleanup(func() { exec.Command(podman, "rmi", "-f", tag).Run() })
	archive := filepath.Join(dir, "image.tar")
	run(t, root, podman, "save", "-q", "--format", "docker-archive", "-o", archive, tag)

	cfg, rootfs := unpack(t, archive, filepath.Join(dir, "rootfs"))

	// The image's configuration is the Dockerfile's.
	df := readDockerfile(t)
	if !slices.Equal(cfg.Entrypoint, df.entrypoint) || len(cfg.Entrypoint) != 1 {
		t.Errorf("the image's entrypoint %q, the Dockerfile's %q", cfg.Entrypoint, df.entrypoint)
	}
	if cfg.User != "65534:65534" {
		t.Errorf("the image runs as %q, want 65534:65534 (nobody)", cfg.User)
	}
	var exposed []string
	for p := range cfg.ExposedPorts {
		exposed = append(exposed, p)
	}
	slices.Sort(exposed)
	if want := []string{"7777/tcp", "7777/udp", "9090/tcp"}; !slices.Equal(exposed, want) {
		t.Errorf("the image exposes %v, want %v", exposed, want)
	}

	// Nothing in the image but the binary, and the binary is static.
	var files []string
	filepath.WalkDir(rootfs, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(rootfs, p)
			files = append(files, "/"+filepath.ToSlash(rel))
		}
		return nil
	})
	if len(cfg.Entrypoint) == 0 || !slices.Equal(files, []string{cfg.Entrypoint[0]}) {
		t.Fatalf("the image holds %v, want only its entrypoint %q", files, cfg.Entrypoint)
	}
	bin = filepath.Join(rootfs, filepath.FromSlash(cfg.Entrypoint[0]))
	checkStatic(t, bin)

	// The entrypoint runs alone: an empty environment, an empty folder
	// around it.
	runMatch(t, bin, rootfs)
}

// built is the image's binary, built once per test process.
var built struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// TestMain removes the binary after the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// imageBinary builds the image's binary the first time it is called, as
// deploy/Dockerfile says (static, CGO_ENABLED=0), and returns its path.
func imageBinary(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "deploycheck-"); built.err != nil {
			return
		}
		built.path = filepath.Join(built.dir, "nebula-server")
		cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", built.path, serverPkg)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build %s: %v\n%s", serverPkg, err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.path
}

// imageConfig is the part of an image's configuration the test checks.
type imageConfig struct {
	Entrypoint   []string
	User         string
	ExposedPorts map[string]struct{}
}

// unpack reads a docker-archive (podman save) and extracts its layers, in
// order, into dir; it returns the image's configuration and dir.
func unpack(t *testing.T, archive, dir string) (imageConfig, string) {
	t.Helper()
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	entries := map[string][]byte{}
	links := map[string]string{}
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("reading %s: %v", archive, err)
		}
		switch h.Typeflag {
		case tar.TypeReg:
			b, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			entries[h.Name] = b
		case tar.TypeSymlink:
			links[h.Name] = path.Join(path.Dir(h.Name), h.Linkname)
		}
	}
	get := func(name string) []byte {
		if b, ok := entries[name]; ok {
			return b
		}
		if b, ok := entries[links[name]]; ok {
			return b
		}
		t.Fatalf("%s has no %s", archive, name)
		return nil
	}
	var manifest []struct {
		Config string
		Layers []string
	}
	if err := json.Unmarshal(get("manifest.json"), &manifest); err != nil || len(manifest) != 1 {
		t.Fatalf("%s: manifest.json: %v (%d images)", archive, err, len(manifest))
	}
	var config struct {
		Config imageConfig `json:"config"`
	}
	if err := json.Unmarshal(get(manifest[0].Config), &config); err != nil {
		t.Fatalf("%s: the image's configuration: %v", archive, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, l := range manifest[0].Layers {
		if err := extract(get(l), dir); err != nil {
			t.Fatalf("%s: layer %s: %v", archive, l, err)
		}
	}
	return config.Config, dir
}

// extract writes a layer's directories and regular files under dir; it
// refuses any other kind of entry, and names that leave dir.
func extract(layer []byte, dir string) error {
	tr := tar.NewReader(bytes.NewReader(layer))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		name := path.Clean("/" + h.Name)
		if strings.Contains(h.Name, "..") {
			return fmt.Errorf("entry %q leaves the root", h.Name)
		}
		target := filepath.Join(dir, filepath.FromSlash(name))
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			b, err := io.ReadAll(tr)
			if err != nil {
				return err
			}
			if err := os.WriteFile(target, b, os.FileMode(h.Mode)&0o755|0o600); err != nil {
				return err
			}
		default:
			return fmt.Errorf("entry %q of type %q: the image should hold only the binary", h.Name, h.Typeflag)
		}
	}
}

// checkStatic fails t unless bin is an ELF executable with no interpreter
// and no shared library: it runs on an empty file system.
func checkStatic(t *testing.T, bin string) {
	t.Helper()
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatalf("the entrypoint: %v", err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("the entrypoint has an ELF interpreter: it is not static (build it with CGO_ENABLED=0)")
		}
	}
	libs, err := f.ImportedLibraries()
	if err != nil && !errors.Is(err, elf.ErrNoSymbols) {
		t.Fatal(err)
	}
	if len(libs) > 0 {
		t.Errorf("the entrypoint needs shared libraries %v", libs)
	}
}

// dockerfile is what the test reads of deploy/Dockerfile.
type dockerfile struct {
	from       string
	entrypoint []string
	user       string
	expose     []string // "7777/tcp", ...
	copies     [][]string
}

// readDockerfile reads deploy/Dockerfile's instructions (one per line, no
// continuations: the file uses none).
func readDockerfile(t *testing.T) dockerfile {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "deploy", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	var d dockerfile
	for i, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		word, rest, _ := strings.Cut(line, " ")
		rest = strings.TrimSpace(rest)
		switch strings.ToUpper(word) {
		case "FROM":
			d.from = rest
		case "COPY":
			d.copies = append(d.copies, strings.Fields(rest))
		case "USER":
			d.user = rest
		case "EXPOSE":
			d.expose = append(d.expose, strings.Fields(rest)...)
		case "ENTRYPOINT":
			if err := json.Unmarshal([]byte(rest), &d.entrypoint); err != nil {
				t.Fatalf("deploy/Dockerfile:%d: ENTRYPOINT %s: want the exec (JSON) form: %v", i+1, rest, err)
			}
		default:
			t.Errorf("deploy/Dockerfile:%d: %s: an instruction the test does not know (the image is one binary FROM scratch)", i+1, word)
		}
	}
	return d
}
