package gfx

import (
	"fmt"
	"strings"

	"github.com/go-gl/gl/v4.1-core/gl"
)

// Error is an OpenGL error code as glGetError returns it. Compare with
// errors.Is, for example errors.Is(err, gfx.Error(gl.INVALID_OPERATION)).
type Error uint32

// contextLost is GL_CONTEXT_LOST (OpenGL 4.5, KHR_robustness), which a 4.1
// context may still report; go-gl's 4.1 bindings do not define it.
const contextLost = 0x0507

// String returns the error's GL name, for example "GL_INVALID_ENUM".
func (e Error) String() string {
	switch e {
	case gl.NO_ERROR:
		return "GL_NO_ERROR"
	case gl.INVALID_ENUM:
		return "GL_INVALID_ENUM"
	case gl.INVALID_VALUE:
		return "GL_INVALID_VALUE"
	case gl.INVALID_OPERATION:
		return "GL_INVALID_OPERATION"
	case gl.INVALID_FRAMEBUFFER_OPERATION:
		return "GL_INVALID_FRAMEBUFFER_OPERATION"
	case gl.OUT_OF_MEMORY:
		return "GL_OUT_OF_MEMORY"
	case gl.STACK_UNDERFLOW:
		return "GL_STACK_UNDERFLOW"
	case gl.STACK_OVERFLOW:
		return "GL_STACK_OVERFLOW"
	case contextLost:
		return "GL_CONTEXT_LOST"
	default:
		return fmt.Sprintf("GL error 0x%04X", uint32(e))
	}
}

// Error returns "gfx: OpenGL error " and the error's name.
func (e Error) Error() string { return "gfx: OpenGL error " + e.String() }

// maxErrors bounds how many codes CheckError drains: OpenGL keeps one flag
// per kind of error, but a lost context may report GL_CONTEXT_LOST forever.
const maxErrors = 8

// CheckError drains OpenGL's error flags. It returns nil when none was set,
// an Error when one was, and when several were, one error listing them all
// that errors.Is matches against each. It does not allocate when there is
// no error.
func CheckError() error {
	first := Error(gl.GetError())
	if first == gl.NO_ERROR {
		return nil
	}
	errs := Errors{first}
	for len(errs) < maxErrors {
		e := Error(gl.GetError())
		if e == gl.NO_ERROR {
			break
		}
		errs = append(errs, e)
	}
	if len(errs) == 1 {
		return first
	}
	return errs
}

// Errors is several OpenGL errors reported by one CheckError, oldest first.
type Errors []Error

// Error names every error, in order.
func (es Errors) Error() string {
	names := make([]string, len(es))
	for i, e := range es {
		names[i] = e.String()
	}
	return "gfx: OpenGL errors " + strings.Join(names, ", ")
}

// Unwrap lets errors.Is and errors.As see each Error.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}
