package modelgen_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine/model"
	"github.com/nebulaengine/nebula/internal/modelgen"
)

func decode(t *testing.T, gen func() ([]byte, error), name string) *model.Model {
	t.Helper()
	data, err := gen()
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.Decode(bytes.NewReader(data), name)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestRestPose checks that every palette matrix is the identity at rest
// (the joint's global rest transform times its inverse bind matrix): the
// models do not deform before they are animated.
func TestRestPose(t *testing.T) {
	for _, c := range []struct {
		name string
		gen  func() ([]byte, error)
	}{{"arm", modelgen.ArmGLB}, {"figure", modelgen.FigureGLB}} {
		m := decode(t, c.gen, c.name)
		global := make([]mgl32.Mat4, len(m.Nodes))
		for i, n := range m.Nodes {
			r := n.Rest
			local := mgl32.Translate3D(r.Pos[0], r.Pos[1], r.Pos[2]).Mul4(r.Rot.Mat4()).Mul4(mgl32.Scale3D(r.Scale[0], r.Scale[1], r.Scale[2]))
			global[i] = local
			if n.Parent >= 0 {
				global[i] = global[n.Parent].Mul4(local)
			}
		}
		for i, j := range m.Palette {
			if c.name == "arm" && i == 3 {
				continue // the arm's marker: a rigid entry, its vertices in its node's space
			}
			if skinned := global[j.Node].Mul4(j.InverseBind); !nearIdentity(skinned) {
				t.Errorf("%s: palette %d (node %s) at rest is\n%v, want the identity", c.name, i, m.Nodes[j.Node].Name, skinned)
			}
		}
	}
}

// TestFigureLoops checks that both clips loop seamlessly: every channel
// with more than one key ends on its first key's value at the clip's end.
func TestFigureLoops(t *testing.T) {
	m := decode(t, modelgen.FigureGLB, "figure")
	for _, clip := range m.Clips {
		for i, ch := range clip.Channels {
			n := len(ch.Times)
			if n == 1 {
				continue
			}
			per := len(ch.Values) / n
			first, last := ch.Values[:per], ch.Values[len(ch.Values)-per:]
			if ch.Times[n-1] != clip.Duration {
				t.Errorf("%s channel %d ends at %g s, the clip at %g s", clip.Name, i, ch.Times[n-1], clip.Duration)
			}
			for k := range first {
				if first[k] != last[k] {
					t.Errorf("%s channel %d: first key %v, last %v", clip.Name, i, first, last)
					break
				}
			}
		}
	}
}

// TestWriteGLTF writes the arm as .gltf and .bin and leaves the document
// as it was.
func TestWriteGLTF(t *testing.T) {
	doc := modelgen.Arm()
	dir := t.TempDir()
	path, err := modelgen.WriteGLTF(doc, dir, "arm")
	if err != nil {
		t.Fatal(err)
	}
	if path != filepath.Join(dir, "arm.gltf") || doc.Buffers[0].URI != "" {
		t.Errorf("path %s, buffer uri %q after writing", path, doc.Buffers[0].URI)
	}
	bin, err := os.ReadFile(filepath.Join(dir, "arm.bin"))
	if err != nil || !bytes.Equal(bin, doc.Buffers[0].Data) {
		t.Errorf("arm.bin: %d bytes (%v), want the buffer's %d", len(bin), err, len(doc.Buffers[0].Data))
	}
	if _, err := modelgen.WriteGLTF(doc, dir, "arm"); err != nil {
		t.Errorf("writing twice: %v", err)
	}
}

// nearIdentity reports whether every element of m is within 1e-6 of the
// identity's.
func nearIdentity(m mgl32.Mat4) bool {
	id := mgl32.Ident4()
	for i := range m {
		if d := m[i] - id[i]; d > 1e-6 || d < -1e-6 {
			return false
		}
	}
	return true
}
