package gfx

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/go-gl/gl/v4.1-core/gl"
)

// Program is a linked OpenGL shader program. Delete it when done; it has no
// finalizer.
type Program uint32

// Delete deletes the program and sets p to 0. Deleting 0 does nothing.
func (p *Program) Delete() {
	if *p != 0 {
		gl.DeleteProgram(uint32(*p))
		*p = 0
	}
}

// ShaderError is a shader that did not compile or a program that did not
// link. Its message names the file (both files for a link), the stage and
// the driver's log, which carries the line numbers:
//
//	gfx: compile cube.frag (fragment shader): 0:12(3): error: `colour' undeclared
//	gfx: link cube.vert + cube.frag: error: vertex shader lacks `main'
//
// A log of several lines is joined with "; " in the message, so the error
// stays on one line; Log keeps the driver's lines as they were.
type ShaderError struct {
	// Op is "compile" or "link".
	Op string
	// Files is the shader file for a compile error, the vertex and the
	// fragment shader files for a link error.
	Files []string
	// Stage is "vertex shader" or "fragment shader" for a compile error,
	// empty for a link error.
	Stage string
	// Log is the driver's info log, without trailing blank space.
	Log string
}

// Error names the files, the stage and the driver's log.
func (e *ShaderError) Error() string {
	var lines []string
	for _, line := range strings.Split(e.Log, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			lines = append(lines, line)
		}
	}
	log := strings.Join(lines, "; ")
	if log == "" {
		log = "(the driver gave no log)"
	}
	if e.Op == "compile" {
		return fmt.Sprintf("gfx: compile %s (%s): %s", strings.Join(e.Files, " + "), e.Stage, log)
	}
	return fmt.Sprintf("gfx: %s %s: %s", e.Op, strings.Join(e.Files, " + "), log)
}

// NewProgram compiles the vertex shader at vertPath and the fragment shader
// at fragPath, both read from fsys (shaders.FS for the engine's own), and
// links them. The sources go to the driver unchanged but for their
// #include lines: a line `#include "name"` is replaced by the file name of
// fsys (one level: an included file includes nothing), between #line
// directives, so the line numbers in the driver's log are the files'
// lines: source 0 the shader's own file, source k its k-th include.
//
// A file that cannot be read is an error wrapping the fs error (which names
// the path); a compile or link failure is a *ShaderError. Init must have
// been called.
func NewProgram(fsys fs.FS, vertPath, fragPath string) (Program, error) {
	mustBeLoaded("NewProgram")
	vsrc, err := fs.ReadFile(fsys, vertPath)
	if err != nil {
		return 0, fmt.Errorf("gfx: load vertex shader: %w", err)
	}
	fsrc, err := fs.ReadFile(fsys, fragPath)
	if err != nil {
		return 0, fmt.Errorf("gfx: load fragment shader: %w", err)
	}

	if vsrc, err = expandIncludes(fsys, vertPath, vsrc); err != nil {
		return 0, err
	}
	if fsrc, err = expandIncludes(fsys, fragPath, fsrc); err != nil {
		return 0, err
	}
	vs, err := compile(gl.VERTEX_SHADER, vertPath, string(vsrc))
	if err != nil {
		return 0, err
	}
	// A shader marked for deletion lives until it is detached from every
	// program; the deferred deletes free both once linking is done.
	defer gl.DeleteShader(vs)
	fsh, err := compile(gl.FRAGMENT_SHADER, fragPath, string(fsrc))
	if err != nil {
		return 0, err
	}
	defer gl.DeleteShader(fsh)

	p := gl.CreateProgram()
	if p == 0 {
		return 0, fmt.Errorf("gfx: link %s + %s: glCreateProgram failed: %w", vertPath, fragPath, errOrUnknown())
	}
	gl.AttachShader(p, vs)
	gl.AttachShader(p, fsh)
	gl.LinkProgram(p)
	gl.DetachShader(p, vs)
	gl.DetachShader(p, fsh)
	var ok int32
	gl.GetProgramiv(p, gl.LINK_STATUS, &ok)
	if ok == gl.FALSE {
		var n int32
		gl.GetProgramiv(p, gl.INFO_LOG_LENGTH, &n)
		log := infoLog(n, func(size int32, length *int32, buf *uint8) { gl.GetProgramInfoLog(p, size, length, buf) })
		gl.DeleteProgram(p)
		return 0, &ShaderError{Op: "link", Files: []string{vertPath, fragPath}, Log: log}
	}
	return Program(p), nil
}

// expandIncludes replaces each `#include "name"` line of src (the file
// path) by the file name of fsys, wrapped in #line directives (see
// NewProgram).
func expandIncludes(fsys fs.FS, path string, src []byte) ([]byte, error) {
	lines := strings.Split(string(src), "\n")
	var out strings.Builder
	included := 0
	for i, line := range lines {
		name, ok := strings.CutPrefix(strings.TrimSpace(line), "#include ")
		if !ok {
			out.WriteString(line)
			if i < len(lines)-1 {
				out.WriteByte('\n')
			}
			continue
		}
		name = strings.Trim(name, `"`)
		inc, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("gfx: %s:%d: include: %w", path, i+1, err)
		}
		if strings.Contains(string(inc), "#include ") {
			return nil, fmt.Errorf("gfx: %s:%d: include %s: an included file includes nothing", path, i+1, name)
		}
		included++
		fmt.Fprintf(&out, "#line 1 %d\n%s\n#line %d 0\n", included, inc, i+2)
	}
	return []byte(out.String()), nil
}

// compile compiles one shader stage; the caller deletes it.
func compile(stage uint32, path, src string) (uint32, error) {
	name := stageName(stage)
	sh := gl.CreateShader(stage)
	if sh == 0 {
		return 0, fmt.Errorf("gfx: compile %s (%s): glCreateShader failed: %w", path, name, errOrUnknown())
	}
	csrc, free := gl.Strs(src + "\x00")
	gl.ShaderSource(sh, 1, csrc, nil)
	free()
	gl.CompileShader(sh)
	var ok int32
	gl.GetShaderiv(sh, gl.COMPILE_STATUS, &ok)
	if ok == gl.FALSE {
		var n int32
		gl.GetShaderiv(sh, gl.INFO_LOG_LENGTH, &n)
		log := infoLog(n, func(size int32, length *int32, buf *uint8) { gl.GetShaderInfoLog(sh, size, length, buf) })
		gl.DeleteShader(sh)
		return 0, &ShaderError{Op: "compile", Files: []string{path}, Stage: name, Log: log}
	}
	return sh, nil
}

func stageName(stage uint32) string {
	switch stage {
	case gl.VERTEX_SHADER:
		return "vertex shader"
	case gl.FRAGMENT_SHADER:
		return "fragment shader"
	}
	return fmt.Sprintf("shader stage 0x%04X", stage)
}

// infoLog reads an info log of n bytes (counting the NUL) with get.
func infoLog(n int32, get func(size int32, length *int32, buf *uint8)) string {
	if n <= 1 {
		return ""
	}
	buf := make([]byte, n)
	var length int32
	get(n, &length, &buf[0])
	if length < 0 || length > n {
		length = 0
	}
	return strings.TrimRight(string(buf[:length]), " \t\r\n\x00")
}

// errOrUnknown returns the pending GL error, or says there was none.
func errOrUnknown() error {
	if err := CheckError(); err != nil {
		return err
	}
	return errNoGLError
}

var errNoGLError = errors.New("gfx: no OpenGL error was recorded (is a context current on this thread?)")

// mustBeLoaded panics when Init has not loaded the GL functions: calling one
// would crash the process with a nil function pointer instead.
func mustBeLoaded(fn string) {
	if !loaded {
		panic("gfx: " + fn + " called before gfx.Init (a current OpenGL context and Init come first)")
	}
}
