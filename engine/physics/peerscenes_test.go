package physics

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
)

// The benchmark and stacking scenes of Box2D v3 and Box3D, Erin Catto's
// engines, rebuilt for Nebula: the scenes Box2D's and Box3D's authors
// use to show that a stack stands and to time a step. Each is written as
// a list of boxes (peerScene), so the same layout builds a Space for the
// tests and benchmarks here and a nebula-scene file for the reference
// engines (TestPeerSceneFiles). The 3D ones follow Box3D's own ports
// (github.com/erincatto/box3d, shared/benchmarks.c and
// samples/sample_stacking.cpp); the 2D ones, which Box3D has not ported,
// are Box2D's (github.com/erincatto/box2d, shared/benchmarks.c and
// shared/determinism.c) extruded: every 2D box gets a depth, said where
// it is made.
//
// Materials: Box2D and Box3D combine friction as the geometric mean
// sqrt(a·b); Nebula's default is the average. Where both bodies have the
// same coefficient the two agree; where they differ (the card house: 0.7
// on 0.6) the average is 0.65 and the geometric mean 0.648. Box3D's
// rolling resistance (0.05 on the cards, 0.1 on the box stack) has no
// counterpart in Nebula and is left out, so the scenes here are the
// harder ones.

// peerBody is one box of a peer scene.
type peerBody struct {
	id       string
	kind     Kind
	half     mgl32.Vec3 // the box's half extents
	pos      mgl32.Vec3
	rot      mgl32.Quat
	friction float32
	density  float32    // kg/m³, dynamic bodies
	vel, ang mgl32.Vec3 // initial velocity and angular velocity (world frame)
}

// peerScene is a scene made only of boxes, in creation order.
type peerScene struct {
	name, description string
	steps             int  // how long the peer runs it, at 60 Hz
	noSleep           bool // the peer turns sleeping off
	bodies            []peerBody
}

// box3DDensity and box3DFriction are Box3D's b3DefaultShapeDef values
// (src/types.c); Box2D's are density 1 and friction 0.6.
const (
	box3DDensity  = 1000
	box3DFriction = 0.6
)

// peerQuatZ is the rotation by angle a (radians) about Z. It goes through
// math.Sin and math.Cos, whose last bit may differ between builds: the
// scenes that use it are behaviour and timing scenes, not goldens.
func peerQuatZ(a float64) mgl32.Quat {
	return mgl32.Quat{W: float32(math.Cos(a / 2)), V: mgl32.Vec3{0, 0, float32(math.Sin(a / 2))}}
}

// peerGround is Box3D's Sample::AddGroundBox (samples/sample.cpp): a
// static box 2·extent wide and deep and 2 m high whose top is y = 0.
func peerGround(extent, friction float32) peerBody {
	return peerBody{id: "ground", kind: Static, half: mgl32.Vec3{extent, 1, extent},
		pos: mgl32.Vec3{0, -1, 0}, rot: mgl32.QuatIdent(), friction: friction}
}

// peerLargePyramid is Box3D's CreateLargePyramid (shared/benchmarks.c), the
// 3D port of Box2D's: a one-cube-deep pyramid of baseCount cubes of half
// size 0.5 at the base (baseCount·(baseCount+1)/2 cubes), density 100,
// each course resting exactly on the one below, on a 800×2×800 m ground,
// with sleeping off. Box3D runs it for 200 steps with baseCount 100 (5,050
// cubes; 20 in its debug build).
func peerLargePyramid(baseCount int) peerScene {
	sc := peerScene{
		name:        "large-pyramid-" + peerItoa(baseCount),
		description: "Box3D CreateLargePyramid (shared/benchmarks.c): a one-cube-deep pyramid of unit cubes, sleeping off in the peer",
		steps:       200, noSleep: true,
	}
	sc.bodies = append(sc.bodies, peerGround(400, box3DFriction))
	const h = 0.5
	for i := range baseCount {
		y := (2*float32(i) + 1) * h
		for j := i; j < baseCount; j++ {
			x := (float32(i)+1)*h + 2*float32(j-i)*h - h*float32(baseCount)
			sc.bodies = append(sc.bodies, peerBody{
				id: "cube-" + peerItoa(i) + "-" + peerItoa(j), kind: Dynamic, half: mgl32.Vec3{h, h, h},
				pos: mgl32.Vec3{x, y, 0}, rot: mgl32.QuatIdent(), friction: box3DFriction, density: 100,
			})
		}
	}
	return sc
}

// peerCardHouse is Box3D's CardHouse sample ("From PEEL",
// samples/sample_stacking.cpp): 40 cards 0.002 m thick, 0.4 m high and
// 0.2 m deep (half extents 0.001, 0.2, 0.1), friction 0.7, density 1000,
// in five storeys: pairs leaning ±25° against each other, with a flat card
// across the tops of each two neighbouring pairs, on a 20×2×20 m ground
// of friction 0.6. (Box3D notes that its box hull limits the thinness and
// breaks this sample in Box3D itself; its rolling resistance of 0.05 is
// left out here.)
func peerCardHouse() peerScene {
	sc := peerScene{
		name:        "card-house",
		description: "Box3D CardHouse (samples/sample_stacking.cpp, from PEEL): 40 cards 0.002×0.4×0.2 m, friction 0.7, in five storeys",
		steps:       600,
	}
	sc.bodies = append(sc.bodies, peerGround(10, box3DFriction))
	const cardHeight, cardThickness, cardDepth = 0.2, 0.001, 0.1
	half := mgl32.Vec3{cardThickness, cardHeight, cardDepth}
	q0, q1, q2 := peerQuatZ(25*math.Pi/180), peerQuatZ(-25*math.Pi/180), peerQuatZ(0.5*math.Pi)
	card := func(x, y float32, q mgl32.Quat) {
		sc.bodies = append(sc.bodies, peerBody{
			id: "card-" + peerItoa(len(sc.bodies)-1), kind: Dynamic, half: half,
			pos: mgl32.Vec3{x, y, 0}, rot: q, friction: 0.7, density: box3DDensity,
		})
	}
	var x0 float32
	y := float32(cardHeight - 0.02)
	for nb := 5; nb > 0; nb-- {
		x := x0
		for i := range nb {
			if i != nb-1 {
				card(x+0.25, y+cardHeight-0.015, q2)
			}
			card(x, y, q1)
			x += 0.175
			card(x, y, q0)
			x += 0.175
		}
		y += cardHeight*2 - 0.03
		x0 += 0.175
	}
	return sc
}

// peerBoxStack is Box3D's BoxStack sample (samples/sample_stacking.cpp): 40
// cubes of half size 0.5, density 1000, friction 0.6, dropped from a
// column with 0.25 m between each two (the lowest 0.25 m above the
// ground), so they land on each other and must stand. Box3D's rolling
// resistance of 0.1 is left out.
func peerBoxStack(n int) peerScene {
	sc := peerScene{
		name:        "box-stack-" + peerItoa(n),
		description: "Box3D BoxStack (samples/sample_stacking.cpp): cubes dropped in a column 0.25 m apart, landing on each other",
		steps:       600,
	}
	sc.bodies = append(sc.bodies, peerGround(40, box3DFriction))
	const a = 0.5
	for i := range n {
		sc.bodies = append(sc.bodies, peerBody{
			id: "box-" + peerItoa(i), kind: Dynamic, half: mgl32.Vec3{a, a, a},
			pos: mgl32.Vec3{0, 1.5*a + 2.5*a*float32(i), 0}, rot: mgl32.QuatIdent(),
			friction: box3DFriction, density: box3DDensity,
		})
	}
	return sc
}

// peerFallingBoxes is Box2D's determinism scene, CreateFallingHinges
// (shared/determinism.c, used by test/test_determinism.c), without its
// hinges (Nebula has no joints yet) and extruded: 4 leaning columns of 20
// cubes of half size 0.25 (depth 0.5 m), each cube 0.1 m (0.4·h) to the
// side of the one below and turned ±0.1 rad about Z in turn, on a
// 80×2×80 m ground (Box2D's is 80×2), density 1, friction 0.6. The
// columns topple and the boxes come to rest. The rotations are constants
// (cos 0.05, sin 0.05 rounded to float32), so the scene is the same bits
// on every build.
func peerFallingBoxes() peerScene {
	sc := peerScene{
		name:        "falling-boxes",
		description: "Box2D CreateFallingHinges (shared/determinism.c) without hinges, extruded: 4 leaning columns of 20 cubes topple",
		steps:       500,
	}
	sc.bodies = append(sc.bodies, peerBody{id: "ground", kind: Static, half: mgl32.Vec3{40, 1, 40},
		pos: mgl32.Vec3{0, -1, 0}, rot: mgl32.QuatIdent(), friction: 0.6})
	const columns, rows = 4, 20
	const h = 0.25
	const offset, dx = 0.4 * h, 10 * h
	xBase := float32(-0.5 * dx * (columns - 1))
	tilt := [2]mgl32.Quat{
		{W: 0.99875026, V: mgl32.Vec3{0, 0, -0.04997917}}, // -0.1 rad
		{W: 0.99875026, V: mgl32.Vec3{0, 0, 0.04997917}},  // +0.1 rad
	}
	for j := range columns {
		x := xBase + float32(j)*dx
		for i := range rows {
			sc.bodies = append(sc.bodies, peerBody{
				id: "box-" + peerItoa(j) + "-" + peerItoa(i), kind: Dynamic, half: mgl32.Vec3{h, h, h},
				pos:      mgl32.Vec3{x + float32(offset*float32(i)), h + 2*h*float32(i), 0},
				rot:      tilt[i&1],
				friction: 0.6, density: 1,
			})
		}
	}
	return sc
}

// peerJengaStack is Box3D's JengaStack sample (samples/sample_stacking.cpp,
// with boxes): 30 layers of two bars 2×0.2×0.2 m (half extents 1, 0.1,
// 0.1), each layer turned 90° about Y from the one below, the bars 1.6 m
// apart and 0.21 m between layers (0.01 m gaps), density 1000, friction
// 0.6, on a 40×2×40 m ground. As in Box3D the first layer starts 0.05 m
// into the ground (its centres at y = 0.05) and is pushed out. Box3D's
// rolling resistance of 0.05 is left out.
func peerJengaStack() peerScene {
	sc := peerScene{
		name:        "jenga-stack",
		description: "Box3D JengaStack (samples/sample_stacking.cpp): 30 crossed layers of two 2×0.2×0.2 m bars",
		steps:       600,
	}
	sc.bodies = append(sc.bodies, peerGround(20, box3DFriction))
	const h, r = 1, 0.1
	const count = 30
	turned := mgl32.Quat{W: 0.70710677, V: mgl32.Vec3{0, 0.70710677, 0}} // 90° about Y
	for i := range count {
		rot, x, z := turned, float32(h-2*r), float32(0)
		if i&1 == 1 {
			rot, x, z = mgl32.QuatIdent(), 0, h-2*r
		}
		y := (2.1*float32(i) + 0.5) * r
		for k, sign := range [2]float32{1, -1} {
			sc.bodies = append(sc.bodies, peerBody{
				id: "bar-" + peerItoa(i) + "-" + peerItoa(k), kind: Dynamic, half: mgl32.Vec3{h, r, r},
				pos: mgl32.Vec3{sign * x, y, sign * z}, rot: rot, friction: box3DFriction, density: box3DDensity,
			})
		}
	}
	return sc
}

// peerDominoes is Box3D's Dominoes sample (samples/sample_stacking.cpp) with
// rings of its debug build's count: each ring has 181 dominoes
// 0.4×1.6×0.1 m (half extents 0.2, 0.8, 0.05) standing every 2° on a
// circle of radius 7 + 1.1·ring m, drawn in by alpha/630 m towards the
// centre at angle alpha so the last passes inside the first, density 1000,
// friction 0.6, on a 160×2×160 m ground. Box3D pushes the first domino
// of each ring with an impulse of 25 N·s along +Z at its top; here that
// impulse is its initial velocity, v = J/m and ω = I⁻¹(r × J), which is
// what the impulse gives before the first step.
func peerDominoes(rings int) peerScene {
	sc := peerScene{
		name:        "dominoes-" + peerItoa(rings),
		description: "Box3D Dominoes (samples/sample_stacking.cpp): rings of 181 dominoes, the first of each pushed at its top",
		steps:       1800,
	}
	sc.bodies = append(sc.bodies, peerGround(80, box3DFriction))
	half := mgl32.Vec3{0.2, 0.8, 0.05}
	// The push: J = 25 N·s along Z at 0.8 m above the centre of a domino
	// of mass m and moments of inertia about X of m(b² + c²)/3.
	m := 8 * 0.2 * 0.8 * 0.05 * box3DDensity
	ix := m * (0.8*0.8 + 0.05*0.05) / 3
	push, spin := mgl32.Vec3{0, 0, float32(25 / m)}, mgl32.Vec3{float32(0.8 * 25 / ix), 0, 0}
	for ring := range rings {
		radius := 7 + 1.1*float64(ring)
		for a := 0; a <= 360; a += 2 {
			rad := float64(a) * math.Pi / 180
			c, s := math.Cos(rad), math.Sin(rad)
			inward := float64(a) / 630
			b := peerBody{
				id: "domino-" + peerItoa(ring) + "-" + peerItoa(a/2), kind: Dynamic, half: half,
				pos:      mgl32.Vec3{float32(radius*c - inward*c), 0.8, float32(radius*s - inward*s)},
				rot:      mgl32.Quat{W: float32(math.Cos(-rad / 2)), V: mgl32.Vec3{0, float32(math.Sin(-rad / 2)), 0}},
				friction: box3DFriction, density: box3DDensity,
			}
			if a == 0 {
				b.vel, b.ang = push, spin
			}
			sc.bodies = append(sc.bodies, b)
		}
	}
	return sc
}

// build adds sc's bodies to tw in order and returns their entities.
func (sc *peerScene) build(tw *testWorld) []engine.Entity {
	es := make([]engine.Entity, len(sc.bodies))
	for i, b := range sc.bodies {
		d := NewBodyDef(b.kind, Shape{Kind: Box, HalfExtents: b.half})
		d.Friction = b.friction
		if b.kind == Dynamic {
			d.Density = b.density
		}
		es[i] = tw.add(d, b.pos, b.rot, b.vel, b.ang)
	}
	return es
}

// config is the Space's configuration for sc: the defaults, with sleeping
// off where the peer turns it off.
func (sc *peerScene) config() Config {
	cfg := DefaultConfig()
	cfg.NoSleep = sc.noSleep
	return cfg
}

// peerTumbler is Box2D's CreateTumbler (shared/benchmarks.c) made kinematic
// as its CreateWasher is, and extruded: a hollow box whose 1 m thick walls
// are centred 10 m from its centre (19×19 m inside), Box2D's four walls
// made 2·depth deep and a front and a back wall closing them, centred
// 10 m up and turning at 25°/s about Z, and a grid×grid×layers lattice of
// cubes of half size 0.125, 0.4 m apart, inside it (Box2D: 45×45 cubes,
// 20×20 in its debug build); depth, the inside's half depth, is
// 0.2·layers + 0.5 m.
type peerTumbler struct {
	body  engine.Entity
	cubes []engine.Entity
	depth float32 // the inside's half depth, m
}

// peerTumblerSpeed is the tumbler's angular speed about Z, rad/s: 25°/s.
const peerTumblerSpeed = 25 * math.Pi / 180

// buildPeerTumbler adds the tumbler and its cubes to tw.
func buildPeerTumbler(tw *testWorld, grid, layers int) (*peerTumbler, error) {
	depth := 0.2*float32(layers) + 0.5
	box := func(hx, hy, hz float32) Shape { return Shape{Kind: Box, HalfExtents: mgl32.Vec3{hx, hy, hz}} }
	id, err := tw.s.AddCompound([]Part{
		{Shape: box(0.5, 10, depth), Pos: mgl32.Vec3{10, 0, 0}},
		{Shape: box(0.5, 10, depth), Pos: mgl32.Vec3{-10, 0, 0}},
		{Shape: box(10, 0.5, depth), Pos: mgl32.Vec3{0, 10, 0}},
		{Shape: box(10, 0.5, depth), Pos: mgl32.Vec3{0, -10, 0}},
		{Shape: box(10.5, 10.5, 0.5), Pos: mgl32.Vec3{0, 0, depth + 0.5}},
		{Shape: box(10.5, 10.5, 0.5), Pos: mgl32.Vec3{0, 0, -depth - 0.5}},
	})
	if err != nil {
		return nil, err
	}
	tb := &peerTumbler{depth: depth}
	d := NewBodyDef(Kinematic, CompoundShape(id))
	tb.body = tw.add(d, mgl32.Vec3{0, 10, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{0, 0, peerTumblerSpeed})
	cube := NewBodyDef(Dynamic, box(0.125, 0.125, 0.125))
	cube.Friction = 0.6
	g := float32(grid)
	y := -0.2*g + 10
	for range grid {
		x := -0.2 * g
		for range grid {
			z := -0.2 * float32(layers-1)
			for range layers {
				tb.cubes = append(tb.cubes, tw.add(cube, mgl32.Vec3{x, y, z}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{}))
				z += 0.4
			}
			x += 0.4
		}
		y += 0.4
	}
	return tb, nil
}

// peerItoa formats a small non-negative integer.
func peerItoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return peerItoa(i/10) + string(rune('0'+i%10))
}
