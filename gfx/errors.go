package gfx

import (
	"fmt"
	"strings"

	"github.com/go-gl/gl/v4.1-core/gl"
)

// Error is an OpenGL error code as glGetError returns it. Compare with
// errors.Is, for example errors.Is(err, gfx.Error(gl.INVALID_OPERATION)).
// Its String is the code's GL name, for example "GL_INVALID_ENUM".
type Error uint32

//go:generate go run golang.org/x/tools/cmd/stringer@v0.52.0 -type=Error -linecomment

// The codes glGetError returns, named for stringer: String returns the GL
// name in each line's comment.
const (
	glNoError                     Error = gl.NO_ERROR                      // GL_NO_ERROR
	glInvalidEnum                 Error = gl.INVALID_ENUM                  // GL_INVALID_ENUM
	glInvalidValue                Error = gl.INVALID_VALUE                 // GL_INVALID_VALUE
	glInvalidOperation            Error = gl.INVALID_OPERATION             // GL_INVALID_OPERATION
	glInvalidFramebufferOperation Error = gl.INVALID_FRAMEBUFFER_OPERATION // GL_INVALID_FRAMEBUFFER_OPERATION
	glOutOfMemory                 Error = gl.OUT_OF_MEMORY                 // GL_OUT_OF_MEMORY
	glStackUnderflow              Error = gl.STACK_UNDERFLOW               // GL_STACK_UNDERFLOW
	glStackOverflow               Error = gl.STACK_OVERFLOW                // GL_STACK_OVERFLOW
	// glContextLost is GL_CONTEXT_LOST (OpenGL 4.5, KHR_robustness), which
	// a 4.1 context may still report; go-gl's 4.1 bindings do not define it.
	glContextLost Error = 0x0507 // GL_CONTEXT_LOST
)

// name returns the error's GL name, for example "GL_INVALID_ENUM", or
// "GL error 0x1234" for a code OpenGL does not name.
func (e Error) name() string {
	if s := e.String(); strings.HasPrefix(s, "GL_") {
		return s
	}
	return fmt.Sprintf("GL error 0x%04X", uint32(e))
}

// Error returns "gfx: OpenGL error " and the error's name.
func (e Error) Error() string { return "gfx: OpenGL error " + e.name() }

// maxErrors bounds how many codes CheckError drains: OpenGL keeps one flag
// per kind of error, but a lost context may report GL_CONTEXT_LOST forever.
const maxErrors = 8

// CheckError drains OpenGL's error flags. It returns nil when none was set,
// an Error when one was, and when several were, one error listing them all
// that errors.Is matches against each. It does not allocate when there is
// no error.
func CheckError() error {
	first := Error(gl.GetError())
	if first == glNoError {
		return nil
	}
	errs := Errors{first}
	for len(errs) < maxErrors {
		e := Error(gl.GetError())
		if e == glNoError {
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
		names[i] = e.name()
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
