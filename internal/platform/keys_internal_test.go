package platform

import (
	"testing"

	"github.com/go-gl/glfw/v3.3/glfw"

	"github.com/nebulaengine/nebula/engine/input"
)

// Every engine key has exactly one GLFW key, and the two tables agree.
func TestKeyTablesRoundTrip(t *testing.T) {
	seen := map[glfw.Key]input.Key{}
	for k := input.Key(1); k < input.KeyCount; k++ {
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
		want input.Key
	}{
		{glfw.KeyA, input.KeyA},
		{glfw.Key7, input.Key7},
		{glfw.KeyLeft, input.KeyArrowLeft},
		{glfw.KeyRight, input.KeyArrowRight},
		{glfw.KeyUp, input.KeyArrowUp},
		{glfw.KeyDown, input.KeyArrowDown},
		{glfw.KeyEscape, input.KeyEscape},
		{glfw.KeyF12, input.KeyF12},
		{glfw.KeyLeftControl, input.KeyLeftCtrl},
		{glfw.KeyEqual, input.KeyEqual},
		{glfw.KeyKPEnter, input.KeyUnknown},  // keypad: not an engine key
		{glfw.KeyUnknown, input.KeyUnknown},  // -1
		{glfw.KeyLast + 1, input.KeyUnknown}, // out of range
	}
	for _, tt := range tests {
		if got := engineKey(tt.glfw); got != tt.want {
			t.Errorf("engineKey(%d) = %v, want %v", tt.glfw, got, tt.want)
		}
	}
	if g := glfwKey(input.KeyUnknown); g != glfw.KeyUnknown {
		t.Errorf("glfwKey(KeyUnknown) = %d, want glfw.KeyUnknown", g)
	}
	if g := glfwKey(input.KeyCount); g != glfw.KeyUnknown {
		t.Errorf("glfwKey(KeyCount) = %d, want glfw.KeyUnknown", g)
	}
}

func TestButtonTranslation(t *testing.T) {
	tests := []struct {
		glfw glfw.MouseButton
		want input.MouseButton
		ok   bool
	}{
		{glfw.MouseButtonLeft, input.MouseButtonLeft, true},
		{glfw.MouseButtonRight, input.MouseButtonRight, true},
		{glfw.MouseButtonMiddle, input.MouseButtonMiddle, true},
		{glfw.MouseButton8, input.MouseButton8, true},
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
