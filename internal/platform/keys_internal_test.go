package platform

import (
	"testing"

	"github.com/go-gl/glfw/v3.3/glfw"

	"github.com/nebulaengine/nebula/engine"
)

// Every engine key has exactly one GLFW key, and the two tables agree.
func TestKeyTablesRoundTrip(t *testing.T) {
	seen := map[glfw.Key]engine.Key{}
	for k := engine.Key(1); k < engine.KeyCount; k++ {
		g := glfwKey(k)
		if g == glfw.KeyUnknown {
			t.Errorf("engine key %v has no GLFW key", k)
			continue
		}
		if other, dup := seen[g]; dup {
			t.Errorf("GLFW key %d maps from both %v and %v", g, other, k)
		}
		seen[g] = k
		if back := engineKey(g); back != k {
			t.Errorf("engineKey(glfwKey(%v)) = %v", k, back)
		}
	}
}

func TestKeyTranslation(t *testing.T) {
	tests := []struct {
		glfw glfw.Key
		want engine.Key
	}{
		{glfw.KeyA, engine.KeyA},
		{glfw.Key7, engine.Key7},
		{glfw.KeyLeft, engine.KeyArrowLeft},
		{glfw.KeyRight, engine.KeyArrowRight},
		{glfw.KeyUp, engine.KeyArrowUp},
		{glfw.KeyDown, engine.KeyArrowDown},
		{glfw.KeyEscape, engine.KeyEscape},
		{glfw.KeyF12, engine.KeyF12},
		{glfw.KeyLeftControl, engine.KeyLeftCtrl},
		{glfw.KeyEqual, engine.KeyEqual},
		{glfw.KeyKPEnter, engine.KeyUnknown},  // keypad: not an engine key
		{glfw.KeyUnknown, engine.KeyUnknown},  // -1
		{glfw.KeyLast + 1, engine.KeyUnknown}, // out of range
	}
	for _, tt := range tests {
		if got := engineKey(tt.glfw); got != tt.want {
			t.Errorf("engineKey(%d) = %v, want %v", tt.glfw, got, tt.want)
		}
	}
	if g := glfwKey(engine.KeyUnknown); g != glfw.KeyUnknown {
		t.Errorf("glfwKey(KeyUnknown) = %d, want glfw.KeyUnknown", g)
	}
	if g := glfwKey(engine.KeyCount); g != glfw.KeyUnknown {
		t.Errorf("glfwKey(KeyCount) = %d, want glfw.KeyUnknown", g)
	}
}

func TestButtonTranslation(t *testing.T) {
	tests := []struct {
		glfw glfw.MouseButton
		want engine.MouseButton
		ok   bool
	}{
		{glfw.MouseButtonLeft, engine.MouseButtonLeft, true},
		{glfw.MouseButtonRight, engine.MouseButtonRight, true},
		{glfw.MouseButtonMiddle, engine.MouseButtonMiddle, true},
		{glfw.MouseButton8, engine.MouseButton8, true},
		{glfw.MouseButtonLast + 1, 0, false},
		{-1, 0, false},
	}
	for _, tt := range tests {
		got, ok := engineButton(tt.glfw)
		if got != tt.want || ok != tt.ok {
			t.Errorf("engineButton(%d) = %v, %v; want %v, %v", tt.glfw, got, ok, tt.want, tt.ok)
		}
	}
}
