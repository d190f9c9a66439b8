package physics

import (
	"github.com/go-gl/mathgl/mgl32"
)

// QueryKind says which query a QueryRecord records.
type QueryKind uint8

//go:generate go run golang.org/x/tools/cmd/stringer@v0.52.0 -type=QueryKind -linecomment

// The kinds of query the query log records.
const (
	QueryRay     QueryKind = iota + 1 // ray
	QuerySweep                        // sweep
	QueryOverlap                      // overlap
)

// QueryRecord is one query the Space answered during the last tick, as
// its query log keeps it (Space.SetQueryLog): what was asked and the
// nearest answer. RayCast and RayCastAll record a QueryRay, Sweep and
// SweepAll a QuerySweep, Overlap a QueryOverlap; a query that returned an
// error is not recorded.
type QueryRecord struct {
	Kind QueryKind // which query
	// Tick is the world's tick when the query was made.
	Tick uint64
	// Origin is the ray's origin, or the swept or overlapping shape's
	// position at the start; Rot is the shape's rotation.
	Origin mgl32.Vec3
	Rot    mgl32.Quat // the shape's rotation (identity for a ray)
	// Dir is the ray's unit direction and Length its maxDist, m; for a
	// sweep, Dir is the motion (delta) and Length 1.
	Dir    mgl32.Vec3
	Length float32 // a ray's maxDist, m; 1 for a sweep
	// Shape is the swept or overlapping shape (zero for a ray).
	Shape Shape
	// Hits is how many bodies the query found (0 or 1 for RayCast and
	// Sweep).
	Hits int
	// Point and Normal are the nearest hit's, and Distance its distance
	// from Origin along Dir (a ray's in m, a sweep's as a fraction of
	// Dir), when Hits > 0 and the query is a ray or a sweep. A sweep's
	// Point is where the shape's centre is when it touches.
	Point, Normal mgl32.Vec3
	Distance      float32 // the nearest hit's: a ray's in m, a sweep's fraction
}

// queryLog is the Space's record of the queries of its world's last tick:
// diagnostics for debug drawing, not simulated state (nothing reads it in
// a step; snapshots do not carry it).
type queryLog struct {
	on   bool
	tick uint64
	recs []QueryRecord
}

// SetQueryLog turns the query log on or off (it is off when a Space is
// made). While it is on, every RayCast, RayCastAll, Sweep, SweepAll and
// Overlap is recorded (QueryLog returns those of the world's current
// tick); the first query of a new tick forgets the earlier tick's. The
// log does not change what the queries return, and once its buffer has
// grown to a tick's queries it allocates nothing. Turning it off empties
// it.
func (s *Space) SetQueryLog(on bool) {
	s.qlog.on = on
	if !on {
		s.qlog.recs = s.qlog.recs[:0]
	}
}

// QueryLogEnabled reports whether the query log is on.
func (s *Space) QueryLogEnabled() bool { return s.qlog.on }

// QueryLog returns the queries made during the world's current tick (the
// last one run, between ticks), in the order they were made, while the
// query log is on (SetQueryLog); nil when it is off or no query was made
// in that tick. The slice is the log's own: it is valid until the next
// query.
func (s *Space) QueryLog() []QueryRecord {
	l := &s.qlog
	if !l.on || len(l.recs) == 0 || l.tick != s.w.Tick() {
		return nil
	}
	return l.recs
}

// record appends r to the log when it is on, first forgetting the records
// of an earlier tick.
func (s *Space) record(r QueryRecord) {
	l := &s.qlog
	if !l.on {
		return
	}
	if t := s.w.Tick(); t != l.tick {
		l.tick, l.recs = t, l.recs[:0]
	}
	r.Tick = l.tick
	l.recs = append(l.recs, r)
}

// logRay records a ray query from origin along the unit d (vec3) up to
// maxDist, with hits found and the nearest one.
func (s *Space) logRay(origin mgl32.Vec3, d vec3, maxDist float32, hits int, near RayHit) {
	if !s.qlog.on {
		return
	}
	r := QueryRecord{Kind: QueryRay, Origin: origin, Rot: mgl32.QuatIdent(), Dir: fromVec3(d), Length: maxDist, Hits: hits}
	if hits > 0 {
		r.Point, r.Normal, r.Distance = near.Point, near.Normal, near.Distance
	}
	s.record(r)
}

// logSweep records a sweep of sh from pos along delta, with hits found
// and the nearest one.
func (s *Space) logSweep(sh Shape, pos mgl32.Vec3, rot mgl32.Quat, delta mgl32.Vec3, hits int, near SweepHit) {
	if !s.qlog.on {
		return
	}
	r := QueryRecord{Kind: QuerySweep, Origin: pos, Rot: rot, Dir: delta, Length: 1, Shape: sh, Hits: hits}
	if hits > 0 {
		r.Point = fromVec3(toVec3(pos).addScaled(toVec3(delta), near.Fraction))
		r.Normal, r.Distance = near.Normal, near.Fraction
	}
	s.record(r)
}

// logOverlap records an overlap test of sh at pos that found hits bodies.
func (s *Space) logOverlap(sh Shape, pos mgl32.Vec3, rot mgl32.Quat, hits int) {
	if !s.qlog.on {
		return
	}
	s.record(QueryRecord{Kind: QueryOverlap, Origin: pos, Rot: rot, Shape: sh, Hits: hits})
}

// b2i is 1 for true, 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// firstOr returns hits[0], or none when hits is empty.
func firstOr[T any](hits []T, none T) T {
	if len(hits) == 0 {
		return none
	}
	return hits[0]
}
