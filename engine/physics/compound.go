package physics

import (
	"errors"
	"fmt"
	"strings"

	"github.com/go-gl/mathgl/mgl32"
)

// Compound bodies: several spheres, capsules and boxes carried by one body,
// each at its own place in the body's frame (a dumbbell: two balls and a
// bar; an L: two boxes). Like meshes, compounds are assets the Space holds
// (Space.AddCompound), named by a CompoundID in the body's Shape, so the
// Body component stays plain data and every peer builds the same parts.
//
// A compound's centre of mass is generally not the entity's position, and
// its inertia tensor not diagonal in the entity's frame: the compound
// keeps its centre of mass and its principal axes (the tensor diagonalised
// by Jacobi rotations, which need only products, sums, divisions and
// square roots, so every build finds the same bits). The body's
// InvInertia holds the inverse principal moments; the step turns and moves
// the body about its centre of mass, with the gyroscopic term
// (gyroscopic, solver.go) so that it tumbles as a solid does.

// CompoundID names a compound added to a Space (Space.AddCompound), from
// 1; 0 is no compound.
type CompoundID uint32

// Part is one shape of a compound, placed in the body's own frame.
type Part struct {
	// Shape is a Sphere, Capsule or Box (no meshes, no compounds).
	Shape Shape
	// Pos is the centre of the shape in the body's frame, m; each
	// coordinate within ±10,000 m.
	Pos mgl32.Vec3
	// Rot turns the shape in the body's frame: a unit quaternion (within
	// 1e-3; it is normalised), or the zero Quat for no rotation.
	Rot mgl32.Quat
}

// MaxCompoundParts is the most parts a compound has.
const MaxCompoundParts = 256

// MaxCompounds is the most compounds a Space takes.
const MaxCompounds = 1 << 16

// compound is a compound as the step reads it.
type compound struct {
	parts []part
	// At density 1: the mass (the parts' volume; parts that overlap count
	// twice), the centre of mass in the body's frame, the principal axes
	// (frame turns the principal frame into the body's) and the principal
	// moments about the centre of mass.
	volume  float32
	com     vec3
	frame   quat
	moments vec3
}

// part is one shape of a compound and its pose in the body's frame.
type part struct {
	shape shape
	pose  pose
}

// CompoundShape returns the Shape of a body made of the compound id:
// Shape{Kind: Compound, Compound: id}.
func CompoundShape(id CompoundID) Shape {
	return Shape{Kind: Compound, Compound: id}
}

// AddCompound adds a compound made of parts to the Space and returns the
// CompoundID a body's Shape names it by (CompoundShape(id)). The parts
// are copied. A body made of it weighs its density times the parts'
// volume (parts that overlap count twice); its centre of mass and
// inertia tensor are the parts' together (parallel-axis theorem). Its
// entity's position is the origin of the parts' frame, not the centre of
// mass (Body's Space methods say which one each takes).
//
// Compounds are assets, like meshes and models, not simulated state: add
// the same compounds in the same order in every run and on every peer,
// and to a new Space made for a restored world, before its first Step,
// with the same bits (write rotations as constants: mgl32.QuatRotate goes
// through math.Sin, whose last bit may differ between builds).
//
// It returns an error, and adds nothing, for an empty list, more than
// MaxCompoundParts parts, a part that is not a valid sphere, capsule or
// box (Shape's rules), a position that is not finite or farther than
// 10,000 m on an axis, a rotation that is neither zero nor a finite unit
// quaternion, or a Space already holding MaxCompounds compounds.
func (s *Space) AddCompound(parts []Part) (CompoundID, error) {
	c, err := newCompound(parts)
	if err != nil {
		return 0, fmt.Errorf("physics: AddCompound: %w", err)
	}
	if len(s.compounds) >= MaxCompounds {
		return 0, fmt.Errorf("physics: AddCompound: a Space holds at most %d compounds", MaxCompounds)
	}
	s.compounds = append(s.compounds, c)
	return CompoundID(len(s.compounds)), nil
}

// newCompound checks parts and computes the compound's mass properties.
//
//srccheck:wrapped by AddCompound, as "physics: AddCompound: ..."
func newCompound(parts []Part) (*compound, error) {
	if len(parts) == 0 {
		return nil, errors.New("a compound needs at least one part")
	}
	if len(parts) > MaxCompoundParts {
		return nil, fmt.Errorf("a compound has at most %d parts, got %d", MaxCompoundParts, len(parts))
	}
	c := &compound{parts: make([]part, len(parts))}
	for i, p := range parts {
		switch p.Shape.Kind {
		case Sphere, Capsule, Box:
		case Mesh, Compound:
			return nil, fmt.Errorf("part %d: a compound's parts are spheres, capsules and boxes, got a %v", i, p.Shape.Kind)
		}
		if err := p.Shape.validate(); err != nil {
			return nil, fmt.Errorf("part %d: %s", i, strings.TrimPrefix(err.Error(), "physics: "))
		}
		pos := toVec3(p.Pos)
		if !pos.finite() || abs(pos.x) > maxShapeSize || abs(pos.y) > maxShapeSize || abs(pos.z) > maxShapeSize {
			return nil, fmt.Errorf("part %d: the position %v must be finite and within %g m of the origin on each axis", i, p.Pos, float32(maxShapeSize))
		}
		q := toQuat(p.Rot)
		switch {
		case q == (quat{}):
			q = identity
		case !q.finite() || abs(q.lengthSq()-1) > 2e-3:
			return nil, fmt.Errorf("part %d: the rotation %v is not a unit quaternion (nor zero, for none)", i, p.Rot)
		default:
			q = q.normalize()
		}
		c.parts[i] = part{shape: shapeOf(p.Shape), pose: pose{pos, q}}
	}
	c.massProperties()
	return c, nil
}

// massProperties fills c's volume, centre of mass, principal frame and
// moments (at density 1) from its parts.
func (c *compound) massProperties() {
	var vol float32
	var sum vec3
	for i := range c.parts {
		p := &c.parts[i]
		m, _ := p.shape.massProperties(1)
		vol += m
		sum = sum.addScaled(p.pose.p, m)
	}
	c.volume = vol
	c.com = sum.scale(1 / vol)
	// The tensor about the centre of mass: each part's own, turned into
	// the body's frame (R diag(I) Rᵀ), plus m(|d|² E - d dᵀ) for its
	// offset d from the centre of mass.
	var t mat3
	for i := range c.parts {
		p := &c.parts[i]
		m, in := p.shape.massProperties(1)
		r := p.pose.q.rotation()
		rd := mat3{r.r0.mul(in), r.r1.mul(in), r.r2.mul(in)}
		own := mat3{
			vec3{rd.r0.dot(r.r0), rd.r0.dot(r.r1), rd.r0.dot(r.r2)},
			vec3{rd.r1.dot(r.r0), rd.r1.dot(r.r1), rd.r1.dot(r.r2)},
			vec3{rd.r2.dot(r.r0), rd.r2.dot(r.r1), rd.r2.dot(r.r2)},
		}
		d := p.pose.p.sub(c.com)
		dd := d.lengthSq()
		shift := mat3{
			vec3{dd - float32(d.x*d.x), -float32(d.x * d.y), -float32(d.x * d.z)},
			vec3{-float32(d.y * d.x), dd - float32(d.y*d.y), -float32(d.y * d.z)},
			vec3{-float32(d.z * d.x), -float32(d.z * d.y), dd - float32(d.z*d.z)},
		}
		t = mat3{
			t.r0.add(own.r0).addScaled(shift.r0, m),
			t.r1.add(own.r1).addScaled(shift.r1, m),
			t.r2.add(own.r2).addScaled(shift.r2, m),
		}
	}
	c.moments, c.frame = principalAxes(t)
	// A moment far below the largest (a row of tiny balls far apart,
	// about the row) is lost in the rounding of the others, and may come
	// out zero or negative: floor each at a millionth of the largest.
	floor := float32(max(c.moments.x, c.moments.y, c.moments.z) * 1e-6)
	c.moments = c.moments.max(vec3{floor, floor, floor})
}

// tensor returns the compound's inertia tensor about its centre of mass,
// in the body's frame, at density 1: F diag(moments) Fᵀ.
func (c *compound) tensor() mat3 {
	r := c.frame.rotation()
	in := c.moments
	rd := mat3{r.r0.mul(in), r.r1.mul(in), r.r2.mul(in)}
	return mat3{
		vec3{rd.r0.dot(r.r0), rd.r0.dot(r.r1), rd.r0.dot(r.r2)},
		vec3{rd.r1.dot(r.r0), rd.r1.dot(r.r1), rd.r1.dot(r.r2)},
		vec3{rd.r2.dot(r.r0), rd.r2.dot(r.r1), rd.r2.dot(r.r2)},
	}
}

// jacobiSweeps bounds principalAxes' loop; a 3×3 tensor converges in a
// handful of sweeps.
const jacobiSweeps = 24

// principalAxes diagonalises the symmetric tensor t by cyclic Jacobi
// rotations: t = F diag(moments) Fᵀ, F the rotation of frame. A tensor
// that is already diagonal gives the identity exactly.
func principalAxes(t mat3) (moments vec3, frame quat) {
	a := [3][3]float32{
		{t.r0.x, t.r0.y, t.r0.z},
		{t.r1.x, t.r1.y, t.r1.z},
		{t.r2.x, t.r2.y, t.r2.z},
	}
	// Symmetrise (the sums above round alike, but be sure).
	for i := range 3 {
		for j := i + 1; j < 3; j++ {
			m := float32((a[i][j] + a[j][i]) * 0.5)
			a[i][j], a[j][i] = m, m
		}
	}
	v := [3][3]float32{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
	for range jacobiSweeps {
		if a[0][1] == 0 && a[0][2] == 0 && a[1][2] == 0 {
			break
		}
		for _, pq := range [3][2]int{{0, 1}, {0, 2}, {1, 2}} {
			p, q := pq[0], pq[1]
			apq := a[p][q]
			if apq == 0 {
				continue
			}
			// Negligible beside the diagonal: drop it.
			if diag := abs(a[p][p]) + abs(a[q][q]); abs(apq) <= float32(diag*1e-9) {
				a[p][q], a[q][p] = 0, 0
				continue
			}
			theta := (a[q][q] - a[p][p]) / float32(2*apq)
			tt := 1 / (abs(theta) + sqrt(float32(theta*theta)+1))
			if theta < 0 {
				tt = -tt
			}
			cs := 1 / sqrt(float32(tt*tt)+1)
			sn := float32(tt * cs)
			app, aqq := a[p][p], a[q][q]
			a[p][p] = app - float32(tt*apq)
			a[q][q] = aqq + float32(tt*apq)
			a[p][q], a[q][p] = 0, 0
			r := 3 - p - q // the third index
			arp, arq := a[r][p], a[r][q]
			a[r][p] = float32(cs*arp) - float32(sn*arq)
			a[r][q] = float32(sn*arp) + float32(cs*arq)
			a[p][r], a[q][r] = a[r][p], a[r][q]
			for k := range 3 {
				vkp, vkq := v[k][p], v[k][q]
				v[k][p] = float32(cs*vkp) - float32(sn*vkq)
				v[k][q] = float32(sn*vkp) + float32(cs*vkq)
			}
		}
	}
	moments = vec3{a[0][0], a[1][1], a[2][2]}
	// v's columns are the principal axes; make it a rotation.
	c0 := vec3{v[0][0], v[1][0], v[2][0]}
	c1 := vec3{v[0][1], v[1][1], v[2][1]}
	c2 := vec3{v[0][2], v[1][2], v[2][2]}
	if c0.cross(c1).dot(c2) < 0 {
		c2 = c2.neg()
	}
	return moments, quatFromAxes(c0, c1, c2)
}

// quatFromAxes returns the rotation whose matrix has the columns c0, c1,
// c2 (orthonormal, right-handed), by Shepperd's method.
func quatFromAxes(c0, c1, c2 vec3) quat {
	m00, m11, m22 := c0.x, c1.y, c2.z
	var q quat
	switch tr := m00 + m11 + m22; {
	case tr > 0:
		s := float32(sqrt(tr+1) * 2)
		q = quat{(c1.z - c2.y) / s, (c2.x - c0.z) / s, (c0.y - c1.x) / s, float32(0.25 * s)}
	case m00 >= m11 && m00 >= m22:
		s := float32(sqrt(1+m00-m11-m22) * 2)
		q = quat{float32(0.25 * s), (c1.x + c0.y) / s, (c2.x + c0.z) / s, (c1.z - c2.y) / s}
	case m11 >= m22:
		s := float32(sqrt(1+m11-m00-m22) * 2)
		q = quat{(c1.x + c0.y) / s, float32(0.25 * s), (c2.y + c1.z) / s, (c2.x - c0.z) / s}
	default:
		s := float32(sqrt(1+m22-m00-m11) * 2)
		q = quat{(c2.x + c0.z) / s, (c2.y + c1.z) / s, float32(0.25 * s), (c0.y - c1.x) / s}
	}
	return q.normalize()
}

// partPose returns the world pose of a part of a body at p.
func partPose(p pose, pt *part) pose {
	return pose{p.apply(pt.pose.p), p.q.mul(pt.pose.q)}
}

// aabb returns the box around the compound's parts with the body at p.
func (c *compound) aabb(p pose) aabb {
	b := c.parts[0].shape.aabb(partPose(p, &c.parts[0]))
	for i := 1; i < len(c.parts); i++ {
		b = b.union(c.parts[i].shape.aabb(partPose(p, &c.parts[i])))
	}
	return b
}

// centreOfMass returns the world centre of mass of a body with shape sh
// at p: p's position but for a compound.
func centreOfMass(sh *shape, p pose) vec3 {
	// A hull's vertices are about its centre of mass already.
	if sh.comp == nil {
		return p.p
	}
	return p.apply(sh.comp.com)
}

// inertiaFrame returns the world rotation of the principal axes of a
// body with shape sh turned by q: q but for a compound.
func inertiaFrame(sh *shape, q quat) quat {
	switch {
	case sh.comp != nil:
		return q.mul(sh.comp.frame)
	case sh.hull != nil:
		return q.mul(sh.hull.frame)
	}
	return q
}

// raycast returns where the ray origin + t·dir (dir a unit vector) first
// meets a part of the compound carried at p, within maxT: t, the outward
// normal, the part's index (the lowest at equal t) and ok.
func (c *compound) raycast(p pose, origin, dir vec3, maxT float32) (float32, vec3, int, bool) {
	best, bestN, bestI, found := maxT, vec3{}, 0, false
	for i := range c.parts {
		pt := &c.parts[i]
		pp := partPose(p, pt)
		box := pt.shape.aabb(pp)
		if _, in := rayBoxEntry(&box, origin, dir, best); !in {
			continue
		}
		t, n, ok := pt.shape.raycast(pp, origin, dir, best)
		if ok && (!found || t < best) {
			best, bestN, bestI, found = t, n, i, true
		}
	}
	return best, bestN, bestI, found
}
