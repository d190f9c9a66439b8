package gfx_test

import (
	"strings"
	"testing"
	"time"

	"github.com/go-gl/gl/v4.1-core/gl"

	"github.com/nebulaengine/nebula/gfx"
)

// newGPUTimer builds a Renderer (to give the GPU work) and a GPUTimer,
// deleted when the test ends.
func newGPUTimer(t testing.TB) (r *gfx.Renderer, tm *gfx.GPUTimer, w, h int) {
	t.Helper()
	r, w, h = newRenderer(t, testSize)
	var err error
	onMain(func() { tm, err = gfx.NewGPUTimer() })
	if err != nil {
		t.Fatalf("NewGPUTimer: %v", err)
	}
	t.Cleanup(func() { onMain(tm.Delete) })
	return r, tm, w, h
}

// The timer measures frames of many cubes: nothing on the first frame
// (the result cannot be ready without waiting for the GPU, and Latest does
// not wait), a plausible duration a few frames later.
func TestGPUTimerMeasuresFrames(t *testing.T) {
	r, tm, w, h := newGPUTimer(t)
	insts := gridInstances(20_000, 142)
	var (
		firstOK bool
		d       time.Duration
		ok      bool
		frames  int
		err     error
	)
	onMain(func() {
		tm.Begin()
		r.Draw(w, h, black, testCamera, insts, nil)
		tm.End()
		_, firstOK = tm.Latest()
		for frames = 1; frames < 500 && !ok; frames++ {
			tm.Begin()
			r.Draw(w, h, black, testCamera, insts, nil)
			tm.End()
			d, ok = tm.Latest()
		}
		err = gfx.CheckError()
	})
	if err != nil {
		t.Fatal(err)
	}
	if firstOK {
		t.Errorf("Latest() right after the first End reported a measurement: it cannot have one without waiting for the GPU")
	}
	t.Logf("first measurement after %d frames: %v", frames, d)
	if !ok {
		t.Fatalf("no measurement after %d frames", frames)
	}
	if d <= 0 || d >= time.Second {
		t.Errorf("GPU time of a frame of %d cubes = %v, want more than 0 and less than 1s", len(insts), d)
	}

	// Once the GPU has finished, the last frame's result is there.
	var last time.Duration
	onMain(func() {
		tm.Begin()
		r.Draw(w, h, black, testCamera, insts, nil)
		tm.End()
		gl.Finish()
		last, ok = tm.Latest()
		err = gfx.CheckError()
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("after glFinish: %v", last)
	if !ok || last <= 0 || last >= time.Second {
		t.Errorf("Latest() after glFinish = %v, %v, want the last frame's plausible duration", last, ok)
	}
}

// More frames in flight than queries: Begin skips frames rather than wait,
// and the results still arrive.
func TestGPUTimerNeverWaits(t *testing.T) {
	r, tm, w, h := newGPUTimer(t)
	insts := gridInstances(20_000, 142)
	var (
		ok      bool
		skipped int
		err     error
	)
	const frames = 10
	onMain(func() {
		for range frames {
			tm.Begin()
			r.Draw(w, h, black, testCamera, insts, nil)
			tm.End()
		}
		gl.Finish()
		_, ok = tm.Latest()
		skipped = tm.Skipped()
		err = gfx.CheckError()
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d of %d frames skipped", skipped, frames)
	if !ok {
		t.Errorf("Latest() after %d frames and glFinish reported no measurement", frames)
	}
	if skipped < 0 || skipped >= frames {
		t.Errorf("Skipped() = %d after %d frames, want fewer: the first frames always have a free query", skipped, frames)
	}
}

func TestGPUTimerDoesNotAllocate(t *testing.T) {
	r, tm, w, h := newGPUTimer(t)
	insts := gridInstances(100, 10)
	var allocs float64
	var err error
	onMain(func() {
		allocs = testing.AllocsPerRun(100, func() {
			tm.Begin()
			r.Draw(w, h, black, testCamera, insts, nil)
			tm.End()
			tm.Latest()
		})
		err = gfx.CheckError()
	})
	if err != nil {
		t.Fatal(err)
	}
	if allocs != 0 {
		t.Errorf("Begin+Frame+End+Latest allocate %v times per frame, want 0", allocs)
	}
}

func TestGPUTimerMisusePanics(t *testing.T) {
	_, tm, _, _ := newGPUTimer(t)
	tests := []struct {
		name string
		f    func()
		want string
	}{
		{"End without Begin", func() { tm.End() }, "without Begin"},
		{"Begin twice", func() { tm.Begin(); tm.Begin() }, "twice"},
		{"after Delete", func() { tm.End(); tm.Delete(); tm.Delete(); tm.Latest() }, "deleted"},
	}
	for _, tt := range tests {
		var got any
		onMain(func() {
			defer func() { got = recover() }()
			tt.f()
		})
		if msg, _ := got.(string); !strings.HasPrefix(msg, "gfx: ") || !strings.Contains(msg, tt.want) {
			t.Errorf("%s: panicked with %v, want a message starting with \"gfx: \" containing %q", tt.name, got, tt.want)
		}
	}
	var err error
	onMain(func() { err = gfx.CheckError() })
	if err != nil {
		t.Error(err)
	}
}
