// Package debugdraw makes a debug drawing of a physics Space as coloured
// line segments, without GL: every body's shape as a wireframe, coloured
// by its kind and by sleeping; the contact points and their normals; the
// joints (anchors, the line between them, a hinge's axis and limits);
// the bodies' bounding boxes; the ray casts, sweeps and overlaps of the
// last tick (Space.SetQueryLog); and each character's ground probe.
//
// The bodies are drawn where the frame draws them: at their interpolated
// transforms in an engine.RenderBuffer (World.Interpolate's), so the
// wireframe sits exactly on the drawn bodies. Contacts and queries are
// drawn where the last tick found them. The drawing reads the world and
// changes nothing in it: the simulation never knows it is drawn.
//
// Drawing.Build fills Drawing.Lines, which gfx.LineBatch draws; package
// engine/desktop/physicsview draws it in a window in one call:
//
//	var d debugdraw.Drawing
//	d.Build(space, &eng.Render, debugdraw.DefaultOptions())
//	batch.Draw(width, height, camera, d.Lines)
//
// A Build allocates nothing once its buffers have grown to the scene, and
// gives the same segments, in the same order, for the same world.
package debugdraw

import (
	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/physics"
	"github.com/nebulaengine/nebula/engine/render"
)

// CircleSegments is the number of segments a full circle is drawn with (a
// sphere's three great circles, a capsule's and a cylinder's rings, a
// swing cone); a half circle takes half as many.
const CircleSegments = 16

// Palette holds the drawing's colours, RGBA.
type Palette struct {
	Static, Dynamic, Kinematic, Sensor [4]uint8 // a body's shape, by kind (a sensor whatever its kind)
	Sleeping                           [4]uint8 // a sleeping body's shape
	Character                          [4]uint8 // a character's capsule
	Contact, Normal                    [4]uint8 // a contact point's cross, and its normal
	Joint, Limit                       [4]uint8 // a joint's anchors and line, and its axis and limits
	Bounds                             [4]uint8 // a body's bounding box
	Query, Hit                         [4]uint8 // a query's ray or shape, and where it hit
	Ground                             [4]uint8 // a grounded character's ground normal
}

// DefaultPalette returns the default colours: static grey, dynamic green,
// kinematic blue, sensors yellow, sleeping dark purple, characters cyan,
// contacts red with white normals, joints orange with magenta axes and
// limits, bounding boxes dim grey, queries light blue hitting pink, the
// ground probe lime.
func DefaultPalette() Palette {
	return Palette{
		Static:    [4]uint8{150, 150, 150, 255},
		Dynamic:   [4]uint8{60, 230, 90, 255},
		Kinematic: [4]uint8{70, 140, 255, 255},
		Sensor:    [4]uint8{255, 220, 40, 255},
		Sleeping:  [4]uint8{120, 70, 160, 255},
		Character: [4]uint8{0, 230, 230, 255},
		Contact:   [4]uint8{255, 40, 40, 255},
		Normal:    [4]uint8{255, 255, 255, 255},
		Joint:     [4]uint8{255, 150, 0, 255},
		Limit:     [4]uint8{255, 0, 200, 255},
		Bounds:    [4]uint8{90, 90, 100, 255},
		Query:     [4]uint8{120, 200, 255, 255},
		Hit:       [4]uint8{255, 120, 200, 255},
		Ground:    [4]uint8{180, 255, 0, 255},
	}
}

// Options says what a Drawing shows.
type Options struct {
	Shapes     bool // every body's shape
	Contacts   bool // the cached contacts' points and normals
	Joints     bool // the joints
	Bounds     bool // every body's bounding box
	Queries    bool // the last tick's queries (drawn when the Space's query log is on)
	Characters bool // each character's ground probe (and its capsule in Palette.Character)

	// MeshBound limits the triangles of meshes and height fields drawn to
	// those whose box overlaps the box from MeshBoundMin to MeshBoundMax
	// (world coordinates), when set; MaxTriangles, when positive, is the
	// most triangles drawn in all (the first in each mesh's order).
	MeshBound                  bool
	MeshBoundMin, MeshBoundMax mgl32.Vec3 // the bound's corners, when MeshBound
	MaxTriangles               int        // the most triangles drawn (0: no limit)

	// ContactSize is the half size of a contact point's cross, and
	// NormalLength the length of the normals, axes and ground probe drawn,
	// m.
	ContactSize, NormalLength float32

	Palette Palette // the colours
}

// DefaultOptions returns everything on but the bounding boxes, meshes
// drawn whole up to 20,000 triangles, 5 cm contact crosses, 0.5 m
// normals, and DefaultPalette.
func DefaultOptions() Options {
	return Options{
		Shapes: true, Contacts: true, Joints: true, Queries: true, Characters: true,
		MaxTriangles: 20000, ContactSize: 0.05, NormalLength: 0.5,
		Palette: DefaultPalette(),
	}
}

// Drawing is a debug drawing of a Space. Keep one and Build it every
// frame: its buffers are reused.
type Drawing struct {
	// Lines are the segments Build made: consecutive pairs of vertices,
	// in world coordinates.
	Lines []render.LineVertex

	opts      Options
	tris      int // triangles drawn so far in this Build
	parts     []physics.Part
	edges     [][2]mgl32.Vec3
	points    []physics.ContactPoint
	rb        *engine.RenderBuffer
	w         *engine.World
	boxLo     mgl32.Vec3 // the bounding box of the shape being drawn
	boxHi     mgl32.Vec3
	boxActive bool
}

// Segments returns the number of segments in d.Lines.
func (d *Drawing) Segments() int { return len(d.Lines) / 2 }

// Build replaces d.Lines with the drawing of s that o asks for. Bodies are
// drawn where the frame rb holds (the engine's Render buffer) draws them,
// interpolated, on either interpolation path, whether or not the entity
// itself is drawn (engine.World.DrawTransform); when rb is nil, at their
// current transforms in s's world.
func (d *Drawing) Build(s *physics.Space, rb *engine.RenderBuffer, o Options) {
	d.Lines = d.Lines[:0]
	d.opts, d.tris, d.rb, d.w = o, 0, rb, s.World()
	defer func() { d.rb, d.w = nil, nil }()
	if o.Shapes || o.Bounds || o.Characters {
		d.bodies(s)
	}
	if o.Contacts {
		d.contacts(s)
	}
	if o.Joints {
		d.joints(s)
	}
	if o.Queries {
		d.queries(s)
	}
}

// pose returns where the drawing places entity e: where the frame in the
// render buffer draws it (engine.World.DrawTransform: interpolated, on
// either interpolation path, drawn or not), or its current transform.
func (d *Drawing) pose(e engine.Entity) (mgl32.Vec3, mgl32.Quat) {
	if d.rb != nil {
		if t, ok := d.w.DrawTransform(e, d.rb); ok {
			return t.Pos, t.Rot
		}
	}
	t := d.w.WorldTransform(e)
	return t.Pos, t.Rot
}

// bodies draws every body's shape, bounding box and ground probe.
func (d *Drawing) bodies(s *physics.Space) {
	o := &d.opts
	vals, _ := s.Bodies().Slices()
	for _, i := range s.Bodies().Indices() {
		e, _ := d.w.EntityAt(int(i))
		b := &vals[i]
		pos, rot := d.pose(e)
		ch, char := physics.Character{}, false
		if o.Characters {
			ch, char = s.Character(e)
		}
		if o.Shapes || o.Bounds {
			c := d.bodyColor(b, char)
			d.boxActive = o.Bounds
			d.boxLo, d.boxHi = mgl32.Vec3{inf, inf, inf}, mgl32.Vec3{-inf, -inf, -inf}
			d.shape(s, b.Shape, pos, rot, c, o.Shapes)
			d.boxActive = false
			if o.Bounds && d.boxLo[0] <= d.boxHi[0] {
				d.box(d.boxLo, d.boxHi, o.Palette.Bounds)
			}
		}
		if char {
			d.groundProbe(&ch, pos, rot)
		}
	}
}

// inf is a float32 larger than any coordinate.
const inf = float32(3.4e38)

// bodyColor returns the colour b's shape is drawn in.
func (d *Drawing) bodyColor(b *physics.Body, char bool) [4]uint8 {
	p := &d.opts.Palette
	switch {
	case b.Asleep:
		return p.Sleeping
	case b.Sensor:
		return p.Sensor
	case char:
		return p.Character
	case b.Kind == physics.Static:
		return p.Static
	case b.Kind == physics.Kinematic:
		return p.Kinematic
	}
	return p.Dynamic
}

// groundProbe draws a grounded character's ground normal from its feet.
func (d *Drawing) groundProbe(c *physics.Character, pos mgl32.Vec3, rot mgl32.Quat) {
	if !c.Grounded {
		return
	}
	// The capsule stands along its body's local Y (AddCharacter turns it
	// onto Up).
	up := rot.Rotate(mgl32.Vec3{0, 1, 0})
	feet := pos.Sub(up.Mul(c.HalfHeight + c.Radius))
	d.seg(feet, feet.Add(c.GroundNormal.Mul(d.opts.NormalLength)), d.opts.Palette.Ground)
}

// seg adds the segment from a to b in colour c.
func (d *Drawing) seg(a, b mgl32.Vec3, c [4]uint8) {
	d.Lines = append(d.Lines, render.LineVertex{Pos: a, Color: c}, render.LineVertex{Pos: b, Color: c})
}

// cross adds a cross of half size r at p: three segments along the axes.
func (d *Drawing) cross(p mgl32.Vec3, r float32, c [4]uint8) {
	d.seg(p.Sub(mgl32.Vec3{r, 0, 0}), p.Add(mgl32.Vec3{r, 0, 0}), c)
	d.seg(p.Sub(mgl32.Vec3{0, r, 0}), p.Add(mgl32.Vec3{0, r, 0}), c)
	d.seg(p.Sub(mgl32.Vec3{0, 0, r}), p.Add(mgl32.Vec3{0, 0, r}), c)
}

// box adds the 12 edges of the axis-aligned box from lo to hi.
func (d *Drawing) box(lo, hi mgl32.Vec3, c [4]uint8) {
	corner := func(i int) mgl32.Vec3 {
		v := lo
		for a := range 3 {
			if i&(1<<a) != 0 {
				v[a] = hi[a]
			}
		}
		return v
	}
	for i := range 8 {
		for a := range 3 {
			if j := i | 1<<a; j != i {
				d.seg(corner(i), corner(j), c)
			}
		}
	}
}
