package gfx_test

import (
	"errors"
	"io/fs"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/nebulaengine/nebula/gfx"
)

const goodVert = `#version 410 core
layout(location = 0) in vec3 aPos;
void main() {
    gl_Position = vec4(aPos, 1.0);
}
`

const goodFrag = `#version 410 core
out vec4 fragColor;
void main() {
    fragColor = vec4(1.0);
}
`

func TestNewProgramErrors(t *testing.T) {
	newContext(t)
	fsys := fstest.MapFS{
		"good.vert": {Data: []byte(goodVert)},
		"good.frag": {Data: []byte(goodFrag)},
		// A syntax error on line 4.
		"bad.frag": {Data: []byte("#version 410 core\nout vec4 fragColor;\nvoid main() {\n    fragColor = vec4(1.0) +* 2;\n}\n")},
		// An undeclared identifier on line 5.
		"bad.vert": {Data: []byte("#version 410 core\nlayout(location = 0) in vec3 aPos;\n\nvoid main() {\n    gl_Position = vec4(aPoz, 1.0);\n}\n")},
		// Compiles, but a program needs main to link.
		"nomain.vert": {Data: []byte("#version 410 core\nvec4 helper() { return vec4(0.0); }\n")},
	}
	tests := []struct {
		name, vert, frag string
		// The error must contain these and match line, where the driver's
		// log names the line as "0:N(" (Mesa), "0(N)" (NVIDIA, Intel on
		// Windows) or "0:N:" (Apple, AMD).
		want  []string
		line  int
		op    string
		files []string
		stage string
	}{
		{"fragment syntax error", "good.vert", "bad.frag", []string{"gfx: compile bad.frag (fragment shader): "}, 4, "compile", []string{"bad.frag"}, "fragment shader"},
		{"vertex undeclared identifier", "bad.vert", "good.frag", []string{"gfx: compile bad.vert (vertex shader): ", "aPoz"}, 5, "compile", []string{"bad.vert"}, "vertex shader"},
		{"link without main", "nomain.vert", "good.frag", []string{"gfx: link nomain.vert + good.frag: "}, 0, "link", []string{"nomain.vert", "good.frag"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p gfx.Program
			var err, glErr error
			onMain(func() {
				p, err = gfx.NewProgram(fsys, tt.vert, tt.frag)
				p.Delete()
				glErr = gfx.CheckError()
			})
			if glErr != nil {
				t.Errorf("GL error after NewProgram: %v", glErr)
			}
			if err == nil {
				t.Fatalf("NewProgram(%s, %s) succeeded, want an error", tt.vert, tt.frag)
			}
			t.Logf("error: %v", err)
			msg := err.Error()
			for _, want := range tt.want {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q does not contain %q", msg, want)
				}
			}
			if strings.Contains(msg, "\n") {
				t.Errorf("error %q spans several lines, want one", msg)
			}
			if tt.line > 0 {
				re := regexp.MustCompile(`\b0(:|\()` + strconv.Itoa(tt.line) + `\b`)
				if !re.MatchString(msg) {
					t.Errorf("error %q does not name line %d (as %s)", msg, tt.line, re)
				}
			}
			var se *gfx.ShaderError
			if !errors.As(err, &se) {
				t.Fatalf("error %T is not a *gfx.ShaderError", err)
			}
			if se.Op != tt.op || strings.Join(se.Files, ",") != strings.Join(tt.files, ",") || se.Stage != tt.stage || se.Log == "" {
				t.Errorf("ShaderError = %+v, want Op %q, Files %v, Stage %q and a log", se, tt.op, tt.files, tt.stage)
			}
		})
	}

	t.Run("good", func(t *testing.T) {
		var p gfx.Program
		var err error
		onMain(func() {
			p, err = gfx.NewProgram(fsys, "good.vert", "good.frag")
			defer p.Delete()
			if err == nil && p == 0 {
				err = errors.New("program 0 without an error")
			}
			if err == nil {
				err = gfx.CheckError()
			}
		})
		if err != nil {
			t.Fatal(err)
		}
	})

	t.Run("missing file", func(t *testing.T) {
		var err error
		onMain(func() { _, err = gfx.NewProgram(fsys, "good.vert", "missing.frag") })
		if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "missing.frag") || !strings.HasPrefix(err.Error(), "gfx: ") {
			t.Errorf("NewProgram with a missing file = %v, want a gfx: error naming missing.frag that matches fs.ErrNotExist", err)
		}
	})
}
