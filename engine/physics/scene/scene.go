package scene

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

// The format names a scene file may carry in its "format" field.
// nebula-scene/2 is nebula-scene/1 plus joints: a file named Format means
// what it meant before Format2 existed (its "joints", if any, are
// ignored), and a Format2 file without joints means the same as the
// identical file named Format.
const (
	Format  = "nebula-scene/1" // bodies
	Format2 = "nebula-scene/2" // bodies and joints
)

// Caps on what a scene may hold. A file over them is refused before
// anything is built: they bound the memory and time one file can ask for.
const (
	MaxBodies   = 1 << 20   // bodies in one scene
	MaxJoints   = 1 << 20   // joints in one scene
	MaxSteps    = 1 << 24   // steps in one run (77 hours at 60 Hz)
	MaxFileSize = 256 << 20 // bytes of a scene file (256 MiB)
)

// The caps as the checks read them: the constants, lowered by tests.
var (
	maxFileSize = MaxFileSize
	maxBodies   = MaxBodies
	maxJoints   = MaxJoints
)

// UnitTolerance is how far a rotation's length may be from 1, a joint's
// axis or normal's length from 1, and the dot product of a joint's normal
// and axis from 0.
const UnitTolerance = 1e-6

// Kind is how a body moves.
type Kind string

// The kinds of body, as the file spells them.
const (
	Static    Kind = "static"    // never moves; infinite mass
	Dynamic   Kind = "dynamic"   // moved by gravity and contacts
	Kinematic Kind = "kinematic" // moves with its constant velocities; pushes, is not pushed
)

// ShapeType is the kind of a body's shape.
type ShapeType string

// The shapes, as the file spells them.
const (
	Box     ShapeType = "box"     // HalfExtents along the body's local axes
	Sphere  ShapeType = "sphere"  // Radius
	Capsule ShapeType = "capsule" // Radius, HalfHeight along local Y
)

// Shape is a body's shape, centred on its position.
type Shape struct {
	Type        ShapeType  // Box, Sphere or Capsule
	HalfExtents [3]float64 // Box: > 0 each
	Radius      float64    // Sphere, Capsule: > 0
	HalfHeight  float64    // Capsule: >= 0, the hemispheres' centres are at ±HalfHeight on local Y
}

// Body is one body of a scene, with every default filled in.
type Body struct {
	ID              string     // unique in the scene, not empty
	Kind            Kind       // Static, Dynamic or Kinematic
	Shape           Shape      // centred on Position
	Position        [3]float64 // of the centre of mass, m
	Rotation        [4]float64 // unit quaternion [x, y, z, w]; default [0, 0, 0, 1]
	LinearVelocity  [3]float64 // m/s; default 0; ignored for static bodies
	AngularVelocity [3]float64 // rad/s, world frame; default 0; ignored for static bodies
	Density         float64    // kg/m³, > 0; default 1; dynamic bodies only
	Friction        float64    // Coulomb coefficient, >= 0; default 0.5
	Restitution     float64    // >= 0; default 0
	CCD             bool       // continuous collision detection; default false
}

// Scene is a parsed, checked nebula-scene/1 or nebula-scene/2 file.
type Scene struct {
	Format      string     // the file's format name: Format or Format2
	Name        string     // echoed in the result, not empty
	Description string     // free text, may be empty
	Hz          float64    // steps per second, > 0: the step is 1/Hz s
	Steps       int        // steps to run, 0 to MaxSteps
	Gravity     [3]float64 // m/s²
	Bodies      []Body     // in creation order
	// Joints are the joints of a Format2 file, in creation order (after
	// every body); nil when it has none, and always for a Format file.
	Joints []Joint
	// JointsIgnored reports that a Format file had a "joints" field,
	// which is not part of nebula-scene/1 and was ignored (a runner may
	// say so on stderr).
	JointsIgnored bool
}

// Dynamic returns the indices in s.Bodies of the dynamic bodies, in scene
// order: the bodies a result reports.
func (s *Scene) Dynamic() []int {
	var out []int
	for i := range s.Bodies {
		if s.Bodies[i].Kind == Dynamic {
			out = append(out, i)
		}
	}
	return out
}

// Error is what is wrong with a scene file: where (the file, the body or
// joint) and what, with what is accepted instead.
type Error struct {
	File string // the file's name; empty when not read by ReadFile
	// Body is the index of the entry the error is about in "bodies" (in
	// "joints" when Joint is set), or -1 when it is not about one entry.
	Body  int
	ID    string // the body's or joint's id, when it has one
	Joint bool   // the entry is a joint: Body indexes "joints" (nebula-scene/2)
	Msg   string // what is wrong, starting with the field ("hz must be ...")
}

// Error returns "scene: FILE: bodies[I] (id "ID"): MSG", or joints[I]
// for a joint, leaving out what is not known.
func (e *Error) Error() string {
	s := "scene: "
	if e.File != "" {
		s += e.File + ": "
	}
	if e.Body >= 0 {
		list := "bodies["
		if e.Joint {
			list = "joints["
		}
		s += list + strconv.Itoa(e.Body) + "]"
		if e.ID != "" {
			s += " (id " + strconv.Quote(e.ID) + ")"
		}
		s += ": "
	}
	return s + e.Msg
}

// ReadFile reads and checks the scene file name. Its errors name the file.
func ReadFile(name string) (*Scene, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("scene: %w", err)
	}
	defer f.Close()
	var s *Scene
	if st, serr := f.Stat(); serr == nil && st.Mode().IsRegular() && st.Size() > int64(maxFileSize) {
		err = tooBig() // refused without reading it
	} else {
		s, err = Read(f)
	}
	var se *Error
	if errors.As(err, &se) {
		se.File = name
	}
	return s, err
}

// Read reads a scene file from r, at most MaxFileSize bytes, and checks it
// (see Parse).
func Read(r io.Reader) (*Scene, error) {
	data, err := io.ReadAll(io.LimitReader(r, int64(maxFileSize)+1))
	if err != nil {
		return nil, fmt.Errorf("scene: reading: %w", err)
	}
	return Parse(data)
}

// Parse checks a scene file's bytes and returns the scene with every
// default filled in. It refuses (with an *Error) a file that is not one
// JSON object, whose format is neither Format nor Format2, that lacks a
// required field or has one of the wrong type, an unknown kind or shape
// type, a duplicate id, a number that is not finite or out of its range
// (hz > 0, steps a whole number >= 0, sizes > 0, density > 0, friction and
// restitution >= 0), a rotation whose length is not within UnitTolerance
// of 1, a joint that breaks a rule of nebula-scene/2 (see Joint), or more
// than the caps allow. Fields it does not know are ignored, and so is
// "joints" in a Format file (Scene.JointsIgnored says so).
func Parse(data []byte) (*Scene, error) {
	if len(data) > maxFileSize {
		return nil, tooBig()
	}
	// One pass over the bytes: numbers stay json.Numbers, so that one out
	// of float64's range is reported as such, by its field.
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fail(-1, "", jsonProblem(data, err))
	}
	off := dec.InputOffset()
	if _, err := dec.Token(); err != io.EOF {
		for off < int64(len(data)) && strings.IndexByte(" \t\r\n", data[off]) >= 0 {
			off++
		}
		line, col := position(data, off+1)
		return nil, fail(-1, "", fmt.Sprintf("the file holds more than one JSON value: more follows its object at line %d, column %d", line, col))
	}
	top, ok := v.(map[string]any)
	if !ok {
		return nil, fail(-1, "", "the file must hold one JSON object {...}, it holds "+kindOf(v))
	}
	p := parser{body: -1}
	sc := &Scene{}
	formats := strconv.Quote(Format) + " or " + strconv.Quote(Format2)
	format, ok, err := p.str(top, "format", formats)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, p.fail("format is missing; it must be " + formats)
	}
	if format != Format && format != Format2 {
		return nil, p.fail(fmt.Sprintf("format must be %s, got %q", formats, format))
	}
	sc.Format = format
	if sc.Name, err = p.needStr(top, "name", "a non-empty string"); err != nil {
		return nil, err
	}
	if sc.Description, _, err = p.str(top, "description", "a string"); err != nil {
		return nil, err
	}
	if sc.Hz, err = p.needNum(top, "hz", positive); err != nil {
		return nil, err
	}
	if sc.Steps, err = p.steps(top); err != nil {
		return nil, err
	}
	if sc.Gravity, err = p.needVec3(top, "gravity"); err != nil {
		return nil, err
	}
	raw, ok := top["bodies"]
	if !ok {
		return nil, p.fail("bodies is missing; it must be an array of body objects (it may be empty)")
	}
	bodies, ok := raw.([]any)
	if !ok {
		return nil, p.fail("bodies must be an array of body objects, got " + excerpt(raw))
	}
	if len(bodies) > maxBodies {
		return nil, p.fail(fmt.Sprintf("bodies has %d entries; at most %d are accepted", len(bodies), maxBodies))
	}
	sc.Bodies = make([]Body, len(bodies))
	ids := make(map[string]int, len(bodies))
	for i, rb := range bodies {
		p = parser{body: i}
		b := &sc.Bodies[i]
		if err := p.parseBody(rb, b); err != nil {
			return nil, err
		}
		if j, dup := ids[b.ID]; dup {
			return nil, p.fail(fmt.Sprintf("id %q is already the id of bodies[%d]; ids must be unique", b.ID, j))
		}
		ids[b.ID] = i
	}
	if sc.Format == Format {
		_, sc.JointsIgnored = top["joints"]
		return sc, nil
	}
	if sc.Joints, err = parseJoints(top, sc.Bodies, ids); err != nil {
		return nil, err
	}
	return sc, nil
}

// parser checks the fields of one object; body is the index of the body
// (or, with joint, of the joint) being read, or -1.
type parser struct {
	body  int
	id    string
	joint bool
}

// fields is a JSON object as the decoder gives it: values are
// map[string]any, []any, string, json.Number, bool or nil.
type fields = map[string]any

// tooBig is the error for a file over maxFileSize bytes.
func tooBig() *Error {
	return fail(-1, "", fmt.Sprintf("the file is over %d bytes (%d MiB), the most accepted", maxFileSize, maxFileSize>>20))
}

// fail returns the error msg about body (-1: none) with the given id.
func fail(body int, id, msg string) *Error { return &Error{Body: body, ID: id, Msg: msg} }

// fail returns the error msg about p's body or joint.
func (p *parser) fail(msg string) *Error {
	return &Error{Body: p.body, ID: p.id, Joint: p.joint, Msg: msg}
}

// parseBody checks one entry of "bodies" and fills in b.
func (p *parser) parseBody(raw any, b *Body) error {
	f, ok := raw.(fields)
	if !ok {
		return p.fail("a body must be a JSON object, got " + excerpt(raw))
	}
	var err error
	if b.ID, err = p.needStr(f, "id", "a non-empty string, unique in the scene"); err != nil {
		return err
	}
	p.id = b.ID
	kind, ok, err := p.str(f, "kind", `"static", "dynamic" or "kinematic"`)
	if err != nil {
		return err
	}
	switch k := Kind(kind); {
	case !ok:
		return p.fail(`kind is missing; it must be "static", "dynamic" or "kinematic"`)
	case k == Static || k == Dynamic || k == Kinematic:
		b.Kind = k
	default:
		return p.fail(fmt.Sprintf(`kind must be "static", "dynamic" or "kinematic", got %q`, kind))
	}
	if err := p.parseShape(f, &b.Shape); err != nil {
		return err
	}
	if b.Position, err = p.needVec3(f, "position"); err != nil {
		return err
	}
	b.Rotation = [4]float64{0, 0, 0, 1}
	if raw, ok := f["rotation"]; ok {
		q, ok := numbers(raw, 4)
		if !ok {
			return p.fail("rotation must be an array of 4 numbers [x, y, z, w] (a unit quaternion, scalar last), got " + excerpt(raw))
		}
		for _, x := range q {
			if math.IsInf(x, 0) {
				return p.fail("rotation must hold finite numbers, got " + excerpt(raw))
			}
		}
		n := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
		if !(math.Abs(n-1) <= UnitTolerance) {
			return p.fail(fmt.Sprintf("rotation must be a unit quaternion [x, y, z, w] (length within %g of 1), got length %s", UnitTolerance, strconv.FormatFloat(n, 'g', -1, 64)))
		}
		copy(b.Rotation[:], q)
	}
	if b.LinearVelocity, err = p.vec3(f, "linear_velocity"); err != nil {
		return err
	}
	if b.AngularVelocity, err = p.vec3(f, "angular_velocity"); err != nil {
		return err
	}
	if b.Density, err = p.num(f, "density", 1, positive); err != nil {
		return err
	}
	if b.Friction, err = p.num(f, "friction", 0.5, nonNegative); err != nil {
		return err
	}
	if b.Restitution, err = p.num(f, "restitution", 0, nonNegative); err != nil {
		return err
	}
	if raw, ok := f["ccd"]; ok {
		if b.CCD, ok = raw.(bool); !ok {
			return p.fail("ccd must be true or false, got " + excerpt(raw))
		}
	}
	return nil
}

// parseShape checks a body's "shape" and fills in s.
func (p *parser) parseShape(f fields, s *Shape) error {
	raw, ok := f["shape"]
	if !ok {
		return p.fail(`shape is missing; it must be an object such as {"type": "box", "half_extents": [0.5, 0.5, 0.5]}`)
	}
	sf, ok := raw.(fields)
	if !ok {
		return p.fail(`shape must be an object such as {"type": "sphere", "radius": 0.5}, got ` + excerpt(raw))
	}
	const types = `"box", "sphere" or "capsule"`
	typ, ok, err := p.str(sf, "type", types)
	if err != nil {
		return p.fail("shape." + err.(*Error).Msg)
	}
	if !ok {
		return p.fail("shape.type is missing; it must be " + types)
	}
	s.Type = ShapeType(typ)
	switch s.Type {
	case Box:
		raw, ok := sf["half_extents"]
		if !ok {
			return p.fail("shape.half_extents is missing; a box needs [hx, hy, hz], each > 0")
		}
		h, ok := numbers(raw, 3)
		if !ok {
			return p.fail("shape.half_extents must be an array of 3 numbers [hx, hy, hz], each > 0, got " + excerpt(raw))
		}
		for _, x := range h {
			if !(x > 0) || math.IsInf(x, 0) {
				return p.fail("shape.half_extents must be 3 finite numbers > 0, got " + excerpt(raw))
			}
		}
		copy(s.HalfExtents[:], h)
	case Sphere:
		s.Radius, err = p.needNum(sf, "radius", positive)
	case Capsule:
		if s.Radius, err = p.needNum(sf, "radius", positive); err == nil {
			s.HalfHeight, err = p.needNum(sf, "half_height", nonNegative)
		}
	default:
		return p.fail(fmt.Sprintf("shape.type must be %s, got %q", types, typ))
	}
	if err != nil {
		return p.fail("shape." + err.(*Error).Msg)
	}
	return nil
}

// rangeRule is the range a number must be in.
type rangeRule uint8

const (
	anyFinite rangeRule = iota
	positive
	nonNegative
)

// describe says what the rule accepts, for messages.
func (r rangeRule) describe() string {
	switch r {
	case positive:
		return "a finite number > 0"
	case nonNegative:
		return "a finite number >= 0"
	}
	return "a finite number"
}

// ok reports whether x is finite and in the rule's range.
func (r rangeRule) ok(x float64) bool {
	switch {
	case math.IsInf(x, 0) || math.IsNaN(x):
		return false
	case r == positive:
		return x > 0
	case r == nonNegative:
		return x >= 0
	}
	return true
}

// num returns f[key] as a number in rule's range, or def when key is absent.
func (p *parser) num(f fields, key string, def float64, rule rangeRule) (float64, error) {
	raw, ok := f[key]
	if !ok {
		return def, nil
	}
	x, ok := number(raw)
	if !ok {
		return 0, p.fail(fmt.Sprintf("%s must be %s, got %s", key, rule.describe(), excerpt(raw)))
	}
	if !rule.ok(x) {
		return 0, p.fail(fmt.Sprintf("%s must be %s, got %s", key, rule.describe(), excerpt(raw)))
	}
	return x, nil
}

// needNum is num for a required field.
func (p *parser) needNum(f fields, key string, rule rangeRule) (float64, error) {
	if _, ok := f[key]; !ok {
		return 0, p.fail(fmt.Sprintf("%s is missing; it must be %s", key, rule.describe()))
	}
	return p.num(f, key, 0, rule)
}

// steps reads the required "steps": a whole number from 0 to MaxSteps
// (written as an integer or as a number with an integral value, 600.0, as
// JavaScript reads it).
func (p *parser) steps(f fields) (int, error) {
	want := fmt.Sprintf("a whole number from 0 to %d (2^24)", MaxSteps)
	raw, ok := f["steps"]
	if !ok {
		return 0, p.fail("steps is missing; it must be " + want)
	}
	x, ok := number(raw)
	if !ok || !(x >= 0 && x <= MaxSteps) || x != math.Trunc(x) {
		return 0, p.fail("steps must be " + want + ", got " + excerpt(raw))
	}
	return int(x), nil
}

// str returns f[key] as a string, and whether it is present.
func (p *parser) str(f fields, key, want string) (string, bool, error) {
	raw, ok := f[key]
	if !ok {
		return "", false, nil
	}
	s, ok := raw.(string)
	if !ok {
		return "", true, p.fail(fmt.Sprintf("%s must be %s, got %s", key, want, excerpt(raw)))
	}
	return s, true, nil
}

// needStr returns the required, non-empty string f[key].
func (p *parser) needStr(f fields, key, want string) (string, error) {
	s, ok, err := p.str(f, key, want)
	switch {
	case err != nil:
		return "", err
	case !ok:
		return "", p.fail(fmt.Sprintf("%s is missing; it must be %s", key, want))
	case s == "":
		return "", p.fail(fmt.Sprintf("%s must be %s, got \"\"", key, want))
	}
	return s, nil
}

// vec3 returns f[key] as a vector of 3 finite numbers, zero when absent.
func (p *parser) vec3(f fields, key string) ([3]float64, error) {
	var v [3]float64
	raw, ok := f[key]
	if !ok {
		return v, nil
	}
	xs, ok := numbers(raw, 3)
	if !ok {
		return v, p.fail(fmt.Sprintf("%s must be an array of 3 numbers [x, y, z], got %s", key, excerpt(raw)))
	}
	for _, x := range xs {
		if math.IsInf(x, 0) {
			return v, p.fail(fmt.Sprintf("%s must hold finite numbers, got %s", key, excerpt(raw)))
		}
	}
	copy(v[:], xs)
	return v, nil
}

// needVec3 is vec3 for a required field.
func (p *parser) needVec3(f fields, key string) ([3]float64, error) {
	if _, ok := f[key]; !ok {
		return [3]float64{}, p.fail(fmt.Sprintf("%s is missing; it must be an array of 3 finite numbers [x, y, z]", key))
	}
	return p.vec3(f, key)
}

// number returns a JSON number as the nearest float64 (±Inf beyond
// float64's range); ok is false when v is not a number.
func number(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	x, err := strconv.ParseFloat(string(n), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	return x, true
}

// numbers returns a JSON array of exactly n numbers.
func numbers(v any, n int) ([]float64, bool) {
	items, ok := v.([]any)
	if !ok || len(items) != n {
		return nil, false
	}
	xs := make([]float64, n)
	for i, it := range items {
		if xs[i], ok = number(it); !ok {
			return nil, false
		}
	}
	return xs, true
}

// excerpt returns a JSON value for a message: compact, at most 60 bytes.
func excerpt(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	s := string(b)
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

// kindOf names the kind of a JSON value.
func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "an array"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "true or false"
	}
	return "an object"
}

// jsonProblem says what is wrong with a file that is not valid JSON,
// with the line and column of a syntax error.
func jsonProblem(data []byte, err error) string {
	var syn *json.SyntaxError
	switch {
	case errors.As(err, &syn):
		line, col := position(data, syn.Offset)
		return fmt.Sprintf("not valid JSON at line %d, column %d: %s", line, col, syn.Error())
	case errors.Is(err, io.EOF):
		return "the file is empty; it must hold one JSON object {...}"
	case errors.Is(err, io.ErrUnexpectedEOF):
		line, col := position(data, int64(len(data))+1)
		return fmt.Sprintf("not valid JSON: the file ends inside a value (line %d, column %d)", line, col)
	}
	return "not valid JSON: " + err.Error()
}

// position returns the 1-based line and column of byte offset off.
func position(data []byte, off int64) (line, col int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	if off > 0 {
		off-- // SyntaxError.Offset is just past the offending byte
	}
	before := data[:off]
	line = 1 + bytes.Count(before, []byte{'\n'})
	col = 1 + len(before) - (bytes.LastIndexByte(before, '\n') + 1)
	return line, col
}
