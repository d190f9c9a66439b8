package physics

import (
	"math/rand/v2"
	"testing"
)

// TestFaceCornersMatchClip: the face contact's short way (an incident face
// that passes none of the reference face's side planes gives its corners
// straight) writes the same bits as clipping the face against all four
// planes, which keeps such a face whole.
func TestFaceCornersMatchClip(t *testing.T) {
	rng := rand.New(rand.NewPCG(34, 1))
	r := func(lo, hi float32) float32 { return lo + (hi-lo)*rng.Float32() }
	for k := range 2000 {
		rot := randQuat(rng).rotation()
		f := faceFrame{
			o: vec3{r(-5, 5), r(-5, 5), r(-5, 5)}, ax: rot.col(0), ay: rot.col(1), az: rot.col(2),
			fu: r(0.1, 3), fv: r(0.1, 3), hf: r(0.1, 3), margin: r(0, 0.1), ids: uint32(k&63) << 6,
		}
		lu, lv := f.fu*1.01, f.fv*1.01
		var p [4]vec3
		for i := range p {
			p[i] = vec3{r(-lu, lu), r(-lv, lv), f.hf + r(-0.2, 0.2)}
		}
		var fast, clipped manifold
		f.corner(p[0], 3<<3, &fast)
		f.corner(p[1], 0<<3|1, &fast)
		f.corner(p[2], 1<<3|2, &fast)
		f.corner(p[3], 2<<3|3, &fast)
		if fast.n > 0 {
			fast.normal = f.az
		}
		if f.clip(p[0], p[1], p[2], p[3], [4]bool{true, true, true, true}, f.az, lu, lv, &clipped) {
			t.Fatalf("case %d: the clip left nothing of a face inside the planes", k)
		}
		if fast != clipped {
			t.Fatalf("case %d: corners %+v, clipped %+v", k, fast, clipped)
		}
	}
}

// TestBoxOnFloorCorners: a cube resting turned on a larger box meets it
// with its four bottom corners, ids naming the floor's +y face, the
// cube's −y face and the corner's two edges.
func TestBoxOnFloorCorners(t *testing.T) {
	var m manifold
	pb := turned(at(3.1, 0.49, 2.05), axisAngle(vec3{0, 1, 0}, 14))
	collide(boxS(8, 0.5, 8), at(0, -0.5, 0), boxS(0.5, 0.5, 0.5), pb, 0.02, &m)
	if m.n != 4 || m.normal != (vec3{0, 1, 0}) {
		t.Fatalf("%d points, normal %v; want 4, (0, 1, 0)", m.n, m.normal)
	}
	for k := range m.n {
		q := &m.pts[k]
		want := uint32(2)<<9 | uint32(3)<<6 | uint32((k+3)&3)<<3 | uint32(k)
		if q.id != want || abs(q.sep+0.01) > 1e-6 || abs(q.p.y+0.005) > 1e-6 {
			t.Errorf("point %d: id %#x sep %v y %v; want id %#x, sep −0.01, y −0.005", k, q.id, q.sep, q.p.y, want)
		}
	}
}
