package physics

import (
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/nebulaengine/nebula/engine"
)

func TestReproChain(t *testing.T) {
	for _, rev := range []bool{false, true} {
		tw := newTestWorld(t, zeroG())
		es := make([]engine.Entity, 10)
		d := NewBodyDef(Dynamic, Shape{Kind: Box, HalfExtents: mgl32.Vec3{0.5, 0.5, 0.5}})
		for j := range 10 {
			i := j
			if rev {
				i = 9 - j
			}
			v := mgl32.Vec3{}
			if i == 0 {
				v = mgl32.Vec3{1, 0, 0}
			}
			es[i] = tw.add(d, mgl32.Vec3{float32(i), 0, 0}, mgl32.QuatIdent(), v, mgl32.Vec3{})
		}
		tw.steps(1)
		for i := range 10 {
			t.Logf("rev=%v box %d vel %v", rev, i, tw.vel(es[i])[0])
		}
	}
}
