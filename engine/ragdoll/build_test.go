package ragdoll

import (
	"testing"

	"github.com/nebulaengine/nebula/engine/model"
	"github.com/nebulaengine/nebula/internal/modelgen"
)

// figure returns the demo's figure model.
func figure(t testing.TB) *model.Model {
	t.Helper()
	m, err := model.FromDocument(modelgen.Figure(), "figure")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestDumpFigure(t *testing.T) {
	m := figure(t)
	d, err := Build(m, DefaultMapping(m))
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range d.Parts {
		t.Logf("%d %s %v parent %d shape %+v bind %v off %v joint %+v", i, p.Name, p.Part, p.Parent, p.Shape, p.Bind, p.Offset, p.Joint)
	}
	t.Log(d.follow)
}
