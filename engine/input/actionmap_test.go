package input

import (
	"hash/fnv"
	"math"
	"strings"
	"testing"
)

// wasd is a game's declaration with a two-axis action driven by four keys
// and a stick.
var wasd = ActionMap{
	Names:   []string{"jump", "move-x", "move-y"},
	Vectors: []Vector{{X: "move-x", Y: "move-y", Deadzone: 0.2}},
	Bindings: `jump key Space
move-x key D
move-x key A scale=-1
move-x axis LeftX
move-y key W
move-y key S scale=-1
move-y axis LeftY scale=-1
`,
}

// An ActionMap makes Actions with its names, vectors and bindings; a bad
// declaration is an error naming what is wrong.
func TestActionMapNew(t *testing.T) {
	a, err := wasd.New()
	if err != nil {
		t.Fatal(err)
	}
	if a.Len() != 3 || a.Name(2) != "move-y" || len(a.Bindings(1)) != 3 || wasd.Len() != 3 {
		t.Errorf("Len %d, Name(2) %q, %d bindings of move-x", a.Len(), a.Name(2), len(a.Bindings(1)))
	}
	for _, tc := range []struct {
		m    ActionMap
		want string
	}{
		{ActionMap{Names: []string{"a", "a"}}, `input: action "a" is declared twice`},
		{ActionMap{Names: []string{"a"}, Vectors: []Vector{{X: "a", Y: "b"}}}, `input: vector 0: no action is named "b"`},
		{ActionMap{Names: []string{"a", "b"}, Vectors: []Vector{{X: "a", Y: "a"}}}, "input: vector 0: input: SetVector: a is both components"},
		{ActionMap{Names: []string{"a", "b", "c"}, Vectors: []Vector{{X: "a", Y: "b"}, {X: "c", Y: "b"}}}, "input: vector 1: input: SetVector c, b: the vector a, b has one of them already"},
		{ActionMap{Names: []string{"a", "b"}, Vectors: []Vector{{X: "a", Y: "b", Deadzone: 1}}}, "input: vector 0: input: SetVector a, b: dead zone 1 is not within [0, 1)"},
		{ActionMap{Names: []string{"a"}, Bindings: "a key Nope\n"}, `input: the default bindings: input: bindings line 1: a: key "Nope": no such key`},
	} {
		if _, err := tc.m.New(); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q...", tc.m, err, tc.want)
		}
	}
}

// A two-axis action is one vector: four keys give unit vectors, two held
// at once a diagonal of length 1 (not sqrt 2), a stick inside the dead
// zone nothing, and past it a length rescaled from the dead zone to 1;
// the values are exact integers.
func TestVectorAction(t *testing.T) {
	a, err := wasd.New()
	if err != nil {
		t.Fatal(err)
	}
	const jump, mx, my Action = 0, 1, 2
	var q Queue
	q.SetActions(a)
	q.Push(Event{Kind: PadConnected})
	step := func(evs ...Event) Sample {
		for _, ev := range evs {
			q.Push(ev)
		}
		return q.Advance(0)
	}
	key := func(k EventKind, key Key) Event { return Event{Kind: k, Key: key} }
	axis := func(ax GamepadAxis, v float64) Event { return Event{Kind: PadAxisMove, Axis: ax, X: v} }
	diag := int16(math.Round(AxisUnit / math.Sqrt2)) // 23170
	for i, tc := range []struct {
		evs  []Event
		x, y int16
	}{
		{nil, 0, 0},
		{[]Event{key(KeyDown, KeyD)}, AxisUnit, 0},
		{[]Event{key(KeyDown, KeyW)}, diag, diag},
		{[]Event{key(KeyUp, KeyD), key(KeyDown, KeyA)}, -diag, diag},
		{[]Event{key(KeyUp, KeyW), key(KeyDown, KeyS)}, -diag, -diag},
		{[]Event{key(KeyUp, KeyA), key(KeyUp, KeyS)}, 0, 0},
		// A stick inside the dead zone (0.2) reads nothing.
		{[]Event{axis(PadLeftX, 0.1), axis(PadLeftY, -0.1)}, 0, 0},
		// 0.6 along x: (0.6-0.2)/(1-0.2) = 0.5.
		{[]Event{axis(PadLeftX, 0.6), axis(PadLeftY, 0)}, 16384, 0},
		// Full right and full up (LeftY is down-positive, scale -1): cut to length 1.
		{[]Event{axis(PadLeftX, 1), axis(PadLeftY, -1)}, diag, diag},
		// The stick and a key: the sum, cut to length 1.
		{[]Event{axis(PadLeftX, 0), axis(PadLeftY, 0), key(KeyDown, KeyD), axis(PadLeftX, 0.5)}, AxisUnit, 0},
	} {
		s := step(tc.evs...)
		x, y := s.ActionVectorUnits(mx, my)
		if x != tc.x || y != tc.y {
			t.Errorf("step %d: vector (%d, %d), want (%d, %d)", i, x, y, tc.x, tc.y)
		}
		if fx, fy := s.ActionVector(mx, my); fx != float32(tc.x)/AxisUnit || fy != float32(tc.y)/AxisUnit {
			t.Errorf("step %d: ActionVector (%v, %v), want the units / AxisUnit", i, fx, fy)
		}
		if s.Action(jump) {
			t.Errorf("step %d: jump is down", i)
		}
	}
}

// normalize is integers only, so its results are the same bits on every
// machine: pinned here over a grid of the whole square, with a dead zone
// and without. It also agrees with the float64 formula within a unit, and
// never leaves [-AxisUnit, AxisUnit] or the unit disc.
func TestNormalizeIsExact(t *testing.T) {
	h := fnv.New64a()
	var buf [8]byte
	for _, dz := range []int32{0, units(0.2), units(0.95)} {
		for x := int32(-AxisUnit); x <= AxisUnit; x += 257 {
			for y := int32(-AxisUnit); y <= AxisUnit; y += 263 {
				nx, ny := normalize(x, y, dz)
				buf[0], buf[1], buf[2], buf[3] = byte(nx), byte(nx>>8), byte(nx>>16), byte(nx>>24)
				buf[4], buf[5], buf[6], buf[7] = byte(ny), byte(ny>>8), byte(ny>>16), byte(ny>>24)
				h.Write(buf[:])
				l := math.Hypot(float64(x), float64(y))
				var wx, wy float64
				switch d := float64(dz); {
				case l <= d:
				case l >= AxisUnit:
					wx, wy = float64(x)/l*AxisUnit, float64(y)/l*AxisUnit
				default:
					f := (l - d) / (AxisUnit - d) / l * AxisUnit
					wx, wy = float64(x)*f, float64(y)*f
				}
				if math.Abs(float64(nx)-wx) > 1 || math.Abs(float64(ny)-wy) > 1 {
					t.Fatalf("normalize(%d, %d, %d) = (%d, %d), want about (%.1f, %.1f)", x, y, dz, nx, ny, wx, wy)
				}
				if int64(nx)*int64(nx)+int64(ny)*int64(ny) > (AxisUnit+1)*(AxisUnit+1) {
					t.Fatalf("normalize(%d, %d, %d) = (%d, %d): longer than 1", x, y, dz, nx, ny)
				}
			}
		}
	}
	if got, want := h.Sum64(), uint64(0x64b55c705ccc5c14); got != want {
		t.Errorf("the grid's results hash to %016x, want %016x", got, want)
	}
}

// A Sample with a vector action keeps it exactly through its binary form
// (what recordings, snapshots and the wire carry).
func TestVectorSurvivesWords(t *testing.T) {
	a, err := wasd.New()
	if err != nil {
		t.Fatal(err)
	}
	var q Queue
	q.SetActions(a)
	q.Push(Event{Kind: KeyDown, Key: KeyW})
	q.Push(Event{Kind: KeyDown, Key: KeyA})
	s := q.Advance(0)
	var w [SampleWords]uint64
	s.Words(&w)
	var back Sample
	if err := back.SetWords(&w); err != nil {
		t.Fatal(err)
	}
	if back != s {
		t.Fatal("the sample read back differs")
	}
	if x, y := back.ActionVectorUnits(1, 2); x != -23170 || y != 23170 {
		t.Errorf("vector read back (%d, %d), want (-23170, 23170)", x, y)
	}
}

// isqrt is the floor of the square root, exactly, near perfect squares
// too.
func TestIsqrt(t *testing.T) {
	for _, r := range []uint64{0, 1, 2, 3, 1000, 1 << 20, 3037000499} {
		for _, n := range []uint64{r * r, r*r + r, r*r + 2*r} {
			if got := isqrt(n); got != r {
				t.Errorf("isqrt(%d) = %d, want %d", n, got, r)
			}
		}
		if r > 0 {
			if got := isqrt(r*r - 1); got != r-1 {
				t.Errorf("isqrt(%d) = %d, want %d", r*r-1, got, r-1)
			}
		}
	}
}
