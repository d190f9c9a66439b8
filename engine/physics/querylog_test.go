package physics

import (
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

// The query log records every kind of query with its nearest answer while
// it is on, nothing while it is off, and changes no query's answer.
func TestQueryLogRecords(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	tw.floor(0.5, 0)
	box := tw.add(NewBodyDef(Static, unitBox), mgl32.Vec3{3, 0.5, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	ball := Shape{Kind: Sphere, Radius: 0.25}
	queries := func() (RayHit, []RayHit, SweepHit, []SweepHit, int) {
		t.Helper()
		h, _, err := tw.s.RayCast(mgl32.Vec3{3, 5, 0}, mgl32.Vec3{0, -1, 0}, 10, QueryFilter{})
		all, err2 := tw.s.RayCastAll(mgl32.Vec3{3, 5, 0}, mgl32.Vec3{0, -1, 0}, 10, QueryFilter{}, nil)
		sw, _, err3 := tw.s.Sweep(ball, mgl32.Vec3{0, 0.5, 0}, mgl32.QuatIdent(), mgl32.Vec3{4, 0, 0}, QueryFilter{})
		swa, err4 := tw.s.SweepAll(ball, mgl32.Vec3{0, 0.5, 0}, mgl32.QuatIdent(), mgl32.Vec3{4, 0, 0}, QueryFilter{}, nil)
		ov, err5 := tw.s.Overlap(ball, mgl32.Vec3{3, 1, 0}, mgl32.QuatIdent(), QueryFilter{}, nil)
		for _, err := range []error{err, err2, err3, err4, err5} {
			if err != nil {
				t.Fatal(err)
			}
		}
		return h, all, sw, swa, len(ov)
	}
	h0, all0, sw0, swa0, ov0 := queries()
	if tw.s.QueryLog() != nil || tw.s.QueryLogEnabled() {
		t.Fatal("the log is off by default, yet holds records")
	}
	tw.s.SetQueryLog(true)
	h1, all1, sw1, swa1, ov1 := queries()
	if h0 != h1 || len(all0) != len(all1) || sw0 != sw1 || len(swa0) != len(swa1) || ov0 != ov1 {
		t.Errorf("answers with the log on differ from those with it off")
	}
	log := tw.s.QueryLog()
	kinds := []QueryKind{QueryRay, QueryRay, QuerySweep, QuerySweep, QueryOverlap}
	if len(log) != len(kinds) {
		t.Fatalf("%d records, want %d: %+v", len(log), len(kinds), log)
	}
	for i, k := range kinds {
		if log[i].Kind != k || log[i].Tick != tw.w.Tick() {
			t.Errorf("record %d: %v at tick %d, want %v at %d", i, log[i].Kind, log[i].Tick, k, tw.w.Tick())
		}
	}
	if log[0].Hits != 1 || log[0].Point != h1.Point || log[1].Hits != len(all1) || log[2].Hits != 1 || log[2].Distance != sw1.Fraction || log[4].Hits != ov1 {
		t.Errorf("records %+v do not hold the answers (ray %+v, sweep %+v, overlap %d)", log, h1, sw1, ov1)
	}
	if log[2].Shape != ball || log[2].Dir != (mgl32.Vec3{4, 0, 0}) || log[0].Dir != (mgl32.Vec3{0, -1, 0}) || log[0].Length != 10 {
		t.Errorf("records %+v do not hold the questions", log[:3])
	}
	_ = box
	if testing.AllocsPerRun(10, func() { tw.s.RayCast(mgl32.Vec3{3, 5, 0}, mgl32.Vec3{0, -1, 0}, 10, QueryFilter{}) }) != 0 {
		t.Error("a logged RayCast allocates once the log is warm")
	}
	tw.s.SetQueryLog(false)
	if tw.s.QueryLog() != nil {
		t.Error("records after SetQueryLog(false)")
	}
}
