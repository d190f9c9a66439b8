package gfx_test

import (
	"strings"
	"testing"

	"github.com/go-gl/gl/v4.1-core/gl"

	"github.com/nebulaengine/nebula/gfx"
)

// With the nebuladebug tag Frame panics on a GL error; without it, Frame
// leaves the error for CheckError.
func TestFrameErrorCheckFollowsTheBuildTag(t *testing.T) {
	r, w, h := newRenderer(t, testSize)
	var got any
	var after error
	onMain(func() {
		func() {
			defer func() { got = recover() }()
			gl.Enable(0xFFFF) // records GL_INVALID_ENUM, unchecked
			r.Draw(w, h, black, testCamera, gridInstances(3, 3), nil)
		}()
		after = gfx.CheckError()
	})
	if gfx.DebugChecks {
		msg, _ := got.(string)
		if !strings.HasPrefix(msg, "gfx: ") || !strings.Contains(msg, "GL_INVALID_ENUM") || !strings.Contains(msg, "Renderer.Draw") {
			t.Errorf("nebuladebug Frame after a GL error panicked with %v, want a gfx: message naming Renderer.Draw and GL_INVALID_ENUM", got)
		}
		if after != nil {
			t.Errorf("CheckError after the panic = %v, want nil (the check drained it)", after)
		}
		return
	}
	if got != nil {
		t.Errorf("Frame panicked with %v in a build without nebuladebug", got)
	}
	if after == nil || !strings.Contains(after.Error(), "GL_INVALID_ENUM") {
		t.Errorf("CheckError after Frame = %v, want the pending GL_INVALID_ENUM", after)
	}
}
