package debugdraw_test

import (
	"math"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/geom"
	"github.com/nebulaengine/nebula/engine/physics"
	"github.com/nebulaengine/nebula/engine/physics/debugdraw"
	"github.com/nebulaengine/nebula/engine/render"
)

type scene struct {
	t *testing.T
	e *engine.Engine
	s *physics.Space
}

func newScene(t *testing.T) *scene {
	t.Helper()
	e, err := engine.New(engine.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	s, err := physics.Attach(e, physics.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	return &scene{t: t, e: e, s: s}
}

// add spawns a body of kind k and shape sh at pos, turned by rot.
func (sc *scene) add(k physics.Kind, sh physics.Shape, pos mgl32.Vec3, rot mgl32.Quat, edit ...func(*physics.BodyDef)) engine.Entity {
	sc.t.Helper()
	tr := geom.NewTransform(pos)
	tr.Rot = rot
	ent := sc.e.World.Spawn(tr, engine.Interpolate)
	d := physics.NewBodyDef(k, sh)
	for _, f := range edit {
		f(&d)
	}
	if err := sc.s.AddBody(ent, d); err != nil {
		sc.t.Fatal(err)
	}
	return ent
}

func (sc *scene) ticks(n int) {
	for range n {
		if !sc.e.StepTick(0) {
			sc.t.Fatal(sc.e.Err())
		}
	}
}

// only returns the options with nothing on but what set turns on.
func only(set func(*debugdraw.Options)) debugdraw.Options {
	o := debugdraw.DefaultOptions()
	o.Shapes, o.Contacts, o.Joints, o.Bounds, o.Queries, o.Characters = false, false, false, false, false, false
	set(&o)
	return o
}

var shapesOnly = only(func(o *debugdraw.Options) { o.Shapes = true })

var (
	unitBox = physics.Shape{Kind: physics.Box, HalfExtents: mgl32.Vec3{0.5, 0.5, 0.5}}
	ident   = mgl32.QuatIdent()
)

// colors returns the colour of every segment, checking both ends agree.
func colors(t *testing.T, d *debugdraw.Drawing) [][4]uint8 {
	t.Helper()
	var out [][4]uint8
	for i := 0; i < len(d.Lines); i += 2 {
		if d.Lines[i].Color != d.Lines[i+1].Color {
			t.Fatalf("segment %d: ends coloured %v and %v", i/2, d.Lines[i].Color, d.Lines[i+1].Color)
		}
		out = append(out, d.Lines[i].Color)
	}
	return out
}

// runs returns the colours of c as (colour, count) runs.
func runs(c [][4]uint8) []run {
	var out []run
	for _, x := range c {
		if len(out) > 0 && out[len(out)-1].c == x {
			out[len(out)-1].n++
			continue
		}
		out = append(out, run{x, 1})
	}
	return out
}

type run struct {
	c [4]uint8
	n int
}

// Each shape kind gives its exact number of segments, in its body's
// colour, bodies in slot order: a static box, a dynamic sphere, a
// kinematic capsule, a sensor cylinder, a sleeping dynamic box.
func TestShapesByKind(t *testing.T) {
	sc := newScene(t)
	sc.add(physics.Static, unitBox, mgl32.Vec3{0, -1, 0}, ident)
	sc.add(physics.Dynamic, physics.Shape{Kind: physics.Sphere, Radius: 0.5}, mgl32.Vec3{0, 3, 0}, ident)
	sc.add(physics.Kinematic, physics.Shape{Kind: physics.Capsule, Radius: 0.3, HalfHeight: 0.5}, mgl32.Vec3{3, 3, 0}, ident)
	sc.add(physics.Static, physics.Shape{Kind: physics.Cylinder, Radius: 0.4, HalfHeight: 0.2}, mgl32.Vec3{-3, 3, 0}, ident, func(d *physics.BodyDef) { d.Sensor = true })
	sleeper := sc.add(physics.Dynamic, unitBox, mgl32.Vec3{6, 3, 0}, ident)
	if err := sc.s.Sleep(sleeper); err != nil {
		t.Fatal(err)
	}
	var d debugdraw.Drawing
	d.Build(sc.s, nil, shapesOnly)
	p := debugdraw.DefaultPalette()
	want := []run{
		{p.Static, debugdraw.BoxSegments},
		{p.Dynamic, debugdraw.SphereSegments},
		{p.Kinematic, debugdraw.CapsuleSegments},
		{p.Sensor, debugdraw.CylinderSegments},
		{p.Sleeping, debugdraw.BoxSegments},
	}
	if got := runs(colors(t, &d)); !slices.Equal(got, want) {
		t.Errorf("segments by colour:\n got %v\nwant %v", got, want)
	}
	if debugdraw.SphereSegments != 48 || debugdraw.CapsuleSegments != 68 || debugdraw.CylinderSegments != 36 {
		t.Errorf("sphere %d, capsule %d, cylinder %d segments; want 48, 68, 36",
			debugdraw.SphereSegments, debugdraw.CapsuleSegments, debugdraw.CylinderSegments)
	}
	// The sleeping box wakes when something hits it: its colour follows.
	sc.s.WakeUp(sleeper)
	d.Build(sc.s, nil, shapesOnly)
	if c := colors(t, &d); c[len(c)-1] != p.Dynamic {
		t.Errorf("the woken box is drawn in %v, want dynamic %v", c[len(c)-1], p.Dynamic)
	}
}

// A box's wireframe is its 12 edges, placed by its rotation and position:
// every vertex is a corner, at the half extents from the centre in the
// box's frame.
func TestBoxEdgesPlaced(t *testing.T) {
	sc := newScene(t)
	rot := mgl32.QuatRotate(0.7, mgl32.Vec3{1, 2, 3}.Normalize())
	pos := mgl32.Vec3{1, 2, 3}
	half := mgl32.Vec3{0.5, 1, 1.5}
	sc.add(physics.Static, physics.Shape{Kind: physics.Box, HalfExtents: half}, pos, rot)
	var d debugdraw.Drawing
	d.Build(sc.s, nil, shapesOnly)
	if d.Segments() != 12 {
		t.Fatalf("%d segments, want 12", d.Segments())
	}
	for i, v := range d.Lines {
		l := rot.Inverse().Rotate(v.Pos.Sub(pos))
		for a := range 3 {
			if math.Abs(math.Abs(float64(l[a]))-float64(half[a])) > 1e-5 {
				t.Fatalf("vertex %d at %v in the box's frame, not a corner of ±%v", i, l, half)
			}
		}
	}
}

// A compound draws its parts, a hull its edges, a mesh and a height field
// three segments per triangle, within MeshBound and up to MaxTriangles.
func TestAssetShapes(t *testing.T) {
	sc := newScene(t)
	cid, err := sc.s.AddCompound([]physics.Part{
		{Shape: unitBox, Pos: mgl32.Vec3{-1, 0, 0}},
		{Shape: physics.Shape{Kind: physics.Sphere, Radius: 0.5}, Pos: mgl32.Vec3{1, 0, 0}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var cube []mgl32.Vec3
	for i := range 8 {
		cube = append(cube, mgl32.Vec3{float32(i&1) - 0.5, float32(i>>1&1) - 0.5, float32(i>>2&1) - 0.5})
	}
	h, err := physics.NewConvexHull(cube, 0)
	if err != nil {
		t.Fatal(err)
	}
	hid, err := sc.s.AddConvexHull(h)
	if err != nil {
		t.Fatal(err)
	}
	m, err := physics.NewTriangleMesh([]mgl32.Vec3{{-5, 0, -5}, {5, 0, -5}, {5, 0, 5}, {-5, 0, 5}}, []uint32{0, 2, 1, 0, 3, 2})
	if err != nil {
		t.Fatal(err)
	}
	mid, err := sc.s.AddMesh(m)
	if err != nil {
		t.Fatal(err)
	}
	hf, err := physics.NewHeightField(3, 3, make([]float32, 9), 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	fid, err := sc.s.AddHeightField(hf)
	if err != nil {
		t.Fatal(err)
	}
	sc.add(physics.Dynamic, physics.CompoundShape(cid), mgl32.Vec3{0, 5, 0}, ident)
	sc.add(physics.Dynamic, physics.HullShape(hid), mgl32.Vec3{0, 8, 0}, ident)
	sc.add(physics.Static, physics.Shape{Kind: physics.Mesh, Mesh: mid}, mgl32.Vec3{0, -2, 0}, ident)
	sc.add(physics.Static, physics.HeightFieldShape(fid), mgl32.Vec3{20, -2, 0}, ident)
	var d debugdraw.Drawing
	d.Build(sc.s, nil, shapesOnly)
	p := debugdraw.DefaultPalette()
	want := []run{
		{p.Dynamic, 12 + 48 + h.Edges()},
		{p.Static, 3*2 + 3*8},
	}
	if h.Edges() != 12 {
		t.Errorf("the cube's hull has %d edges, want 12", h.Edges())
	}
	if got := runs(colors(t, &d)); !slices.Equal(got, want) {
		t.Errorf("segments by colour:\n got %v\nwant %v", got, want)
	}

	o := shapesOnly
	o.MaxTriangles = 5
	d.Build(sc.s, nil, o)
	if n := d.Segments(); n != 12+48+12+3*5 {
		t.Errorf("MaxTriangles 5: %d segments, want %d", n, 12+48+12+3*5)
	}
	// The bound holds the height field's first column of cells only
	// (x from 20 to 21): its 4 triangles, none of the mesh's.
	o = shapesOnly
	o.MeshBound, o.MeshBoundMin, o.MeshBoundMax = true, mgl32.Vec3{19, -3, -1}, mgl32.Vec3{20.5, -1, 3}
	d.Build(sc.s, nil, o)
	if n := d.Segments(); n != 12+48+12+3*4 {
		t.Errorf("MeshBound: %d segments, want %d", n, 12+48+12+3*4)
	}
}

// The bodies are drawn at their transforms in the render buffer (the
// frame's interpolated ones), not at the world's.
func TestDrawnAtRenderBuffer(t *testing.T) {
	sc := newScene(t)
	b := sc.add(physics.Dynamic, unitBox, mgl32.Vec3{0, 0, 0}, ident)
	sc.s.SetVelocity(b, mgl32.Vec3{6, 0, 0}, mgl32.Vec3{})
	sc.e.World.Bodies() // the body moves 0.1 m a tick at 60 Hz
	sc.ticks(1)
	var rb engine.RenderBuffer
	sc.e.World.Interpolate(0.5, 1.0/60, engine.DefaultInterpolationConfig(), &rb)
	k, ok := rb.Find(b)
	if !ok {
		t.Fatal("the body is not in the render buffer")
	}
	drawn := rb.Instances[k].Pos
	now := sc.e.World.Transform(b).Pos
	if drawn == now {
		t.Fatalf("the render buffer draws the body at %v, where the world has it: no interpolation to test", drawn)
	}
	var d debugdraw.Drawing
	d.Build(sc.s, &rb, shapesOnly)
	if c := centre(d.Lines); c.Sub(drawn).Len() > 1e-5 {
		t.Errorf("wireframe centred at %v, want the drawn %v (the world's %v)", c, drawn, now)
	}
	d.Build(sc.s, nil, shapesOnly)
	if c := centre(d.Lines); c.Sub(now).Len() > 1e-5 {
		t.Errorf("without a render buffer: wireframe centred at %v, want the world's %v", c, now)
	}
}

// centre returns the mean of the vertices.
func centre(v []render.LineVertex) mgl32.Vec3 {
	var s mgl32.Vec3
	for _, x := range v {
		s = s.Add(x.Pos)
	}
	return s.Mul(1 / float32(len(v)))
}

// A box resting on a floor has touching contact points: each drawn as a
// cross and a normal pointing up from the floor (A, the lower slot) to
// the box.
func TestContacts(t *testing.T) {
	sc := newScene(t)
	sc.add(physics.Static, physics.Shape{Kind: physics.Box, HalfExtents: mgl32.Vec3{5, 0.5, 5}}, mgl32.Vec3{0, -0.5, 0}, ident)
	sc.add(physics.Dynamic, unitBox, mgl32.Vec3{0, 0.5, 0}, ident)
	sc.ticks(30)
	pts := sc.s.Contacts().Ptr().AppendPoints(nil)
	if len(pts) != 4 || !pts[0].Touching {
		t.Fatalf("%d contact points (%+v), want the 4 touching corners of the box", len(pts), pts)
	}
	var d debugdraw.Drawing
	o := only(func(o *debugdraw.Options) { o.Contacts = true })
	d.Build(sc.s, nil, o)
	if d.Segments() != 4*debugdraw.ContactSegments {
		t.Fatalf("%d segments, want %d", d.Segments(), 4*debugdraw.ContactSegments)
	}
	p := debugdraw.DefaultPalette()
	for i := 0; i < len(d.Lines); i += 2 * debugdraw.ContactSegments {
		n := d.Lines[i+6 : i+8] // the normal, after the cross
		if n[0].Color != p.Normal || n[1].Pos.Sub(n[0].Pos).Sub(mgl32.Vec3{0, o.NormalLength, 0}).Len() > 1e-4 {
			t.Errorf("point %d: normal from %v to %v in %v, want %v up in %v", i, n[0].Pos, n[1].Pos, n[0].Color, o.NormalLength, p.Normal)
		}
	}
}

// A revolute joint with limits: the anchors' line and crosses, its axis,
// and the arc of its limits; a joint whose body was removed draws nothing.
func TestJoints(t *testing.T) {
	sc := newScene(t)
	a := sc.add(physics.Static, unitBox, mgl32.Vec3{0, 5, 0}, ident)
	b := sc.add(physics.Dynamic, unitBox, mgl32.Vec3{0, 3, 0}, ident)
	jd := physics.NewJointDef(physics.JointRevolute, a, b)
	jd.AnchorA, jd.AnchorB = mgl32.Vec3{0, -1, 0}, mgl32.Vec3{0, 1, 0}
	jd.Limits, jd.Lower, jd.Upper = true, -0.5, 0.5
	j := sc.e.World.Spawn(geom.NewTransform(mgl32.Vec3{}), engine.NoInterpolation)
	if err := sc.s.AddJoint(j, jd); err != nil {
		t.Fatal(err)
	}
	var d debugdraw.Drawing
	d.Build(sc.s, nil, only(func(o *debugdraw.Options) { o.Joints = true }))
	want := debugdraw.JointSegments + debugdraw.JointAxisSegments + debugdraw.CircleSegments/2
	if d.Segments() != want {
		t.Fatalf("%d segments, want %d", d.Segments(), want)
	}
	if first := d.Lines[0].Pos; first.Sub(mgl32.Vec3{0, 4, 0}).Len() > 1e-5 {
		t.Errorf("the anchors' line starts at %v, want A's anchor at 0 4 0", first)
	}
	p := debugdraw.DefaultPalette()
	if got := runs(colors(t, &d)); !slices.Equal(got, []run{{p.Joint, debugdraw.JointSegments}, {p.Limit, 1 + debugdraw.CircleSegments/2}}) {
		t.Errorf("segments by colour: %v", got)
	}
	// Its body removed, the joint holds nothing and is not drawn.
	sc.s.RemoveBody(b)
	d.Build(sc.s, nil, only(func(o *debugdraw.Options) { o.Joints = true }))
	if d.Segments() != 0 {
		t.Errorf("a joint whose body was removed: %d segments, want 0", d.Segments())
	}
}

// The query log: off, queries draw nothing; on, a ray that hits draws its
// line to the hit, a cross and the normal; a tick with no query forgets
// the last tick's.
func TestQueries(t *testing.T) {
	sc := newScene(t)
	sc.add(physics.Static, unitBox, mgl32.Vec3{0, 0, 0}, ident)
	o := only(func(o *debugdraw.Options) { o.Queries = true })
	var d debugdraw.Drawing
	cast := func() {
		t.Helper()
		if _, ok, err := sc.s.RayCast(mgl32.Vec3{0, 5, 0}, mgl32.Vec3{0, -1, 0}, 10, physics.QueryFilter{}); err != nil || !ok {
			t.Fatalf("the ray missed the box: %v", err)
		}
	}
	cast()
	d.Build(sc.s, nil, o)
	if d.Segments() != 0 || sc.s.QueryLog() != nil {
		t.Fatalf("log off: %d segments, log %v; want none", d.Segments(), sc.s.QueryLog())
	}
	sc.s.SetQueryLog(true)
	cast()
	log := sc.s.QueryLog()
	if len(log) != 1 || log[0].Kind != physics.QueryRay || log[0].Hits != 1 || log[0].Point != (mgl32.Vec3{0, 0.5, 0}) {
		t.Fatalf("log %+v, want one ray hitting at 0 0.5 0", log)
	}
	d.Build(sc.s, nil, o)
	if d.Segments() != debugdraw.RaySegments+debugdraw.ContactSegments {
		t.Fatalf("%d segments, want %d", d.Segments(), debugdraw.RaySegments+debugdraw.ContactSegments)
	}
	if d.Lines[0].Pos != (mgl32.Vec3{0, 5, 0}) || d.Lines[1].Pos != (mgl32.Vec3{0, 0.5, 0}) {
		t.Errorf("the ray drawn from %v to %v, want 0 5 0 to the hit at 0 0.5 0", d.Lines[0].Pos, d.Lines[1].Pos)
	}
	// A sweep of a sphere that misses: its line and the sphere at both
	// ends.
	if _, ok, err := sc.s.Sweep(physics.Shape{Kind: physics.Sphere, Radius: 0.25}, mgl32.Vec3{5, 5, 0}, ident, mgl32.Vec3{1, 0, 0}, physics.QueryFilter{}); err != nil || ok {
		t.Fatalf("the sweep: hit %v, %v", ok, err)
	}
	d.Build(sc.s, nil, o)
	if want := debugdraw.RaySegments + debugdraw.ContactSegments + 1 + 2*debugdraw.SphereSegments; d.Segments() != want {
		t.Errorf("ray and sweep: %d segments, want %d", d.Segments(), want)
	}
	sc.ticks(1)
	if d.Build(sc.s, nil, o); d.Segments() != 0 {
		t.Errorf("a tick later: %d segments, want none", d.Segments())
	}
	cast()
	if n := len(sc.s.QueryLog()); n != 1 {
		t.Errorf("the next tick's log holds %d queries, want 1", n)
	}
	sc.s.SetQueryLog(false)
	if sc.s.QueryLog() != nil {
		t.Error("the log is off but QueryLog returns records")
	}
}

// A grounded character: its capsule in the character colour and its ground
// normal from its feet, up.
func TestCharacterGroundProbe(t *testing.T) {
	sc := newScene(t)
	sc.add(physics.Static, physics.Shape{Kind: physics.Box, HalfExtents: mgl32.Vec3{5, 0.5, 5}}, mgl32.Vec3{0, -0.5, 0}, ident)
	c := sc.e.World.Spawn(geom.NewTransform(mgl32.Vec3{0, 0.85, 0}), engine.Interpolate)
	if err := sc.s.AddCharacter(c, physics.NewCharacterDef(0.3, 0.5)); err != nil {
		t.Fatal(err)
	}
	if err := sc.e.AddSystem(engine.StageScripts, "move", func(*engine.FixedContext) {
		if _, err := sc.s.MoveCharacter(c, mgl32.Vec3{0, -0.1, 0}); err != nil {
			t.Error(err)
		}
	}); err != nil {
		t.Fatal(err)
	}
	sc.ticks(10)
	ch, _ := sc.s.Character(c)
	if !ch.Grounded {
		t.Fatalf("the character is not grounded: %+v at %v", ch, sc.e.World.Transform(c).Pos)
	}
	var d debugdraw.Drawing
	o := only(func(o *debugdraw.Options) { o.Shapes, o.Characters = true, true })
	d.Build(sc.s, nil, o)
	p := debugdraw.DefaultPalette()
	want := []run{{p.Static, 12}, {p.Character, debugdraw.CapsuleSegments}, {p.Ground, 1}}
	if got := runs(colors(t, &d)); !slices.Equal(got, want) {
		t.Fatalf("segments by colour:\n got %v\nwant %v", got, want)
	}
	feet := sc.e.World.Transform(c).Pos.Sub(mgl32.Vec3{0, 0.8, 0})
	probe := d.Lines[len(d.Lines)-2:]
	if probe[0].Pos.Sub(feet).Len() > 1e-5 || probe[1].Pos.Sub(feet.Add(ch.GroundNormal.Mul(o.NormalLength))).Len() > 1e-5 {
		t.Errorf("ground probe from %v to %v, want from the feet %v along %v", probe[0].Pos, probe[1].Pos, feet, ch.GroundNormal)
	}
}

// Bounding boxes: a box turned 45° about Y has the box of its turned
// corners.
func TestBounds(t *testing.T) {
	sc := newScene(t)
	sc.add(physics.Static, unitBox, mgl32.Vec3{}, mgl32.QuatRotate(math.Pi/4, mgl32.Vec3{0, 1, 0}))
	sc.add(physics.Static, physics.Shape{Kind: physics.Sphere, Radius: 1}, mgl32.Vec3{5, 0, 0}, ident)
	var d debugdraw.Drawing
	d.Build(sc.s, nil, only(func(o *debugdraw.Options) { o.Bounds = true }))
	if d.Segments() != 24 {
		t.Fatalf("%d segments, want 2 boxes of 12", d.Segments())
	}
	lo, hi := extent(d.Lines[:24])
	r := float32(math.Sqrt2 / 2)
	if lo.Sub(mgl32.Vec3{-r, -0.5, -r}).Len() > 1e-5 || hi.Sub(mgl32.Vec3{r, 0.5, r}).Len() > 1e-5 {
		t.Errorf("the turned box's bounds %v to %v, want ±%v, ±0.5, ±%v", lo, hi, r, r)
	}
	if lo, hi := extent(d.Lines[24:]); lo != (mgl32.Vec3{4, -1, -1}) || hi != (mgl32.Vec3{6, 1, 1}) {
		t.Errorf("the sphere's bounds %v to %v, want 4 -1 -1 to 6 1 1", lo, hi)
	}
}

func extent(v []render.LineVertex) (lo, hi mgl32.Vec3) {
	lo, hi = v[0].Pos, v[0].Pos
	for _, x := range v {
		for a := range 3 {
			lo[a], hi[a] = min(lo[a], x.Pos[a]), max(hi[a], x.Pos[a])
		}
	}
	return lo, hi
}

// Build is deterministic (the same segments twice) and allocates nothing
// once warm; the query log allocates nothing once warm either.
func TestBuildNoAllocs(t *testing.T) {
	sc := newScene(t)
	sc.add(physics.Static, physics.Shape{Kind: physics.Box, HalfExtents: mgl32.Vec3{5, 0.5, 5}}, mgl32.Vec3{0, -0.5, 0}, ident)
	for i := range 5 {
		sc.add(physics.Dynamic, physics.Shape{Kind: physics.Capsule, Radius: 0.2, HalfHeight: 0.3}, mgl32.Vec3{float32(i), 1, 0}, ident)
	}
	sc.s.SetQueryLog(true)
	sc.ticks(20)
	var rb engine.RenderBuffer
	sc.e.World.Interpolate(0.5, 1.0/60, engine.DefaultInterpolationConfig(), &rb)
	o := debugdraw.DefaultOptions()
	o.Bounds = true
	var d debugdraw.Drawing
	frame := func() {
		if !sc.e.StepTick(0) {
			t.Fatal(sc.e.Err())
		}
		if _, _, err := sc.s.RayCast(mgl32.Vec3{0, 5, 0}, mgl32.Vec3{0, -1, 0}, 10, physics.QueryFilter{}); err != nil {
			t.Fatal(err)
		}
		sc.e.World.Interpolate(0.5, 1.0/60, engine.DefaultInterpolationConfig(), &rb)
		d.Build(sc.s, &rb, o)
	}
	frame()
	if allocs := testing.AllocsPerRun(20, frame); allocs != 0 {
		t.Errorf("%v allocations a tick and frame, want 0", allocs)
	}
	first := slices.Clone(d.Lines)
	d.Build(sc.s, &rb, o)
	if len(first) < 100 || !slices.Equal(first, d.Lines) {
		t.Error("two Builds of the same world differ")
	}
}
