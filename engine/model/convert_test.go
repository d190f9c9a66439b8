package model

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
)

// oneMesh returns a document of one node (named "n") with one mesh ("m")
// of one primitive of the given positions and indices (none when nil),
// and that primitive.
func oneMesh(pos [][3]float32, idx []uint16) (*gltf.Document, *gltf.Primitive) {
	doc := gltf.NewDocument()
	doc.Buffers = []*gltf.Buffer{{}}
	p := &gltf.Primitive{Attributes: gltf.PrimitiveAttributes{gltf.POSITION: modeler.WritePosition(doc, pos)}}
	if idx != nil {
		p.Indices = gltf.Index(modeler.WriteIndices(doc, idx))
	}
	doc.Meshes = []*gltf.Mesh{{Name: "m", Primitives: []*gltf.Primitive{p}}}
	doc.Nodes = []*gltf.Node{{Name: "n", Mesh: gltf.Index(0)}}
	doc.Scenes[0].Nodes = []int{0}
	return doc, p
}

var (
	quad    = [][3]float32{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}}
	quadIdx = []uint16{0, 1, 2, 1, 3, 2}
)

// rawView appends bytes to buffer 0 as a new buffer view (stride given)
// and returns its index.
func rawView(doc *gltf.Document, data []byte, stride int) int {
	b := doc.Buffers[0]
	for len(b.Data)%4 != 0 {
		b.Data = append(b.Data, 0)
	}
	doc.BufferViews = append(doc.BufferViews, &gltf.BufferView{Buffer: 0, ByteOffset: len(b.Data), ByteLength: len(data), ByteStride: stride})
	b.Data = append(b.Data, data...)
	b.ByteLength = len(b.Data)
	return len(doc.BufferViews) - 1
}

func addAccessor(doc *gltf.Document, a *gltf.Accessor) int {
	doc.Accessors = append(doc.Accessors, a)
	return len(doc.Accessors) - 1
}

func pngURI(t *testing.T, img image.Image) string {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes())
}

// textured gives the primitive texture coordinates and a material whose
// base colour texture is an image of the given uri.
func textured(doc *gltf.Document, p *gltf.Primitive, uri string, texCoord int) {
	p.Attributes[gltf.TEXCOORD_0] = modeler.WriteTextureCoord(doc, [][2]float32{{0, 0}, {1, 0}, {0, 1}, {1, 1}})
	doc.Images = []*gltf.Image{{URI: uri}}
	doc.Textures = []*gltf.Texture{{Source: gltf.Index(0)}}
	doc.Materials = []*gltf.Material{{Name: "mat", PBRMetallicRoughness: &gltf.PBRMetallicRoughness{
		BaseColorFactor:  &[4]float64{0.5, 0.5, 0.5, 1},
		BaseColorTexture: &gltf.TextureInfo{Index: 0, TexCoord: texCoord},
	}}}
	p.Material = gltf.Index(0)
}

// TestConvert converts small documents built for one feature or one
// fault each: a model to check, or the exact error after "model: t: ".
func TestConvert(t *testing.T) {
	cases := []struct {
		name    string
		build   func(t *testing.T) *gltf.Document
		check   func(t *testing.T, m *Model)
		wantErr string
	}{
		{name: "triangle strip", build: func(t *testing.T) *gltf.Document {
			doc, p := oneMesh(quad, nil)
			p.Mode = gltf.PrimitiveTriangleStrip
			return doc
		}, check: func(t *testing.T, m *Model) {
			p := m.Parts[0]
			if want := []uint32{0, 1, 2, 1, 3, 2}; !slicesEqual(p.Indices, want) {
				t.Errorf("indices %v, want %v", p.Indices, want)
			}
			for v, n := range p.Normals {
				if n != (mgl32.Vec3{0, 0, 1}) {
					t.Errorf("normal %d %v, want +Z", v, n)
				}
			}
		}},
		{name: "triangle fan", build: func(t *testing.T) *gltf.Document {
			doc, p := oneMesh([][3]float32{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}}, nil)
			p.Mode = gltf.PrimitiveTriangleFan
			return doc
		}, check: func(t *testing.T, m *Model) {
			if want := []uint32{1, 2, 0, 2, 3, 0}; !slicesEqual(m.Parts[0].Indices, want) {
				t.Errorf("indices %v, want %v", m.Parts[0].Indices, want)
			}
		}},
		{name: "no indices, rigid node", build: func(t *testing.T) *gltf.Document {
			doc, _ := oneMesh([][3]float32{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 0}, {0, 0, 1}, {1, 0, 0}}, nil)
			doc.Nodes[0].Translation = [3]float64{1, 2, 3}
			return doc
		}, check: func(t *testing.T, m *Model) {
			p := m.Parts[0]
			if want := []uint32{0, 1, 2, 3, 4, 5}; !slicesEqual(p.Indices, want) {
				t.Errorf("indices %v, want %v", p.Indices, want)
			}
			// Two separate triangles: flat normals, +Z then +Y.
			for v, n := range p.Normals {
				want := mgl32.Vec3{0, 0, 1}
				if v >= 3 {
					want = mgl32.Vec3{0, 1, 0}
				}
				if n != want {
					t.Errorf("normal %d %v, want %v", v, n, want)
				}
			}
			if len(m.Palette) != 1 || m.Palette[0] != (Joint{Node: 0, InverseBind: mgl32.Ident4()}) {
				t.Errorf("palette %+v, want the node with the identity", m.Palette)
			}
			if p.Joints[5] != [4]uint16{0, 0, 0, 0} || p.Weights[5] != [4]float32{1, 0, 0, 0} {
				t.Errorf("vertex 5: joints %v weights %v", p.Joints[5], p.Weights[5])
			}
			if m.Nodes[0].Rest.Pos != (mgl32.Vec3{1, 2, 3}) {
				t.Errorf("rest %v", m.Nodes[0].Rest)
			}
		}},
		{name: "strided u8 indices", build: func(t *testing.T) *gltf.Document {
			// modeler.ReadAccessor would read 0 9 9 here.
			doc, p := oneMesh(quad, quadIdx)
			bv := rawView(doc, []byte{0, 9, 9, 9, 1, 9, 9, 9, 2, 9, 9, 9}, 4)
			p.Indices = gltf.Index(addAccessor(doc, &gltf.Accessor{BufferView: gltf.Index(bv), ComponentType: gltf.ComponentUbyte, Type: gltf.AccessorScalar, Count: 3}))
			return doc
		}, check: func(t *testing.T, m *Model) {
			if want := []uint32{0, 1, 2}; !slicesEqual(m.Parts[0].Indices, want) {
				t.Errorf("indices %v, want %v", m.Parts[0].Indices, want)
			}
		}},
		{name: "colours", build: func(t *testing.T) *gltf.Document {
			doc, p := oneMesh(quad, quadIdx)
			p.Attributes[gltf.COLOR_0] = modeler.WriteColor(doc, [][4]uint16{
				{65535, 32896, 0, 65535}, {0, 0, 0, 0}, {257, 514, 771, 1028}, {65535, 65535, 65535, 65535},
			})
			return doc
		}, check: func(t *testing.T, m *Model) {
			want := [][4]uint8{{255, 128, 0, 255}, {0, 0, 0, 0}, {1, 2, 3, 4}, {255, 255, 255, 255}}
			for v, c := range m.Parts[0].Colors {
				if c != want[v] {
					t.Errorf("colour %d %v, want %v", v, c, want[v])
				}
			}
		}},
		{name: "float colours clamped", build: func(t *testing.T) *gltf.Document {
			doc, p := oneMesh(quad, quadIdx)
			p.Attributes[gltf.COLOR_0] = modeler.WriteColor(doc, [][4]float32{{0.5, 1.5, -1, 0.25}, {}, {}, {1, 1, 1, 1}})
			return doc
		}, check: func(t *testing.T, m *Model) {
			if c := m.Parts[0].Colors[0]; c != [4]uint8{128, 255, 0, 64} {
				t.Errorf("colour %v, want 128 255 0 64", c)
			}
		}},
		{name: "no scene: every root node", build: func(t *testing.T) *gltf.Document {
			doc, _ := oneMesh(quad, quadIdx)
			doc.Scene, doc.Scenes = nil, nil
			doc.Nodes = []*gltf.Node{{Name: "child", Mesh: gltf.Index(0)}, {Name: "root", Children: []int{0}}, {Name: "alone"}}
			return doc
		}, check: func(t *testing.T, m *Model) {
			var got []string
			for _, n := range m.Nodes {
				got = append(got, n.Name)
			}
			if strings.Join(got, " ") != "root child alone" || m.Nodes[1].Parent != 0 || m.Nodes[2].Parent != -1 {
				t.Errorf("nodes %+v, want root, child (of root), alone", m.Nodes)
			}
			if m.Palette[0].Node != 1 {
				t.Errorf("palette %+v, want node 1", m.Palette)
			}
		}},
		{name: "cubic spline rotation", build: func(t *testing.T) *gltf.Document {
			doc, _ := oneMesh(quad, quadIdx)
			times := modeler.WriteAccessor(doc, gltf.TargetNone, []float32{0, 0.5})
			out := modeler.WriteAccessor(doc, gltf.TargetNone, [][4]float32{
				{1, 2, 3, 4}, {0, 0, 0, 2}, {5, 6, 7, 8},
				{0, 0, 0, 0}, {0, 3, 0, 0}, {0, 0, 0, 0},
			})
			doc.Animations = []*gltf.Animation{{Name: "spin",
				Samplers: []*gltf.AnimationSampler{{Input: times, Output: out, Interpolation: gltf.InterpolationCubicSpline}},
				Channels: []*gltf.AnimationChannel{
					{Sampler: 0, Target: gltf.AnimationChannelTarget{Node: gltf.Index(0), Path: gltf.TRSRotation}},
					{Sampler: 0, Target: gltf.AnimationChannelTarget{Path: gltf.TRSRotation}}, // no node: dropped
				}}}
			return doc
		}, check: func(t *testing.T, m *Model) {
			c := m.Clips[0]
			if c.Duration != 0.5 || len(c.Channels) != 1 || c.Channels[0].Interpolation != CubicSpline {
				t.Fatalf("clip %+v", c)
			}
			want := []float32{1, 2, 3, 4, 0, 0, 0, 1, 5, 6, 7, 8, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0}
			if !slicesEqual(c.Channels[0].Values, want) {
				t.Errorf("values %v, want %v (values normalised, tangents kept)", c.Channels[0].Values, want)
			}
		}},
		{name: "straight alpha texture", build: func(t *testing.T) *gltf.Document {
			doc, p := oneMesh(quad, quadIdx)
			img := image.NewNRGBA(image.Rect(0, 0, 2, 1))
			img.SetNRGBA(0, 0, color.NRGBA{255, 0, 0, 0})
			img.SetNRGBA(1, 0, color.NRGBA{10, 20, 30, 128})
			textured(doc, p, pngURI(t, img), 0)
			return doc
		}, check: func(t *testing.T, m *Model) {
			mat := m.Parts[0].Material
			if mat.BaseColor != [4]float32{0.5, 0.5, 0.5, 1} {
				t.Errorf("base colour %v", mat.BaseColor)
			}
			if got := mat.Texture.Pix; !slicesEqual(got, []uint8{255, 0, 0, 0, 10, 20, 30, 128}) {
				t.Errorf("texels %v, want the file's colours unpremultiplied", got)
			}
		}},
		{name: "paletted texture with transparency", build: func(t *testing.T) *gltf.Document {
			doc, p := oneMesh(quad, quadIdx)
			img := image.NewPaletted(image.Rect(0, 0, 2, 1), color.Palette{color.NRGBA{0, 255, 0, 255}, color.NRGBA{0, 0, 255, 0}})
			img.SetColorIndex(1, 0, 1)
			textured(doc, p, pngURI(t, img), 0)
			return doc
		}, check: func(t *testing.T, m *Model) {
			// A fully transparent palette entry keeps no colour once
			// premultiplied by Go's colour model; only alpha is certain.
			if got := m.Parts[0].Material.Texture.Pix; !slicesEqual(got[:4], []uint8{0, 255, 0, 255}) || got[7] != 0 {
				t.Errorf("texels %v", got)
			}
		}},
		{name: "jpeg texture", build: func(t *testing.T) *gltf.Document {
			doc, p := oneMesh(quad, quadIdx)
			img := image.NewRGBA(image.Rect(0, 0, 8, 8))
			for i := 0; i < len(img.Pix); i += 4 {
				copy(img.Pix[i:], []uint8{200, 100, 50, 255})
			}
			var buf bytes.Buffer
			if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 95}); err != nil {
				t.Fatal(err)
			}
			textured(doc, p, "data:image/jpeg;base64,"+base64.StdEncoding.EncodeToString(buf.Bytes()), 0)
			return doc
		}, check: func(t *testing.T, m *Model) {
			c := m.Parts[0].Material.Texture.RGBAAt(3, 3)
			if absDiff(c.R, 200) > 4 || absDiff(c.G, 100) > 4 || absDiff(c.B, 50) > 4 || c.A != 255 {
				t.Errorf("texel %v, want about 200 100 50 255", c)
			}
		}},

		{name: "lines", build: func(t *testing.T) *gltf.Document {
			doc, p := oneMesh(quad, quadIdx)
			p.Mode = gltf.PrimitiveLines
			return doc
		}, wantErr: "mesh 0 (m) primitive 0: mode LINES is not supported (triangles, triangle strips and fans are)"},
		{name: "indices not by three", build: func(t *testing.T) *gltf.Document {
			doc, p := oneMesh(quad, quadIdx)
			p.Indices = gltf.Index(modeler.WriteIndices(doc, []uint16{0, 1, 2, 3}))
			return doc
		}, wantErr: "mesh 0 (m) primitive 0: indices: 4, not a multiple of 3"},
		{name: "index out of range", build: func(t *testing.T) *gltf.Document {
			doc, p := oneMesh(quad, quadIdx)
			p.Indices = gltf.Index(modeler.WriteIndices(doc, []uint16{0, 1, 9}))
			return doc
		}, wantErr: "mesh 0 (m) primitive 0: indices: index 2 is 9, the primitive has 4 vertices"},
		{name: "accessor beyond its view", build: func(t *testing.T) *gltf.Document {
			doc, _ := oneMesh(quad, quadIdx)
			doc.Accessors[0].ByteOffset = 8
			return doc
		}, wantErr: "mesh 0 (m) primitive 0: attribute POSITION: accessor 0: 4 elements end at byte 56 of buffer view 0, which has 48"},
		{name: "accessor offset far away", build: func(t *testing.T) *gltf.Document {
			doc, _ := oneMesh(quad, quadIdx)
			doc.Accessors[0].ByteOffset = 1 << 40
			return doc
		}, wantErr: "mesh 0 (m) primitive 0: attribute POSITION: accessor 0: byteOffset 1099511627776 and count 4 do not fit buffer view 0's 48 bytes"},
		{name: "huge count", build: func(t *testing.T) *gltf.Document {
			doc, _ := oneMesh(quad, quadIdx)
			doc.Accessors[0].Count = math.MaxInt
			return doc
		}, wantErr: "mesh 0 (m) primitive 0: attribute POSITION: accessor 0: byteOffset 0 and count 9223372036854775807 do not fit buffer view 0's 48 bytes"},
		{name: "huge count without a view", build: func(t *testing.T) *gltf.Document {
			doc, _ := oneMesh(quad, quadIdx)
			doc.Accessors[0].BufferView, doc.Accessors[0].Count = nil, 1<<40
			return doc
		}, wantErr: "mesh 0 (m) primitive 0: attribute POSITION: accessor 0: 1099511627776 elements without a buffer view, at most 1398101"},
		{name: "view beyond its buffer", build: func(t *testing.T) *gltf.Document {
			doc, _ := oneMesh(quad, quadIdx)
			doc.BufferViews[0].ByteLength = 100
			return doc
		}, wantErr: "mesh 0 (m) primitive 0: attribute POSITION: accessor 0: buffer view 0: bytes 0 to 100, beyond the 60 bytes of buffer 0"},
		{name: "stride too small", build: func(t *testing.T) *gltf.Document {
			doc, _ := oneMesh(quad, quadIdx)
			doc.BufferViews[0].ByteStride = 8
			return doc
		}, wantErr: "mesh 0 (m) primitive 0: attribute POSITION: accessor 0: buffer view 0's byteStride 8 does not fit 12-byte elements (at most 252)"},
		{name: "sparse index out of range", build: func(t *testing.T) *gltf.Document {
			doc, p := oneMesh(quad, quadIdx)
			iv := rawView(doc, []byte{7, 0, 0, 0}, 0)
			vv := rawView(doc, make([]byte, 12), 0)
			p.Targets = []gltf.PrimitiveAttributes{{gltf.POSITION: addAccessor(doc, &gltf.Accessor{
				ComponentType: gltf.ComponentFloat, Type: gltf.AccessorVec3, Count: 4,
				Sparse: &gltf.Sparse{Count: 1, Indices: gltf.SparseIndices{BufferView: iv, ComponentType: gltf.ComponentUint}, Values: gltf.SparseValues{BufferView: vv}},
			})}}
			return doc
		}, wantErr: "mesh 0 (m) primitive 0: morph target 0: attribute POSITION: accessor 2: sparse index 0 is 7, the accessor has 4 elements"},
		{name: "wrong component type", build: func(t *testing.T) *gltf.Document {
			doc, p := oneMesh(quad, quadIdx)
			p.Attributes[gltf.NORMAL] = modeler.WriteAccessor(doc, gltf.TargetArrayBuffer, [][3]uint16{{}, {}, {}, {}})
			return doc
		}, wantErr: "mesh 0 (m) primitive 0: attribute NORMAL: accessor 2: component type UNSIGNED_SHORT, want FLOAT"},
		{name: "attribute count", build: func(t *testing.T) *gltf.Document {
			doc, p := oneMesh(quad, quadIdx)
			p.Attributes[gltf.NORMAL] = modeler.WriteNormal(doc, [][3]float32{{0, 0, 1}})
			return doc
		}, wantErr: "mesh 0 (m) primitive 0: attribute NORMAL: 1 elements, POSITION has 4"},
		{name: "NaN position", build: func(t *testing.T) *gltf.Document {
			doc, _ := oneMesh([][3]float32{{0, 0, 0}, {1, 0, 0}, {0, float32(math.NaN()), 0}}, nil)
			return doc
		}, wantErr: "mesh 0 (m) primitive 0: attribute POSITION: vertex 2 is not finite: [0 NaN 0]"},
		{name: "skinned without joints", build: func(t *testing.T) *gltf.Document {
			doc, _ := oneMesh(quad, quadIdx)
			doc.Skins = []*gltf.Skin{{Joints: []int{0}}}
			doc.Nodes[0].Skin = gltf.Index(0)
			return doc
		}, wantErr: "mesh 0 (m) primitive 0: no JOINTS_0 attribute"},
		{name: "joint beyond the skin", build: func(t *testing.T) *gltf.Document {
			doc, p := oneMesh(quad, quadIdx)
			doc.Skins = []*gltf.Skin{{Joints: []int{0}}}
			doc.Nodes[0].Skin = gltf.Index(0)
			p.Attributes[gltf.JOINTS_0] = modeler.WriteJoints(doc, [][4]uint8{{0, 0, 0, 0}, {0, 0, 0, 0}, {1, 0, 0, 0}, {0, 0, 0, 0}})
			p.Attributes[gltf.WEIGHTS_0] = modeler.WriteWeights(doc, [][4]float32{{1, 0, 0, 0}, {1, 0, 0, 0}, {1, 0, 0, 0}, {1, 0, 0, 0}})
			return doc
		}, wantErr: "mesh 0 (m) primitive 0: attribute JOINTS_0: vertex 2: joint 1, skin 0 has 1 joints"},
		{name: "negative weight", build: func(t *testing.T) *gltf.Document {
			doc, p := oneMesh(quad, quadIdx)
			doc.Skins = []*gltf.Skin{{Joints: []int{0}}}
			doc.Nodes[0].Skin = gltf.Index(0)
			p.Attributes[gltf.JOINTS_0] = modeler.WriteJoints(doc, make([][4]uint8, 4))
			p.Attributes[gltf.WEIGHTS_0] = modeler.WriteWeights(doc, [][4]float32{{1, 0, 0, 0}, {2, -1, 0, 0}, {1, 0, 0, 0}, {1, 0, 0, 0}})
			return doc
		}, wantErr: "mesh 0 (m) primitive 0: attribute WEIGHTS_0: vertex 1: weight 1 is -1"},
		{name: "joint not in the scene", build: func(t *testing.T) *gltf.Document {
			doc, _ := oneMesh(quad, quadIdx)
			doc.Nodes = append(doc.Nodes, &gltf.Node{Name: "elsewhere"})
			doc.Skins = []*gltf.Skin{{Joints: []int{1}}}
			doc.Nodes[0].Skin = gltf.Index(0)
			return doc
		}, wantErr: "skin 0: joint 0: node 1 (elsewhere) is not in the scene"},
		{name: "cycle", build: func(t *testing.T) *gltf.Document {
			doc, _ := oneMesh(quad, quadIdx)
			doc.Nodes = append(doc.Nodes, &gltf.Node{Name: "b", Children: []int{0}})
			doc.Nodes[0].Children = []int{1}
			return doc
		}, wantErr: "node 0 (n) is reached twice from the scene's roots (a second parent, a cycle, or a root twice)"},
		{name: "child out of range", build: func(t *testing.T) *gltf.Document {
			doc, _ := oneMesh(quad, quadIdx)
			doc.Nodes[0].Children = []int{5}
			return doc
		}, wantErr: "node 0 (n): child 5 does not exist (the file has 1 nodes)"},
		{name: "too many parts", build: func(t *testing.T) *gltf.Document {
			doc, p := oneMesh(quad, quadIdx)
			for range 299 {
				doc.Meshes[0].Primitives = append(doc.Meshes[0].Primitives, p)
			}
			for i := 1; i < 300; i++ {
				doc.Nodes = append(doc.Nodes, &gltf.Node{Mesh: gltf.Index(0)})
				doc.Scenes[0].Nodes = append(doc.Scenes[0].Nodes, i)
			}
			return doc
		}, wantErr: "more than 65536 parts (primitives of the scene's mesh nodes)"},
		{name: "required extension", build: func(t *testing.T) *gltf.Document {
			doc, _ := oneMesh(quad, quadIdx)
			doc.ExtensionsRequired = []string{"KHR_draco_mesh_compression"}
			return doc
		}, wantErr: "requires the extension KHR_draco_mesh_compression, which the loader does not support"},
		{name: "version 1", build: func(t *testing.T) *gltf.Document {
			doc, _ := oneMesh(quad, quadIdx)
			doc.Asset.Version = "1.0"
			return doc
		}, wantErr: `glTF version "1.0", only 2.x is read`},
		{name: "morph weights count", build: func(t *testing.T) *gltf.Document {
			doc, p := oneMesh(quad, quadIdx)
			p.Targets = []gltf.PrimitiveAttributes{{gltf.POSITION: modeler.WritePosition(doc, make([][3]float32, 4))}}
			doc.Nodes[0].Weights = []float64{1, 2}
			return doc
		}, wantErr: "node 0 (n): 2 morph target weights for mesh 0 (m)'s 1 morph targets"},
		{name: "too many targets", build: func(t *testing.T) *gltf.Document {
			doc, p := oneMesh(quad, quadIdx)
			z := modeler.WritePosition(doc, make([][3]float32, 4))
			for range MaxTargets + 1 {
				p.Targets = append(p.Targets, gltf.PrimitiveAttributes{gltf.POSITION: z})
			}
			return doc
		}, wantErr: "mesh 0 (m): 9 morph targets, at most 8"},
		{name: "too many weights", build: func(t *testing.T) *gltf.Document {
			doc, p := oneMesh(quad, quadIdx)
			z := modeler.WritePosition(doc, make([][3]float32, 4))
			for range MaxTargets {
				p.Targets = append(p.Targets, gltf.PrimitiveAttributes{gltf.POSITION: z})
			}
			for i := 1; i <= MaxWeights/MaxTargets; i++ {
				doc.Nodes = append(doc.Nodes, &gltf.Node{Mesh: gltf.Index(0)})
				doc.Scenes[0].Nodes = append(doc.Scenes[0].Nodes, i)
			}
			return doc
		}, wantErr: "node 8: its 8 morph targets make 72 blend-shape weights, at most 64"},
		{name: "weights channel without targets", build: func(t *testing.T) *gltf.Document {
			doc, _ := oneMesh(quad, quadIdx)
			in := modeler.WriteAccessor(doc, gltf.TargetNone, []float32{0})
			doc.Animations = []*gltf.Animation{{
				Samplers: []*gltf.AnimationSampler{{Input: in, Output: in}},
				Channels: []*gltf.AnimationChannel{{Sampler: 0, Target: gltf.AnimationChannelTarget{Node: gltf.Index(0), Path: gltf.TRSWeights}}},
			}}
			return doc
		}, wantErr: "animation 0 channel 0: drives the weights of node 0 (n), which has no morph targets"},
		{name: "keys going back", build: func(t *testing.T) *gltf.Document {
			doc, _ := oneMesh(quad, quadIdx)
			in := modeler.WriteAccessor(doc, gltf.TargetNone, []float32{0, 2, 1})
			out := modeler.WriteAccessor(doc, gltf.TargetNone, [][3]float32{{}, {}, {}})
			doc.Animations = []*gltf.Animation{{Name: "a",
				Samplers: []*gltf.AnimationSampler{{Input: in, Output: out}},
				Channels: []*gltf.AnimationChannel{{Sampler: 0, Target: gltf.AnimationChannelTarget{Node: gltf.Index(0), Path: gltf.TRSScale}}},
			}}
			return doc
		}, wantErr: "animation 0 (a) channel 0: sampler 0: input: key 2 at 1 s comes before key 1 at 2 s"},
		{name: "texture on TEXCOORD_1", build: func(t *testing.T) *gltf.Document {
			doc, p := oneMesh(quad, quadIdx)
			textured(doc, p, pngURI(t, image.NewNRGBA(image.Rect(0, 0, 1, 1))), 1)
			return doc
		}, wantErr: "mesh 0 (m) primitive 0: material 0 (mat): the base colour texture uses TEXCOORD_1, only TEXCOORD_0 is read"},
		{name: "texture without coordinates", build: func(t *testing.T) *gltf.Document {
			doc, p := oneMesh(quad, quadIdx)
			textured(doc, p, pngURI(t, image.NewNRGBA(image.Rect(0, 0, 1, 1))), 0)
			delete(p.Attributes, gltf.TEXCOORD_0)
			return doc
		}, wantErr: "mesh 0 (m) primitive 0: material 0 (mat): a base colour texture, but the primitive has no TEXCOORD_0"},
		{name: "not an image", build: func(t *testing.T) *gltf.Document {
			doc, p := oneMesh(quad, quadIdx)
			textured(doc, p, "data:image/png;base64,"+base64.StdEncoding.EncodeToString([]byte("hello")), 0)
			return doc
		}, wantErr: "mesh 0 (m) primitive 0: material 0 (mat): base colour texture: image 0: not a PNG or JPEG image (image: unknown format)"},
		{name: "image file without a file system", build: func(t *testing.T) *gltf.Document {
			doc, p := oneMesh(quad, quadIdx)
			textured(doc, p, "tex.png", 0)
			return doc
		}, wantErr: `mesh 0 (m) primitive 0: material 0 (mat): base colour texture: image 0: missing (uri "tex.png": Decode and FromDocument read no files; use Load)`},
		{name: "huge image", build: func(t *testing.T) *gltf.Document {
			doc, p := oneMesh(quad, quadIdx)
			textured(doc, p, pngURI(t, image.NewGray(image.Rect(0, 0, MaxTextureSide+1, 1))), 0)
			return doc
		}, wantErr: "mesh 0 (m) primitive 0: material 0 (mat): base colour texture: image 0: 8193x1 texels, at most 8192 a side"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := FromDocument(c.build(t), "t")
			if c.wantErr != "" {
				if err == nil {
					t.Fatalf("converted, want error %q", c.wantErr)
				}
				if want := "model: t: " + c.wantErr; err.Error() != want {
					t.Fatalf("error\n\t%v\nwant\n\t%s", err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Validate(); err != nil {
				t.Fatal(err)
			}
			c.check(t, m)
		})
	}
}

func slicesEqual[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func absDiff(a, b uint8) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}

// glb assembles a GLB from a JSON text and an optional BIN chunk.
func glb(jsonText string, bin []byte) []byte {
	for len(jsonText)%4 != 0 {
		jsonText += " "
	}
	var b bytes.Buffer
	n := 12 + 8 + len(jsonText)
	if bin != nil {
		n += 8 + len(bin)
	}
	for _, v := range []uint32{glbMagic, 2, uint32(n), uint32(len(jsonText)), glbChunkJSON} {
		_ = binary.Write(&b, binary.LittleEndian, v)
	}
	b.WriteString(jsonText)
	if bin != nil {
		_ = binary.Write(&b, binary.LittleEndian, uint32(len(bin)))
		_ = binary.Write(&b, binary.LittleEndian, uint32(glbChunkBIN))
		b.Write(bin)
	}
	return b.Bytes()
}

// TestDecodeContainer checks the errors of the GLB container and of
// buffers, before any conversion.
func TestDecodeContainer(t *testing.T) {
	const asset = `"asset":{"version":"2.0"}`
	cases := []struct {
		name    string
		data    []byte
		wantErr string
	}{
		{"short header", []byte("glTF\x02\x00\x00\x00"), "truncated: 8 bytes, a GLB header has 12"},
		{"version 1", []byte("glTF\x01\x00\x00\x00\x0c\x00\x00\x00"), "GLB version 1, only 2 is read"},
		{"no chunk", []byte("glTF\x02\x00\x00\x00\x0c\x00\x00\x00"), "truncated: the GLB has no JSON chunk"},
		{"chunk past the end", []byte("glTF\x02\x00\x00\x00\x14\x00\x00\x00\x64\x00\x00\x00JSON"), "truncated: chunk 0 (JSON) ends at byte 120, the GLB has 20 bytes"},
		{"BIN first", []byte("glTF\x02\x00\x00\x00\x14\x00\x00\x00\x00\x00\x00\x00BIN\x00"), "GLB: the first chunk is BIN, not JSON"},
		{"no BIN chunk", glb(`{`+asset+`,"buffers":[{"byteLength":8}]}`, nil), "buffer 0: the GLB has no BIN chunk"},
		{"short BIN chunk", glb(`{`+asset+`,"buffers":[{"byteLength":8}]}`, []byte{1, 2, 3, 4}), "truncated: buffer 0 has 4 bytes, its byteLength says 8"},
		{"JSON syntax", []byte(`{"asset":{"version":"2.0"},}`), "not glTF: JSON: invalid character '}' looking for beginning of object key string (byte 28)"},
		{"JSON type", []byte(`{"nodes":[{"mesh":"x"}]}`), "not glTF: JSON: json: cannot unmarshal string into Go struct field Document.nodes.mesh of type int"},
		{"remote buffer", []byte(`{` + asset + `,"buffers":[{"byteLength":4,"uri":"http://example.com/a.bin"}]}`),
			`buffer 0: uri "http://example.com/a.bin": only data URIs and file names relative to the model are read`},
		{"buffer above the model", []byte(`{` + asset + `,"buffers":[{"byteLength":4,"uri":"../a.bin"}]}`),
			`buffer 0: uri "../a.bin": not a file beside the model`},
		{"buffer file from a reader", []byte(`{` + asset + `,"buffers":[{"byteLength":4,"uri":"a.bin"}]}`),
			`buffer 0: missing (uri "a.bin": Decode and FromDocument read no files; use Load)`},
		{"data URI not base64", []byte(`{` + asset + `,"buffers":[{"byteLength":4,"uri":"data:application/octet-stream,abcd"}]}`),
			`buffer 0: uri "data:application/octet-stream,abcd": only base64 data URIs are read`},
		{"data URI short", []byte(`{` + asset + `,"buffers":[{"byteLength":4,"uri":"data:application/octet-stream;base64,AAA="}]}`),
			`buffer 0: uri "data:application/octet-stream;base64,AAA=" has 2 bytes, its byteLength says 4`},
		{"no byteLength", []byte(`{` + asset + `,"buffers":[{"uri":"a.bin"}]}`), "buffer 0: byteLength 0, at least 1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decode(bytes.NewReader(c.data), "x")
			if err == nil {
				t.Fatalf("decoded, want %q", c.wantErr)
			}
			if want := "model: x: " + c.wantErr; err.Error() != want {
				t.Errorf("error\n\t%v\nwant\n\t%s", err, want)
			}
		})
	}
	// An empty but valid document is an empty model.
	m, err := Decode(strings.NewReader(`{`+asset+`}`), "empty")
	if err != nil || len(m.Parts) != 0 || len(m.Nodes) != 0 {
		t.Errorf("empty document: %+v, %v", m, err)
	}
}

// TestDecompose splits node matrices into translation, rotation and scale
// that make the same matrix again, through each branch of the quaternion
// extraction and with a mirror.
func TestDecompose(t *testing.T) {
	rots := []mgl32.Quat{
		mgl32.QuatIdent(),
		mgl32.QuatRotate(math.Pi, mgl32.Vec3{1, 0, 0}),
		mgl32.QuatRotate(math.Pi, mgl32.Vec3{0, 1, 0}),
		mgl32.QuatRotate(math.Pi, mgl32.Vec3{0, 0, 1}),
		mgl32.QuatRotate(2*math.Pi/3, mgl32.Vec3{1, 1, 1}.Normalize()),
		mgl32.QuatRotate(0.3, mgl32.Vec3{0.2, -0.9, 0.4}.Normalize()),
	}
	for _, scale := range []mgl32.Vec3{{1, 1, 1}, {2, 3, 4}, {-1, 2, 0.5}} {
		for _, r := range rots {
			want := mgl32.Translate3D(1, -2, 3).Mul4(r.Mat4()).Mul4(mgl32.Scale3D(scale[0], scale[1], scale[2]))
			var m [16]float64
			for i, v := range want {
				m[i] = float64(v)
			}
			tr, err := decompose(m)
			if err != nil {
				t.Fatal(err)
			}
			got := mgl32.Translate3D(tr.Pos[0], tr.Pos[1], tr.Pos[2]).Mul4(tr.Rot.Mat4()).Mul4(mgl32.Scale3D(tr.Scale[0], tr.Scale[1], tr.Scale[2]))
			if !got.ApproxEqualThreshold(want, 1e-5) {
				t.Errorf("rotation %v scale %v: decomposed into %+v, which makes\n%v\nwant\n%v", r, scale, tr, got, want)
			}
			if l := tr.Rot.Len(); math.Abs(float64(l)-1) > 1e-6 {
				t.Errorf("rotation %v has length %g", tr.Rot, l)
			}
		}
	}
	if _, err := decompose([16]float64{1, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}); err == nil {
		t.Error("a projective matrix decomposed")
	}
	if _, err := decompose([16]float64{math.NaN(), 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}); err == nil {
		t.Error("a NaN matrix decomposed")
	}
}

func TestSmoothNormals(t *testing.T) {
	pos := []mgl32.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {5, 5, 5}}
	n := SmoothNormals(pos, []uint32{0, 1, 2, 1, 3, 2})
	for i, want := range []mgl32.Vec3{{0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {0, 1, 0}} {
		if n[i] != want {
			t.Errorf("normal %d %v, want %v", i, n[i], want)
		}
	}
	// Two faces at a right angle, one twice the area: the shared edge's
	// normal leans towards the larger.
	pos = []mgl32.Vec3{{0, 0, 0}, {2, 0, 0}, {0, 1, 0}, {0, 0, -0.5}}
	n = SmoothNormals(pos, []uint32{0, 1, 2, 0, 1, 3})
	if want := (mgl32.Vec3{0, 1, 2}).Normalize(); !n[0].ApproxEqual(want) {
		t.Errorf("shared normal %v, want %v", n[0], want)
	}
}

func TestSingle(t *testing.T) {
	m := Single("tri", Part{Positions: []mgl32.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, Indices: []uint32{0, 1, 2},
		Targets: []Target{{Positions: make([]mgl32.Vec3, 3)}}})
	if len(m.Nodes) != 1 || len(m.Palette) != 1 || len(m.Parts) != 1 || len(m.RestWeights) != 1 {
		t.Fatalf("%+v", m)
	}
	p := m.Parts[0]
	if p.Name != "tri" || p.Normals[1] != (mgl32.Vec3{0, 0, 1}) || p.Weights[2] != [4]float32{1, 0, 0, 0} || p.Joints[2] != [4]uint16{} {
		t.Errorf("part %+v", p)
	}
	defer func() {
		r := recover()
		if s, _ := r.(string); !strings.HasPrefix(s, "model: bad: part 0 (bad): index 2 is 7") {
			t.Errorf("Single with a bad index panicked with %v", r)
		}
	}()
	Single("bad", Part{Positions: []mgl32.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, Indices: []uint32{0, 1, 7}})
}

// TestValidate breaks a valid model in one way at a time.
func TestValidate(t *testing.T) {
	valid := func() *Model {
		m := Single("v", Part{
			Positions: []mgl32.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, Indices: []uint32{0, 1, 2},
			UVs: make([]mgl32.Vec2, 3), Material: Material{BaseColor: [4]float32{1, 1, 1, 1}, Texture: image.NewRGBA(image.Rect(0, 0, 1, 1))},
		})
		m.Nodes = append(m.Nodes, Node{Name: "child", Parent: 0, Rest: m.Nodes[0].Rest})
		m.Clips = []Clip{{Name: "c", Duration: 1, Channels: []Channel{{Path: Scale, Node: 1, Times: []float32{0, 1}, Values: make([]float32, 6)}}}}
		return m
	}
	if err := valid().Validate(); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		break_ func(m *Model)
		want   string
	}{
		{"parent after", func(m *Model) { m.Nodes[0].Parent = 1 }, "node 0: parent 1, want -1 to -1"},
		{"rotation", func(m *Model) { m.Nodes[1].Rest.Rot.W = 2 }, "node 1: rest rotation"},
		{"palette node", func(m *Model) { m.Palette[0].Node = 2 }, "palette 0: node 2, the model has 2"},
		{"joint", func(m *Model) { m.Parts[0].Joints[1][2] = 1 }, "part 0 (v): vertex 1: joint 1, the palette has 1"},
		{"weights", func(m *Model) { m.Parts[0].Weights[2] = [4]float32{0.5, 0.4, 0, 0} }, "part 0 (v): vertex 2: the weights sum to 0.9"},
		{"normal", func(m *Model) { m.Parts[0].Normals[0] = mgl32.Vec3{0, 0, 2} }, "part 0 (v): vertex 0: normal [0 0 2] is not a unit vector"},
		{"short colours", func(m *Model) { m.Parts[0].Colors = make([][4]uint8, 2) }, "part 0 (v): 2 colours for 3 positions"},
		{"index", func(m *Model) { m.Parts[0].Indices[0] = 3 }, "part 0 (v): index 0 is 3, the part has 3 vertices"},
		{"texture without uvs", func(m *Model) { m.Parts[0].UVs = nil }, "part 0 (v): a texture but no texture coordinates"},
		{"target weights", func(m *Model) {
			m.Parts[0].Targets = []Target{{Positions: make([]mgl32.Vec3, 3)}}
		}, "part 0 (v): weights 0 to 1, the model has 0"},
		{"channel node", func(m *Model) { m.Clips[0].Channels[0].Node = 2 }, "clip 0 (c): channel 0: node 2, the model has 2"},
		{"channel time", func(m *Model) { m.Clips[0].Channels[0].Times[1] = 2 }, "clip 0 (c): channel 0: key 1 at 2 s"},
		{"channel values", func(m *Model) { m.Clips[0].Channels[0].Values = make([]float32, 5) }, "clip 0 (c): channel 0: 5 values for 2 keys of 3"},
		{"weights channel", func(m *Model) {
			m.Clips[0].Channels[0] = Channel{Path: Weights, FirstWeight: 0, Count: 1, Times: []float32{0}, Values: []float32{1}}
		}, "clip 0 (c): channel 0: weights 0 to 1, the model has 0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := valid()
			c.break_(m)
			err := m.Validate()
			if err == nil || !strings.HasPrefix(err.Error(), "model: v: "+c.want) {
				t.Errorf("error %v, want it to start with %q", err, "model: v: "+c.want)
			}
		})
	}
}
