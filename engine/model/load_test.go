package model_test

import (
	"bytes"
	"encoding/json"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/qmuntal/gltf"

	"github.com/nebulaengine/nebula/engine/model"
	"github.com/nebulaengine/nebula/internal/modelgen"
)

// armJSON encodes Arm as a .gltf whose buffer is a data URI; if image is
// not empty, the texture is instead the file of that name.
func armJSON(t *testing.T, image string) []byte {
	t.Helper()
	doc := modelgen.Arm()
	if image != "" {
		doc.Images[0] = &gltf.Image{URI: image}
	}
	doc.Buffers[0].EmbeddedResource()
	var buf bytes.Buffer
	enc := gltf.NewEncoder(&buf)
	enc.AsBinary = false
	if err := enc.Encode(doc); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// checkerPNG extracts Arm's texture's PNG from its buffer view.
func checkerPNG(t *testing.T) []byte {
	t.Helper()
	doc := modelgen.Arm()
	bv := doc.BufferViews[*doc.Images[0].BufferView]
	return doc.Buffers[bv.Buffer].Data[bv.ByteOffset : bv.ByteOffset+bv.ByteLength]
}

// TestLoadArm loads Arm from every container the loader reads and checks
// the converted model exactly.
func TestLoadArm(t *testing.T) {
	glb, err := modelgen.ArmGLB()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		load func(t *testing.T) (*model.Model, string)
	}{
		{"glb", func(t *testing.T) (*model.Model, string) {
			path := filepath.Join(t.TempDir(), "arm.glb")
			if err := os.WriteFile(path, glb, 0o644); err != nil {
				t.Fatal(err)
			}
			m, err := model.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			return m, path
		}},
		{"gltf and bin", func(t *testing.T) (*model.Model, string) {
			path, err := modelgen.WriteGLTF(modelgen.Arm(), t.TempDir(), "arm")
			if err != nil {
				t.Fatal(err)
			}
			m, err := model.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			return m, path
		}},
		{"gltf with data URI, image file, LoadFS", func(t *testing.T) (*model.Model, string) {
			fsys := fstest.MapFS{
				"models/arm.gltf":            {Data: armJSON(t, "tex%20dir/checker.png")},
				"models/tex dir/checker.png": {Data: checkerPNG(t)},
			}
			m, err := model.LoadFS(fsys, "models/arm.gltf")
			if err != nil {
				t.Fatal(err)
			}
			return m, "models/arm.gltf"
		}},
		{"Decode glb", func(t *testing.T) (*model.Model, string) {
			m, err := model.Decode(bytes.NewReader(glb), "arm.glb")
			if err != nil {
				t.Fatal(err)
			}
			return m, "arm.glb"
		}},
		{"FromDocument", func(t *testing.T) (*model.Model, string) {
			m, err := model.FromDocument(modelgen.Arm(), "arm")
			if err != nil {
				t.Fatal(err)
			}
			return m, "arm"
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, name := c.load(t)
			if m.Name != name {
				t.Errorf("Name %q, want %q", m.Name, name)
			}
			checkArm(t, m)
		})
	}
}

func near(a, b float32) bool { return math.Abs(float64(a-b)) <= 1e-6 }

func nearAll(a, b []float32, tol float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(float64(a[i]-b[i])) > tol {
			return false
		}
	}
	return true
}

// boxIndices are modelgen's box triangles: bottom, top, then the four sides.
var boxIndices = []uint32{
	0, 1, 2, 0, 2, 3, 4, 6, 5, 4, 7, 6,
	0, 5, 1, 0, 4, 5, 1, 6, 2, 1, 5, 6, 2, 7, 3, 2, 6, 7, 3, 4, 0, 3, 7, 4,
}

func checkArm(t *testing.T, m *model.Model) {
	t.Helper()
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}

	// Nodes: parents first, depth first from the scene's roots [3, 1].
	wantNodes := []struct {
		name   string
		parent int
		pos    mgl32.Vec3
	}{
		{"shoulder", -1, mgl32.Vec3{0, 0, 0}},
		{"forearm", 0, mgl32.Vec3{0, 1, 0}},
		{"hand", 1, mgl32.Vec3{0, 1, 0}},
		{"marker", 2, mgl32.Vec3{0, 1, 0}},
		{"arm", -1, mgl32.Vec3{0, 0, 0}},
	}
	if len(m.Nodes) != len(wantNodes) {
		t.Fatalf("%d nodes, want %d: %+v", len(m.Nodes), len(wantNodes), m.Nodes)
	}
	for i, w := range wantNodes {
		n := m.Nodes[i]
		if n.Name != w.name || n.Parent != w.parent || n.Rest.Pos != w.pos {
			t.Errorf("node %d: %q parent %d at %v, want %q parent %d at %v", i, n.Name, n.Parent, n.Rest.Pos, w.name, w.parent, w.pos)
		}
		if i != 3 && (n.Rest.Rot != mgl32.QuatIdent() || n.Rest.Scale != (mgl32.Vec3{1, 1, 1})) {
			t.Errorf("node %d: rotation %v scale %v, want none", i, n.Rest.Rot, n.Rest.Scale)
		}
	}
	// The marker's matrix: translate(0, 1, 0) · rotate 90° about Y · scale 0.5.
	marker := m.Nodes[3].Rest
	s := float32(math.Sqrt2 / 2)
	if !near(marker.Rot.W, s) || !near(marker.Rot.V[1], s) || marker.Rot.V[0] != 0 || marker.Rot.V[2] != 0 ||
		marker.Scale != (mgl32.Vec3{0.5, 0.5, 0.5}) {
		t.Errorf("marker rest %+v, want rotation (0, %g, 0, %g) and scale 0.5", marker, s, s)
	}

	// Palette: skin 0's joints (shoulder, forearm, hand), then the marker.
	wantPalette := []model.Joint{
		{Node: 0, InverseBind: mgl32.Ident4()},
		{Node: 1, InverseBind: mgl32.Translate3D(0, -1, 0)},
		{Node: 2, InverseBind: mgl32.Translate3D(0, -2, 0)},
		{Node: 3, InverseBind: mgl32.Ident4()},
	}
	if len(m.Palette) != len(wantPalette) {
		t.Fatalf("palette %+v, want %+v", m.Palette, wantPalette)
	}
	for i, w := range wantPalette {
		if m.Palette[i] != w {
			t.Errorf("palette %d: %+v, want %+v", i, m.Palette[i], w)
		}
	}
	if len(m.RestWeights) != 1 || m.RestWeights[0] != 0.25 {
		t.Errorf("rest weights %v, want [0.25] (the node's, not the mesh's 0.5)", m.RestWeights)
	}

	// Parts: the marker's (node 3) before the arm's (node 4).
	wantNames := []string{"mesh 1 (marker) primitive 0", "mesh 0 (arm) primitive 0", "mesh 0 (arm) primitive 1", "mesh 0 (arm) primitive 2"}
	if len(m.Parts) != len(wantNames) {
		t.Fatalf("%d parts, want %d", len(m.Parts), len(wantNames))
	}
	for i, w := range wantNames {
		if m.Parts[i].Name != w {
			t.Errorf("part %d named %q, want %q", i, m.Parts[i].Name, w)
		}
	}

	mk := m.Parts[0]
	if len(mk.Positions) != 24 || len(mk.Indices) != 36 {
		t.Fatalf("marker: %d vertices, %d indices, want 24 and 36", len(mk.Positions), len(mk.Indices))
	}
	if mk.Positions[0] != (mgl32.Vec3{0.1, -0.1, -0.1}) || mk.Normals[0] != (mgl32.Vec3{1, 0, 0}) ||
		mk.UVs[0] != (mgl32.Vec2{0, 0}) || mk.UVs[2] != (mgl32.Vec2{1, 1}) {
		t.Errorf("marker vertex 0: %v normal %v uv %v, vertex 2 uv %v", mk.Positions[0], mk.Normals[0], mk.UVs[0], mk.UVs[2])
	}
	if got := mk.Indices[:6]; !slices.Equal(got, []uint32{0, 1, 2, 0, 2, 3}) {
		t.Errorf("marker indices start %v", got)
	}
	for v := range mk.Positions {
		if mk.Joints[v] != [4]uint16{3, 3, 3, 3} || mk.Weights[v] != [4]float32{1, 0, 0, 0} {
			t.Fatalf("marker vertex %d: joints %v weights %v, want the rigid palette entry 3", v, mk.Joints[v], mk.Weights[v])
		}
	}
	if mk.Colors != nil || mk.Targets != nil {
		t.Errorf("marker: colours %v targets %v, want none", mk.Colors, mk.Targets)
	}
	if mk.Material.BaseColor != [4]float32{1, 1, 1, 1} || mk.Material.Texture == nil {
		t.Fatalf("marker material %+v, want white with a texture", mk.Material)
	}
	tex := mk.Material.Texture
	if tex.Bounds().Dx() != 4 || tex.Bounds().Dy() != 4 {
		t.Errorf("texture %v, want 4x4", tex.Bounds())
	}
	white, orange := color.RGBA{255, 255, 255, 255}, color.RGBA{255, 128, 0, 255}
	if tex.RGBAAt(0, 0) != white || tex.RGBAAt(1, 0) != orange || tex.RGBAAt(3, 2) != orange || tex.RGBAAt(3, 3) != white {
		t.Errorf("texels (0,0) %v (1,0) %v (3,2) %v (3,3) %v", tex.RGBAAt(0, 0), tex.RGBAAt(1, 0), tex.RGBAAt(3, 2), tex.RGBAAt(3, 3))
	}

	// The segments: 8 corners each, the box's 36 indices (from u8, u16
	// and u32 accessors), computed normals.
	half := [4]float32{0.5, 0.5, 0, 0}
	one := [4]float32{1, 0, 0, 0}
	segs := []struct {
		bottomJ, topJ [4]uint16
		bottomW, topW [4]float32
		color         [4]float32
	}{
		{[4]uint16{0, 0, 0, 0}, [4]uint16{0, 1, 0, 0}, one, half, [4]float32{1, 0.25, 0.25, 1}},
		{[4]uint16{0, 1, 0, 0}, [4]uint16{1, 2, 0, 0}, half, half, [4]float32{0.25, 1, 0.25, 1}},
		{[4]uint16{1, 2, 0, 0}, [4]uint16{2, 0, 0, 0}, half, one, [4]float32{0.25, 0.25, 1, 1}},
	}
	for k, sg := range segs {
		p := m.Parts[1+k]
		y := float32(k)
		if len(p.Positions) != 8 || p.Positions[0] != (mgl32.Vec3{-0.2, y, -0.2}) || p.Positions[6] != (mgl32.Vec3{0.2, y + 1, 0.2}) {
			t.Errorf("segment %d positions %v", k, p.Positions)
		}
		if !slices.Equal(p.Indices, boxIndices) {
			t.Errorf("segment %d indices %v, want %v", k, p.Indices, boxIndices)
		}
		for v := range 8 {
			wantJ, wantW := sg.bottomJ, sg.bottomW
			if v >= 4 {
				wantJ, wantW = sg.topJ, sg.topW
			}
			if p.Joints[v] != wantJ || p.Weights[v] != wantW {
				t.Errorf("segment %d vertex %d: joints %v weights %v, want %v %v", k, v, p.Joints[v], p.Weights[v], wantJ, wantW)
			}
		}
		// Vertex 6, the top (+x, +z) corner: its smooth normal points up
		// and out.
		if n := p.Normals[6]; !(n[0] > 0.1 && n[1] > 0.1 && n[2] > 0.1) || !near(n.Len(), 1) {
			t.Errorf("segment %d vertex 6 normal %v, want up and outward, unit", k, n)
		}
		if n := p.Normals[0]; !(n[0] < -0.1 && n[1] < -0.1 && n[2] < -0.1) {
			t.Errorf("segment %d vertex 0 normal %v, want down and outward", k, n)
		}
		if p.Material.BaseColor != sg.color || p.Material.Texture != nil || p.UVs != nil {
			t.Errorf("segment %d material %+v uvs %v, want %v untextured", k, p.Material, p.UVs, sg.color)
		}
		if len(p.Targets) != 1 || p.FirstWeight != 0 || len(p.Targets[0].Positions) != 8 || p.Targets[0].Normals != nil {
			t.Fatalf("segment %d targets %+v first weight %d", k, p.Targets, p.FirstWeight)
		}
	}
	if c := m.Parts[2].Colors; len(c) != 8 || c[0] != [4]uint8{255, 255, 255, 255} || c[4] != [4]uint8{128, 128, 128, 255} {
		t.Errorf("segment 1 colours %v, want white below and 128 grey above", c)
	}
	if m.Parts[1].Colors != nil || m.Parts[3].Colors != nil {
		t.Error("segments 0 and 2 have colours")
	}
	for k := range 2 {
		for v, d := range m.Parts[1+k].Targets[0].Positions {
			if d != (mgl32.Vec3{}) {
				t.Errorf("segment %d target vertex %d: %v, want 0", k, v, d)
			}
		}
	}
	bulge := m.Parts[3].Targets[0].Positions
	for v := range 4 {
		if bulge[v] != (mgl32.Vec3{}) {
			t.Errorf("segment 2 target vertex %d: %v, want 0", v, bulge[v])
		}
		if got, want := m.Parts[3].Positions[4+v].Add(bulge[4+v]), m.Parts[3].Positions[4+v].Mul(2).Sub(mgl32.Vec3{0, 3, 0}); got != want {
			t.Errorf("segment 2 vertex %d at weight 1: %v, want %v", 4+v, got, want)
		}
	}

	// The clip: channel 4 (on the offstage node) is dropped.
	if len(m.Clips) != 1 || m.Clips[0].Name != "bend" || m.Clips[0].Duration != 2 || len(m.Clips[0].Channels) != 4 {
		t.Fatalf("clips %+v", m.Clips)
	}
	if m.ClipIndex("bend") != 0 || m.ClipIndex("walk") != -1 {
		t.Errorf("ClipIndex: bend %d, walk %d", m.ClipIndex("bend"), m.ClipIndex("walk"))
	}
	ch := m.Clips[0].Channels
	s90 := float32(math.Sqrt2 / 2)
	s45, c45 := float32(math.Sin(math.Pi/8)), float32(math.Cos(math.Pi/8))
	wantCh := []struct {
		path   model.Path
		interp model.Interpolation
		node   int
		times  []float32
		values []float32
		tol    float64
	}{
		{model.Rotation, model.Linear, 1, []float32{0, 1, 2}, []float32{0, 0, 0, 1, 0, 0, s90, s90, 0, 0, 0, 1}, 1e-7},
		{model.Rotation, model.Linear, 2, []float32{0, 1, 2}, []float32{0, 0, 0, 1, 0, 0, s45, c45, 0, 0, 0, 1}, 2e-5},
		{model.Weights, model.Linear, 4, []float32{0, 1, 2}, []float32{0, 1, 0}, 0},
		{model.Translation, model.Step, 0, []float32{0, 1}, []float32{0, 0, 0, 0, 0.25, 0}, 0},
	}
	for i, w := range wantCh {
		c := ch[i]
		if c.Path != w.path || c.Interpolation != w.interp || c.Node != w.node || !nearAll(c.Times, w.times, 0) || !nearAll(c.Values, w.values, w.tol) {
			t.Errorf("channel %d: %+v, want %+v", i, c, w)
		}
	}
	if ch[2].FirstWeight != 0 || ch[2].Count != 1 {
		t.Errorf("weights channel drives weights %d+%d, want 0+1", ch[2].FirstWeight, ch[2].Count)
	}
	// The int16 key is normalised to a unit quaternion.
	q := ch[1].Values[4:8]
	if l := math.Sqrt(float64(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])); math.Abs(l-1) > 1e-6 {
		t.Errorf("hand's 45° key %v has length %g", q, l)
	}
}

// TestLoadFigure loads the demo's figure: valid, 11 bones, its clips.
func TestLoadFigure(t *testing.T) {
	data, err := modelgen.FigureGLB()
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.Decode(bytes.NewReader(data), "figure.glb")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(m.Palette) != modelgen.FigureBones || len(m.Nodes) != modelgen.FigureBones+1 || len(m.Parts) != 7 || len(m.RestWeights) != 1 {
		t.Fatalf("palette %d, nodes %d, parts %d, weights %d", len(m.Palette), len(m.Nodes), len(m.Parts), len(m.RestWeights))
	}
	for i, j := range m.Palette {
		if j.Node != i {
			t.Errorf("palette %d is node %d, want bone %d", i, j.Node, i)
		}
	}
	walk, wave := m.ClipIndex(modelgen.ClipWalk), m.ClipIndex(modelgen.ClipWave)
	if walk != 0 || wave != 1 || m.Clips[walk].Duration != 1 || m.Clips[wave].Duration != 1.2 {
		t.Fatalf("clips %d %d: %+v", walk, wave, m.Clips)
	}
	var weights int
	for _, c := range m.Clips[wave].Channels {
		if c.Path == model.Weights {
			weights++
		}
	}
	if weights != 1 {
		t.Errorf("wave has %d weights channels, want 1", weights)
	}
	// Feet at -0.5, the top of the head at 0.49.
	lo, hi := float32(math.Inf(1)), float32(math.Inf(-1))
	for _, p := range m.Parts {
		for _, v := range p.Positions {
			lo, hi = min(lo, v[1]), max(hi, v[1])
		}
	}
	if lo != -0.5 || hi != 0.49 {
		t.Errorf("figure spans y %g to %g, want -0.5 to 0.49", lo, hi)
	}
	// The generated bytes are the same every time.
	again, err := modelgen.FigureGLB()
	if err != nil || !bytes.Equal(data, again) {
		t.Errorf("FigureGLB differs between calls (%v)", err)
	}
}

// TestBadFiles loads each broken file and checks its one error, exactly.
func TestBadFiles(t *testing.T) {
	dir := t.TempDir()
	glbFile := func(name string, doc *gltf.Document) (string, []byte) {
		data, err := modelgen.GLB(doc)
		if err != nil {
			t.Fatal(err)
		}
		return writeFile(t, dir, name, data), data
	}
	truncated, err := modelgen.TruncatedGLB()
	if err != nil {
		t.Fatal(err)
	}
	truncPath := writeFile(t, dir, "truncated.glb", truncated)
	badAcc := modelgen.BadAccessor()
	badAccPath, _ := glbFile("bad-accessor.glb", badAcc)
	missingPath, err := modelgen.WriteGLTF(modelgen.MissingBuffer(), dir, "missing")
	if err != nil {
		t.Fatal(err)
	}
	jointsPath, _ := glbFile("joints.glb", modelgen.TooManyJoints())
	pointsPath, _ := glbFile("points.glb", modelgen.UnsupportedMode())
	weightsPath, _ := glbFile("weights.glb", modelgen.BadWeights())
	animPath, _ := glbFile("anim.glb", modelgen.ShortAnimation())

	cases := []struct{ path, want string }{
		{truncPath, "truncated: the GLB header says " + itoa(len(truncated)+100) + " bytes, the file has " + itoa(len(truncated))},
		{badAccPath, "mesh 0 (arm) primitive 1: attribute POSITION: accessor " + itoa(len(badAcc.Accessors)+2) +
			" does not exist (the file has " + itoa(len(badAcc.Accessors)) + ")"},
		{missingPath, `buffer 1: missing (uri "does-not-exist.bin" not found)`},
		{jointsPath, "skin 0: 257 joints, at most 256"},
		{pointsPath, "mesh 1 (marker) primitive 0: mode POINTS is not supported (triangles, triangle strips and fans are)"},
		{weightsPath, "mesh 0 (arm) primitive 0: attribute WEIGHTS_0: vertex 5: the weights sum to 0"},
		{animPath, "animation 0 (bend) channel 2: sampler 2: output: 2 values, 3 keys of 1 need 3"},
	}
	for _, c := range cases {
		t.Run(filepath.Base(c.path), func(t *testing.T) {
			m, err := model.Load(c.path)
			if err == nil {
				t.Fatalf("loaded %d parts, want an error", len(m.Parts))
			}
			if want := "model: " + c.path + ": " + c.want; err.Error() != want {
				t.Errorf("error\n\t%v\nwant\n\t%s", err, want)
			}
			if strings.Count(err.Error(), "model:") != 1 {
				t.Errorf("error %q holds more than one error", err)
			}
		})
	}
}

func writeFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// BenchmarkDecode decodes the demo's figure (.glb, 17 KB) and the arm
// (with its PNG texture) from memory.
func BenchmarkDecode(b *testing.B) {
	for _, c := range []struct {
		name string
		gen  func() ([]byte, error)
	}{{"figure", modelgen.FigureGLB}, {"arm", modelgen.ArmGLB}} {
		data, err := c.gen()
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := model.Decode(bytes.NewReader(data), c.name); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
