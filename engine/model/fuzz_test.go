package model_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/qmuntal/gltf"

	"github.com/nebulaengine/nebula/engine/model"
	"github.com/nebulaengine/nebula/internal/modelgen"
)

// FuzzFromDocument feeds bytes to the loader two ways: model.Decode (the
// GLB container, buffers, then the conversion, as Load does) and, for
// JSON, gltf's own decoder followed by model.FromDocument. Neither may
// panic (the loader's recover would turn a panic into an "internal error",
// which fails the test too), every error must be one error naming the file,
// and every model returned must keep the invariants Validate checks:
// indices below the vertex count, joints in the palette, parents before
// children, finite numbers, weights summing to 1, channels within their
// nodes and weights.
//
// gltf's decoder is not given GLB input: it allocates the byteLength a
// file claims for its BIN chunk before reading it, so a 30-byte input can
// ask for gigabytes (model.Decode checks the claim against the chunk).
func FuzzFromDocument(f *testing.F) {
	for _, gen := range []func() ([]byte, error){modelgen.ArmGLB, modelgen.FigureGLB, modelgen.TruncatedGLB} {
		data, err := gen()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, doc := range []*gltf.Document{modelgen.BadAccessor(), modelgen.TooManyJoints(), modelgen.UnsupportedMode(),
		modelgen.BadWeights(), modelgen.ShortAnimation()} {
		data, err := modelgen.GLB(doc)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	// Arm as JSON with its buffer in a data URI, for gltf's decoder.
	doc := modelgen.Arm()
	doc.Buffers[0].EmbeddedResource()
	var buf bytes.Buffer
	enc := gltf.NewEncoder(&buf)
	enc.AsBinary = false
	if err := enc.Encode(doc); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte(`{"asset":{"version":"2.0"},"nodes":[{"mesh":0}],"meshes":[{"primitives":[{"attributes":{"POSITION":0}}]}],` +
		`"accessors":[{"componentType":5126,"type":"VEC3","count":3}]}`))

	f.Fuzz(func(t *testing.T, data []byte) {
		const name = "fuzz.glb"
		check := func(how string, m *model.Model, err error) {
			if err != nil {
				msg := err.Error()
				if !strings.HasPrefix(msg, "model: "+name+": ") || strings.Count(msg, "model: ") != 1 {
					t.Fatalf("%s: error %q does not name the file once", how, msg)
				}
				if strings.Contains(msg, "internal error") {
					t.Fatalf("%s: the loader panicked: %v", how, err)
				}
				return
			}
			if err := m.Validate(); err != nil {
				t.Fatalf("%s returned an invalid model: %v", how, err)
			}
		}
		m, err := model.Decode(bytes.NewReader(data), name)
		check("Decode", m, err)
		if bytes.HasPrefix(data, []byte("glTF")) {
			return
		}
		doc := new(gltf.Document)
		if !libraryDecodes(data, doc) {
			return
		}
		m, err = model.FromDocument(doc, name)
		check("FromDocument", m, err)
	})
}

// libraryDecodes decodes data with gltf's decoder, reporting whether it
// succeeded; a panic in the library (not the loader's to fix) counts as a
// failure to decode.
func libraryDecodes(data []byte, doc *gltf.Document) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return gltf.NewDecoder(bytes.NewReader(data)).Decode(doc) == nil
}
