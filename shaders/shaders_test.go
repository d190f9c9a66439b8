package shaders_test

import (
	"io/fs"
	"slices"
	"strings"
	"testing"

	"github.com/nebulaengine/nebula/shaders"
)

// Every embedded file is GLSL 4.10 core with the #version line first, as
// OpenGL requires (gfx compiles them unchanged, so their line numbers are the
// driver's).
func TestFilesAreGLSL410Core(t *testing.T) {
	names, err := fs.Glob(shaders.FS, "*")
	if err != nil {
		t.Fatal(err)
	}
	// An included file (*.glsl) is a part of a shader, without a #version.
	names = slices.DeleteFunc(names, func(n string) bool { return strings.HasSuffix(n, ".glsl") })
	for _, want := range []string{"cube.vert", "cube.frag", "cube_single.vert", "mesh.vert", "mesh.frag", "mesh_plain.frag", "mesh_faceted.frag", "sphere.vert", "sphere.frag", "overlay.vert", "overlay.frag", "text.vert", "text.frag"} {
		if !slices.Contains(names, want) {
			t.Errorf("FS holds %v, want %s among them", names, want)
		}
	}
	for _, name := range names {
		src, err := fs.ReadFile(shaders.FS, name)
		if err != nil {
			t.Fatalf("ReadFile(%s): %v", name, err)
		}
		if first, _, _ := strings.Cut(string(src), "\n"); first != "#version 410 core" {
			t.Errorf("%s starts with %q, want \"#version 410 core\"", name, first)
		}
		if strings.ContainsRune(string(src), 0) {
			t.Errorf("%s contains a NUL byte", name)
		}
	}
}
