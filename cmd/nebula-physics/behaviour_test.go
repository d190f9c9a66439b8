package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// Behaviour checks through the runner: scenes made here, run as a user
// runs a file, judged against closed forms. Each sets out what physics
// predicts and how close the engine must come.

// obj is a JSON object of a scene file.
type obj = map[string]any

// writeScene writes a nebula-scene/1 file with bodies into a temporary
// folder and returns its path.
func writeScene(t *testing.T, name string, steps int, gravity [3]float64, bodies ...obj) string {
	t.Helper()
	data, err := json.Marshal(obj{"format": "nebula-scene/1", "name": name, "hz": 60, "steps": steps, "gravity": gravity, "bodies": bodies})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name+".json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// runScene runs the file with args and returns its result.
func runScene(t *testing.T, path string, args ...string) result {
	t.Helper()
	code, out, errOut := runArgs(append([]string{path}, args...)...)
	if code != 0 {
		t.Fatalf("exit status %d: %s", code, errOut)
	}
	return decode(t, out)
}

var earth = [3]float64{0, -9.81, 0}

func floor(friction, restitution float64) obj {
	return obj{"id": "floor", "kind": "static", "shape": obj{"type": "box", "half_extents": []float64{50, 0.5, 50}},
		"position": []float64{0, -0.5, 0}, "friction": friction, "restitution": restitution}
}

func cube(id string, pos []float64) obj {
	return obj{"id": id, "kind": "dynamic", "shape": obj{"type": "box", "half_extents": []float64{0.5, 0.5, 0.5}}, "position": pos}
}

func length(v []float64) float64 { return math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2]) }

// Free fall, 1 s: semi-implicit Euler over n substeps of h = 1/(60 n)
// moves a body by g h² N(N+1)/2 after N substeps, and its speed is g t.
func TestFreeFall(t *testing.T) {
	path := writeScene(t, "fall", 60, earth, obj{"id": "ball", "kind": "dynamic", "shape": obj{"type": "sphere", "radius": 0.5}, "position": []float64{0, 100, 0}})
	r := runScene(t, path)
	n := r.Config["substeps"].(float64)
	h := 1 / (60 * n)
	N := 60 * n
	wantY := 100 - 9.81*h*h*N*(N+1)/2
	b := r.Bodies[0]
	if y := b.Position[1]; math.Abs(y-wantY) > 1e-4 {
		t.Errorf("y after 1 s = %v, want %v (semi-implicit Euler, %v substeps; the closed form 100 - g/2 = %v)", y, wantY, n, 100-9.81/2)
	}
	if v := b.LinVel[1]; math.Abs(v+9.81) > 1e-4 {
		t.Errorf("vy after 1 s = %v, want -9.81", v)
	}
	if b.Position[0] != 0 || b.Position[2] != 0 {
		t.Errorf("fell sideways: %v", b.Position)
	}
}

// A box resting on the floor stays within 1 mm of where it was put for
// 10 s, and falls asleep.
func TestRestingBox(t *testing.T) {
	r := runScene(t, writeScene(t, "rest", 600, earth, floor(0.5, 0), cube("box", []float64{0, 0.5, 0})))
	b := r.Bodies[0]
	d := []float64{b.Position[0], b.Position[1] - 0.5, b.Position[2]}
	t.Logf("box at %v, asleep %v", b.Position, *b.Sleeping)
	if length(d) > 1e-3 {
		t.Errorf("the box moved %v m in 10 s (to %v), want under 1 mm", length(d), b.Position)
	}
	if !*b.Sleeping {
		t.Error("the box is not asleep after 10 s at rest")
	}
}

// A ball dropped on the floor bounces back to about e² of its height
// (restitution e, the average of ball and floor; no energy lost
// otherwise).
func TestBounceApex(t *testing.T) {
	const e, h = 0.5, 2.0
	ball := obj{"id": "ball", "kind": "dynamic", "shape": obj{"type": "sphere", "radius": 0.5}, "position": []float64{0, h + 0.5, 0}, "restitution": e}
	r := runScene(t, writeScene(t, "bounce", 120, earth, floor(0.5, e), ball), "--trace", "ball")
	landed, apex := false, 0.0
	for _, s := range r.Trace {
		y, vy := s.Position[1]-0.5, s.LinVel[1]
		if !landed && vy > 0 {
			landed = true
		}
		if landed {
			apex = math.Max(apex, y)
		}
	}
	t.Logf("apex %v m after a drop of %v m (ratio %v, e² %v)", apex, h, apex/h, e*e)
	if got, want := apex/h, e*e; math.Abs(got-want) > 0.1*want {
		t.Errorf("apex after the bounce %v m of %v: ratio %v, want e² = %v within 10%%", apex, h, got, want)
	}
}

// A box sliding at v on the floor with friction μ stops after v²/(2μg).
func TestSlidingStops(t *testing.T) {
	const v, mu = 5.0, 0.5
	box := cube("box", []float64{0, 0.5, 0})
	box["linear_velocity"] = []float64{v, 0, 0}
	box["friction"] = mu
	r := runScene(t, writeScene(t, "slide", 180, earth, floor(mu, 0), box))
	b := r.Bodies[0]
	want := v * v / (2 * mu * 9.81)
	t.Logf("slid %v m (v²/(2μg) = %v), final velocity %v", b.Position[0], want, b.LinVel)
	if got := b.Position[0]; math.Abs(got-want) > 0.05*want {
		t.Errorf("slid %v m, want v²/(2μg) = %v within 5%%", got, want)
	}
	if s := length(b.LinVel); s > 1e-3 {
		t.Errorf("still moving at %v m/s after 3 s", s)
	}
}

// A box on a slope stays put below the friction angle (tan θ < μ) and
// slides above it.
func TestSlope(t *testing.T) {
	const mu = 0.5 // friction angle 26.6°
	for _, tt := range []struct {
		deg    float64
		slides bool
	}{{15, false}, {40, true}} {
		th := tt.deg * math.Pi / 180
		// The slope: a static slab turned by θ about z; the box sits on
		// its upper face, turned the same way.
		rot := []float64{0, 0, math.Sin(th / 2), math.Cos(th / 2)}
		n := []float64{-math.Sin(th), math.Cos(th), 0} // the face's normal
		slope := obj{"id": "slope", "kind": "static", "shape": obj{"type": "box", "half_extents": []float64{20, 0.5, 5}},
			"position": []float64{0, 0, 0}, "rotation": rot, "friction": mu}
		box := cube("box", []float64{n[0] * 1.0, n[1] * 1.0, 0}) // 0.5 slab + 0.5 box along the normal
		box["rotation"], box["friction"] = rot, mu
		r := runScene(t, writeScene(t, "slope", 120, earth, slope, box))
		p := r.Bodies[0].Position
		moved := math.Hypot(p[0]-n[0], p[1]-n[1])
		t.Logf("%v°: moved %v m", tt.deg, moved)
		if tt.slides && moved < 1 {
			t.Errorf("%v° (above the friction angle): the box moved %v m in 2 s, want it to slide (over 1 m)", tt.deg, moved)
		}
		if !tt.slides && moved > 0.01 {
			t.Errorf("%v° (below the friction angle): the box moved %v m in 2 s, want it to stay (under 1 cm)", tt.deg, moved)
		}
	}
}

// Ten boxes stacked face on face stand for 10 s.
func TestTenBoxStack(t *testing.T) {
	bodies := []obj{floor(0.5, 0)}
	for i := range 10 {
		bodies = append(bodies, cube("box-"+string(rune('0'+i)), []float64{0, 0.5 + float64(i), 0}))
	}
	r := runScene(t, writeScene(t, "stack", 600, earth, bodies...))
	top := r.Bodies[9].Position
	t.Logf("top box at %v", top)
	if math.Hypot(top[0], top[2]) > 0.05 || math.Abs(top[1]-9.5) > 0.05 {
		t.Errorf("top box at %v after 10 s, want within 5 cm of [0 9.5 0]", top)
	}
}

// A 5 cm ball at 300 m/s with ccd does not pass a 20 cm wall (5 m per
// step at 60 Hz, 25 times the wall's thickness).
func TestCCDWall(t *testing.T) {
	wall := obj{"id": "wall", "kind": "static", "shape": obj{"type": "box", "half_extents": []float64{0.1, 5, 5}}, "position": []float64{10, 0, 0}}
	ball := obj{"id": "ball", "kind": "dynamic", "shape": obj{"type": "sphere", "radius": 0.05}, "position": []float64{0, 0, 0},
		"linear_velocity": []float64{300, 0, 0}, "ccd": true}
	r := runScene(t, writeScene(t, "ccd", 30, [3]float64{}, wall, ball))
	t.Logf("ball at %v, velocity %v", r.Bodies[0].Position, r.Bodies[0].LinVel)
	if x := r.Bodies[0].Position[0]; x > 9.9 {
		t.Errorf("the ball is at x = %v, through the wall (its near face is at 9.9)", x)
	}
}

// Two equal balls meeting head on with restitution 1 exchange velocities.
func TestHeadOnExchange(t *testing.T) {
	ball := func(id string, x, v float64) obj {
		return obj{"id": id, "kind": "dynamic", "shape": obj{"type": "sphere", "radius": 0.5}, "position": []float64{x, 0, 0},
			"linear_velocity": []float64{v, 0, 0}, "restitution": 1}
	}
	r := runScene(t, writeScene(t, "exchange", 60, [3]float64{}, ball("a", -2, 2), ball("b", 2, -2)))
	a, b := r.Bodies[0].LinVel, r.Bodies[1].LinVel
	t.Logf("a %v, b %v", a, b)
	if math.Abs(a[0]+2) > 0.02 || math.Abs(b[0]-2) > 0.02 {
		t.Errorf("after the collision: a %v, b %v; want a -2, b +2 (exchanged) within 1%%", a, b)
	}
}

// A spinning cube without gravity or contacts keeps its angular speed
// (a cube's inertia is the same about every axis, so ω stays constant).
func TestSpinKeepsSpeed(t *testing.T) {
	box := cube("box", []float64{0, 0, 0})
	box["angular_velocity"] = []float64{1, 2, 3}
	r := runScene(t, writeScene(t, "spin", 600, [3]float64{}, box))
	w := r.Bodies[0].AngVel
	t.Logf("ω %v, |ω| %v", w, length(w))
	if got, want := length(w), math.Sqrt(14); math.Abs(got-want) > 1e-4*want {
		t.Errorf("|ω| after 10 s = %v (%v), want %v", got, w, want)
	}
}
