package physics

import (
	"errors"
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
)

// Config holds every tuning number of a Space. Start from DefaultConfig.
type Config struct {
	// Gravity is the acceleration of every dynamic body (times its
	// GravityScale), m/s².
	Gravity mgl32.Vec3
	// TickRate is the number of steps per second: one Step advances the
	// world by 1/TickRate s. Attach takes the engine's when it is 0.
	TickRate int
	// Substeps is the number of solver substeps per step (4).
	Substeps int

	// SpeculativeDistance is how far apart, in m, two shapes may be and
	// still get contact points (which stop them from closing the gap in
	// one step) (0.02).
	SpeculativeDistance float32
	// ContactHertz is the stiffness of the soft contacts, as a natural
	// frequency in Hz (30); it is capped at a quarter of the substep rate.
	ContactHertz float32
	// ContactDampingRatio is the soft contacts' damping ratio (10).
	ContactDampingRatio float32
	// JointHertz and JointDampingRatio are the stiffness (Hz) and damping
	// ratio with which the joints' errors are pushed out (60 and 2, as
	// Box2D's joints; a JointHertz of 0 means 60). The hertz is capped at
	// a quarter of the substep rate.
	JointHertz, JointDampingRatio float32
	// MaxPushOut caps the speed, in m/s, at which overlapping shapes are
	// pushed apart (3).
	MaxPushOut float32
	// RestitutionThreshold is the approach speed, in m/s, below which a
	// contact does not bounce (1).
	RestitutionThreshold float32
	// PenetrationSlop is how deep, in m, two shapes may overlap without
	// being pushed apart (0: every overlap is pushed out; Jolt's
	// PhysicsSettings::mPenetrationSlop is 0.02). With a slop the contacts
	// are rigid, as Jolt's: a body placed overlapping by less than the
	// slop stays where it is, one that lands rests where it landed rather
	// than on the soft contacts' spring (0.28 mm deep under gravity), and
	// one placed deeper is pushed out to the slop. It is off by default:
	// inside the slop nothing undoes small drifts, and with 0.005 Box3D's
	// card house falls and a ball dropped on a mesh rests 5 mm deep.
	PenetrationSlop float32
	// TouchDistance is the separation, in m, within which two shapes
	// count as touching, for islands and contact events (0.005): soft
	// contacts let a resting body bob by a fraction of a millimetre
	// around zero, which must not make its contact begin and end.
	TouchDistance float32
	// WarmStartDistance is how near, in m, a new contact point must be to
	// one of last step's, when no point of last step has its id, to start
	// from that point's impulses (0.01).
	WarmStartDistance float32

	// A dynamic body is calm in a step when its farthest point moved
	// slower than SleepLinearSpeed (m/s), at half the rate it actually
	// moved in the step (the speed |v| + |ω|·extent averaged over the
	// substeps, contact corrections included; extent: from the centre of
	// mass to the farthest point of the shape), and it turns slower than
	// SleepAngularSpeed (rad/s): Rapier's measure, with its 0.05 m/s and
	// π/2 rad/s (the angular bound is a guard only, since the farthest
	// point's motion counts the turning). A body calm for TimeToSleep
	// seconds (0.5), with every body of its island (the bodies it has
	// contacts with, and theirs), falls asleep. A step out of those bounds
	// takes twice its length off the body's time instead of starting it
	// again, so a pile that the solver jolts now and then still sleeps; an
	// island with a body out of them in this step does not.
	SleepLinearSpeed, SleepAngularSpeed, TimeToSleep float32
	// NoSleep keeps every body awake.
	NoSleep bool
	// NoAutoCCD turns off the continuous collision that every fast
	// dynamic body gets against static bodies (meshes included): then
	// only bodies with BodyDef.CCD have any. See BodyDef.CCD.
	NoAutoCCD bool

	// MaxLinearSpeed (m/s) and MaxAngularSpeed (rad/s) cap the speed of
	// dynamic bodies (1000, 200).
	MaxLinearSpeed, MaxAngularSpeed float32
}

// DefaultConfig returns the default configuration: Earth's gravity along
// -Y, 60 steps per second, 4 substeps.
func DefaultConfig() Config {
	return Config{
		Gravity:              mgl32.Vec3{0, -9.81, 0},
		TickRate:             60,
		Substeps:             4,
		SpeculativeDistance:  0.02,
		ContactHertz:         30,
		ContactDampingRatio:  10,
		JointHertz:           60,
		JointDampingRatio:    2,
		MaxPushOut:           3,
		RestitutionThreshold: 1,
		PenetrationSlop:      0,
		TouchDistance:        0.005,
		WarmStartDistance:    0.01,
		SleepLinearSpeed:     0.05,
		SleepAngularSpeed:    math.Pi / 2,
		TimeToSleep:          0.5,
		MaxLinearSpeed:       1000,
		MaxAngularSpeed:      200,
	}
}

// validate checks c, naming the first field out of range.
//
//srccheck:wrapped by New, as "physics: New: ..."
func (c *Config) validate() error {
	if !finite(c.Gravity[0]) || !finite(c.Gravity[1]) || !finite(c.Gravity[2]) {
		return fmt.Errorf("gravity must be finite, got %v", c.Gravity)
	}
	if c.TickRate <= 0 || c.TickRate > 100000 {
		return fmt.Errorf("tick rate must be in [1, 100000], got %d", c.TickRate)
	}
	if c.Substeps < 1 || c.Substeps > 64 {
		return fmt.Errorf("substeps must be in [1, 64], got %d", c.Substeps)
	}
	positive := [...]struct {
		name string
		v    float32
	}{
		{"contact hertz", c.ContactHertz}, {"max push-out", c.MaxPushOut},
		{"max linear speed", c.MaxLinearSpeed}, {"max angular speed", c.MaxAngularSpeed},
	}
	for _, f := range positive {
		if !(f.v > 0) || !finite(f.v) {
			return fmt.Errorf("%s must be positive and finite, got %v", f.name, f.v)
		}
	}
	nonNegative := [...]struct {
		name string
		v    float32
	}{
		{"speculative distance", c.SpeculativeDistance}, {"contact damping ratio", c.ContactDampingRatio},
		{"restitution threshold", c.RestitutionThreshold}, {"touch distance", c.TouchDistance},
		{"penetration slop", c.PenetrationSlop},
		{"joint hertz", c.JointHertz}, {"joint damping ratio", c.JointDampingRatio},
		{"warm start distance", c.WarmStartDistance},
		{"sleep linear speed", c.SleepLinearSpeed},
		{"sleep angular speed", c.SleepAngularSpeed}, {"time to sleep", c.TimeToSleep},
	}
	for _, f := range nonNegative {
		if !(f.v >= 0) || !finite(f.v) {
			return fmt.Errorf("%s must be non-negative and finite, got %v", f.name, f.v)
		}
	}
	return nil
}

// Names of what New registers with the world.
const (
	BodyComponent    = "physics.body"
	ContactsResource = "physics.contacts"
)

// Space simulates the bodies of one engine.World. Everything it
// simulates lives in the world: the Body component of each entity, the
// entity's position, rotation, velocity and angular velocity (the world's
// Bodies: Pos, Rot, Vel and AngVel, angular velocity in rad/s about the
// world axes; a compound's Vel is its centre of mass's velocity) and the
// contact cache (the Contacts resource). Step is a pure function of that
// state: the Space itself holds only its configuration, scratch buffers
// and the assets added to it (meshes, compounds: the same on every peer),
// so a snapshot, a rollback or a replay of the world needs nothing from
// it, and a new Space on a restored world, given the same assets,
// continues with the same bits.
//
// Bodies are root entities: the Space reads and writes Pos and Rot as
// world coordinates, so a body given a parent (World.SetParent) moves
// with its parent's frame mixed into its own; do not parent bodies.
// Move a body instantly with Teleport, and set its velocity with
// SetVelocity: both wake it. (Changing the world's Pos, Rot, Vel or
// AngVel directly works too, but a sleeping body then needs WakeUp.)
//
// Like the World, a Space is not safe for concurrent use.
type Space struct {
	w        *engine.World
	cfg      Config
	bodies   *engine.Component[Body]
	joints   *engine.Component[Joint]
	chars    *engine.Component[Character]
	contacts *engine.Resource[Contacts]
	broken   []engine.Entity // the joints that broke in the last Step

	stats  Stats
	events []ContactEvent
	sleeps []SleepEvent
	sc     scratch
	bp     broadphase

	// meshes are the triangle meshes added with AddMesh: MeshID i is
	// meshes[i-1]. They are assets, like models, not simulated state.
	meshes []*TriangleMesh
	mq     meshQuery // collideMesh's and the queries' scratch

	// compounds are the compounds added with AddCompound: CompoundID i
	// is compounds[i-1]. Assets too, like meshes.
	compounds []*compound

	// hook is the contact hook (SetContactHook), nil when none.
	hook func(*ContactSettings)

	// hulls and heights are the convex hulls (AddConvexHull) and height
	// fields (AddHeightField): HullID i is hulls[i-1]. Assets too.
	hulls   []*Hull
	heights []*HeightGrid

	// qlog is the query log (SetQueryLog), off by default.
	qlog queryLog
}

// Stats are figures about the last Step, and a count kept since the
// Space was made. They are diagnostics, not simulated state.
type Stats struct {
	Bodies      int // bodies in the world
	Awake       int // awake dynamic and kinematic bodies
	Pairs       int // pairs the broad phase found
	Manifolds   int // manifolds in the cache after the step
	Constraints int // contact constraints solved
	Islands     int // islands of awake touching dynamic bodies
	Points      int // contact points computed by the narrow phase
	WarmPoints  int // of those, the points that started from last step's impulses
	// PairsDropped is how many overlapping pairs (at least) the broad
	// phase left out of the last step because there were more than
	// DefaultMaxPairs: bodies piled in one spot by the thousand. The pairs
	// kept are the first in slot order, so the step stays bounded and
	// deterministic; 0 in any sane scene.
	PairsDropped int
	// Resets counts, since New, the bodies whose state became non-finite
	// (NaN or infinite) in a step and that were put back where they were
	// at the start of that step, at rest.
	Resets uint64
}

// New makes a Space for w with cfg, registering the Body component
// ("physics.body"), the Joint component ("physics.joint"), the Character
// component ("physics.character") and the Contacts resource
// ("physics.contacts") with w.
// Call it before w's first tick, at the same point in every run (the
// world's schema is in every snapshot).
func New(w *engine.World, cfg Config) (*Space, error) {
	if w == nil {
		return nil, errors.New("physics: New: the world is nil")
	}
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("physics: New: %w", err)
	}
	for _, e := range w.Schema() {
		if e.Name == BodyComponent || e.Name == ContactsResource || e.Name == JointComponent || e.Name == CharacterComponent {
			return nil, fmt.Errorf("physics: New: the world already has a %s named %q (one Space per world)", e.Kind, e.Name)
		}
	}
	s := &Space{w: w, cfg: cfg}
	s.bodies = engine.NewComponent[Body](w, BodyComponent)
	s.joints = engine.NewComponent[Joint](w, JointComponent)
	s.chars = engine.NewComponent[Character](w, CharacterComponent)
	s.contacts = engine.NewResource(w, ContactsResource, Contacts{})
	return s, nil
}

// Attach makes a Space for e's world (New) and adds its Step to e's
// Physics stage as the system "physics". When cfg.TickRate is 0 it takes
// the engine's tick rate; another rate than the engine's is an error.
// Systems of the Collision stage read the step's events with Events.
func Attach(e *engine.Engine, cfg Config) (*Space, error) {
	if e == nil {
		return nil, errors.New("physics: Attach: the engine is nil")
	}
	rate := e.TickRate()
	if cfg.TickRate == 0 {
		cfg.TickRate = rate
	}
	if cfg.TickRate != rate {
		return nil, fmt.Errorf("physics: Attach: the config's tick rate is %d Hz, the engine's %d Hz", cfg.TickRate, rate)
	}
	s, err := New(e.World, cfg)
	if err != nil {
		return nil, err
	}
	if err := e.AddSystem(engine.StagePhysics, "physics", func(*engine.FixedContext) { s.Step() }); err != nil {
		return nil, fmt.Errorf("physics: Attach: %w", err)
	}
	return s, nil
}

// Config returns the Space's configuration.
func (s *Space) Config() Config { return s.cfg }

// World returns the Space's world.
func (s *Space) World() *engine.World { return s.w }

// Stats returns figures about the last Step.
func (s *Space) Stats() Stats { return s.stats }

// Contacts returns the contact cache resource.
func (s *Space) Contacts() *engine.Resource[Contacts] { return s.contacts }

// Bodies returns the Body component, for systems that read many bodies.
// Change bodies through the Space's methods.
func (s *Space) Bodies() *engine.Component[Body] { return s.bodies }

// AddBody makes the live root entity e a body described by d, with the
// position, rotation, velocity and angular velocity e has in the world
// (static bodies are given zero velocities). It returns an error, and
// changes nothing, when e is not alive, already is a body, has a parent,
// or when d or e's state is out of range: an unknown kind or shape, a
// size or density that is not positive and finite, a NaN or infinite
// position, rotation or velocity, a rotation that is not a unit
// quaternion (within 1e-3; it is normalised).
func (s *Space) AddBody(e engine.Entity, d BodyDef) error {
	if !s.w.Alive(e) {
		return fmt.Errorf("physics: AddBody(%v): the entity is not alive", e)
	}
	if s.bodies.Has(e) {
		return fmt.Errorf("physics: AddBody(%v): the entity already is a body", e)
	}
	if _, ok := s.w.Parent(e); ok {
		return fmt.Errorf("physics: AddBody(%v): the entity has a parent; bodies are root entities", e)
	}
	if err := d.validate(); err != nil {
		return fmt.Errorf("physics: AddBody(%v): %w", e, err)
	}
	if err := s.checkAssets(d.Shape, d.Kind, d.Density); err != nil {
		return fmt.Errorf("physics: AddBody(%v): %w", e, err)
	}
	wb := s.w.Bodies()
	i := e.Index()
	pos, rot, vel, ang := toVec3(wb.Pos[i]), toQuat(wb.Rot[i]), toVec3(wb.Vel[i]), toVec3(wb.AngVel[i])
	switch {
	case !pos.finite():
		return fmt.Errorf("physics: AddBody(%v): the position %v is not finite", e, wb.Pos[i])
	case !rot.finite():
		return fmt.Errorf("physics: AddBody(%v): the rotation %v is not finite", e, wb.Rot[i])
	case abs(rot.lengthSq()-1) > 2e-3:
		return fmt.Errorf("physics: AddBody(%v): the rotation %v is not a unit quaternion", e, wb.Rot[i])
	case !vel.finite():
		return fmt.Errorf("physics: AddBody(%v): the velocity %v is not finite", e, wb.Vel[i])
	case !ang.finite():
		return fmt.Errorf("physics: AddBody(%v): the angular velocity %v is not finite", e, wb.AngVel[i])
	}
	if d.StartAsleep && (vel != vec3{} || ang != vec3{}) {
		return fmt.Errorf("physics: AddBody(%v): a body that starts asleep must be at rest, its velocities are %v and %v", e, wb.Vel[i], wb.AngVel[i])
	}
	wb.Rot[i] = fromQuat(rot.normalize())
	if d.Kind == Static {
		wb.Vel[i], wb.AngVel[i] = mgl32.Vec3{}, mgl32.Vec3{}
	}
	sh := s.bodyShape(d.Shape)
	s.bodies.Set(e, newBody(&d, &sh))
	return nil
}

// RemoveBody makes e an ordinary entity again and reports whether it was
// a body. Its contacts end in the next Step (with End events for those
// that touched). Despawning a body's entity does the same.
func (s *Space) RemoveBody(e engine.Entity) bool { return s.bodies.Remove(e) }

// Body returns a copy of e's Body component and whether e is a body.
func (s *Space) Body(e engine.Entity) (Body, bool) { return s.bodies.Get(e) }

// Asleep reports whether e is a sleeping body.
func (s *Space) Asleep(e engine.Entity) bool {
	b, ok := s.bodies.Get(e)
	return ok && b.Asleep
}

// dynamic returns e's Body when e is a dynamic body, or an error naming
// the call.
func (s *Space) dynamic(call string, e engine.Entity, v mgl32.Vec3) (*Body, error) {
	b := s.bodies.Ptr(e)
	switch {
	case b == nil:
		return nil, fmt.Errorf("physics: %s(%v): the entity is not a body", call, e)
	case b.Kind != Dynamic:
		return nil, fmt.Errorf("physics: %s(%v): the body is %v; only dynamic bodies take forces and impulses", call, e, b.Kind)
	case !finite(v[0]) || !finite(v[1]) || !finite(v[2]):
		return nil, fmt.Errorf("physics: %s(%v): %v is not finite", call, e, v)
	}
	return b, nil
}

// ApplyForce adds f (N, world frame, through the centre of mass) to e
// for the next Step, and wakes e. e must be a dynamic body and f finite.
// (A compound's centre of mass is not its entity's position:
// CenterOfMass; ApplyForceAt pushes at a point.)
func (s *Space) ApplyForce(e engine.Entity, f mgl32.Vec3) error {
	b, err := s.dynamic("ApplyForce", e, f)
	if err != nil {
		return err
	}
	b.Force = fromVec3(toVec3(b.Force).add(toVec3(f)))
	wake(b)
	return nil
}

// ApplyTorque adds t (N·m, world frame) to e for the next Step, and
// wakes e.
func (s *Space) ApplyTorque(e engine.Entity, t mgl32.Vec3) error {
	b, err := s.dynamic("ApplyTorque", e, t)
	if err != nil {
		return err
	}
	b.Torque = fromVec3(toVec3(b.Torque).add(toVec3(t)))
	wake(b)
	return nil
}

// ApplyImpulse changes e's velocity by j/mass at once (j in N·s, world
// frame, through the centre of mass; locked axes are left alone), and
// wakes e.
func (s *Space) ApplyImpulse(e engine.Entity, j mgl32.Vec3) error {
	b, err := s.dynamic("ApplyImpulse", e, j)
	if err != nil {
		return err
	}
	i := e.Index()
	wb := s.w.Bodies()
	dv := linearMask(b.Locks).mul(toVec3(j).scale(b.InvMass))
	wb.Vel[i] = fromVec3(toVec3(wb.Vel[i]).add(dv))
	wake(b)
	return nil
}

// ApplyAngularImpulse changes e's angular velocity by I⁻¹j at once (j in
// N·m·s, world frame; I about the centre of mass), and wakes e.
func (s *Space) ApplyAngularImpulse(e engine.Entity, j mgl32.Vec3) error {
	b, err := s.dynamic("ApplyAngularImpulse", e, j)
	if err != nil {
		return err
	}
	i := e.Index()
	wb := s.w.Bodies()
	sh := s.bodyShape(b.Shape)
	invI := worldInvInertia(inertiaFrame(&sh, toQuat(wb.Rot[i])), toVec3(b.InvInertia), b.Locks)
	wb.AngVel[i] = fromVec3(toVec3(wb.AngVel[i]).add(invI.mulVec(toVec3(j))))
	wake(b)
	return nil
}

// ApplyForceAt adds f (N, world frame) applied at the world point at to
// e for the next Step: f through the centre of mass and the torque
// (at - centre of mass) × f. It wakes e. e must be a dynamic body, f and
// at finite.
func (s *Space) ApplyForceAt(e engine.Entity, f, at mgl32.Vec3) error {
	b, err := s.dynamic("ApplyForceAt", e, f)
	if err != nil {
		return err
	}
	if !toVec3(at).finite() {
		return fmt.Errorf("physics: ApplyForceAt(%v): the point %v is not finite", e, at)
	}
	r := toVec3(at).sub(s.centreOfMass(e, b))
	b.Force = fromVec3(toVec3(b.Force).add(toVec3(f)))
	b.Torque = fromVec3(toVec3(b.Torque).add(r.cross(toVec3(f))))
	wake(b)
	return nil
}

// ApplyImpulseAt changes e's velocity at once by the impulse j (N·s,
// world frame) applied at the world point at: its linear velocity by
// j/mass, its angular velocity by I⁻¹((at - centre of mass) × j) (locked
// axes are left alone). It wakes e. e must be a dynamic body, j and at
// finite.
func (s *Space) ApplyImpulseAt(e engine.Entity, j, at mgl32.Vec3) error {
	b, err := s.dynamic("ApplyImpulseAt", e, j)
	if err != nil {
		return err
	}
	if !toVec3(at).finite() {
		return fmt.Errorf("physics: ApplyImpulseAt(%v): the point %v is not finite", e, at)
	}
	i := e.Index()
	wb := s.w.Bodies()
	jv := toVec3(j)
	r := toVec3(at).sub(s.centreOfMass(e, b))
	sh := s.bodyShape(b.Shape)
	invI := worldInvInertia(inertiaFrame(&sh, toQuat(wb.Rot[i])), toVec3(b.InvInertia), b.Locks)
	dv := linearMask(b.Locks).mul(jv.scale(b.InvMass))
	wb.Vel[i] = fromVec3(toVec3(wb.Vel[i]).add(dv))
	wb.AngVel[i] = fromVec3(toVec3(wb.AngVel[i]).add(invI.mulVec(r.cross(jv))))
	wake(b)
	return nil
}

// CenterOfMass returns the world position of e's centre of mass and
// whether e is a body: its entity's position, but for a compound, whose
// centre of mass is where its parts' masses balance.
func (s *Space) CenterOfMass(e engine.Entity) (mgl32.Vec3, bool) {
	b := s.bodies.Ptr(e)
	if b == nil {
		return mgl32.Vec3{}, false
	}
	return fromVec3(s.centreOfMass(e, b)), true
}

// centreOfMass returns the world centre of mass of the body b of e.
func (s *Space) centreOfMass(e engine.Entity, b *Body) vec3 {
	wb := s.w.Bodies()
	i := e.Index()
	sh := s.bodyShape(b.Shape)
	return centreOfMass(&sh, pose{toVec3(wb.Pos[i]), toQuat(wb.Rot[i])})
}

// WakeUp wakes e (and, in the next Step, everything e touches) and
// reports whether e is a body. Call it after moving a sleeping body or
// changing its velocity directly in the world.
func (s *Space) WakeUp(e engine.Entity) bool {
	b := s.bodies.Ptr(e)
	if b == nil {
		return false
	}
	if b.Kind == Dynamic {
		wake(b)
	}
	return true
}

func wake(b *Body) { b.Asleep, b.SleepTime = false, 0 }

// Teleport moves the body e to pos, turned by rot, at once, through
// World.Teleport (so it is drawn there, not moving there), and wakes it.
// rot is normalised. It refuses a non-finite pose and an entity that is
// not a body. pos is the entity's position (for a compound, the origin
// of its parts' frame, not its centre of mass); the velocities are left
// as they are.
func (s *Space) Teleport(e engine.Entity, pos mgl32.Vec3, rot mgl32.Quat) error {
	b := s.bodies.Ptr(e)
	if b == nil {
		return fmt.Errorf("physics: Teleport(%v): the entity is not a body", e)
	}
	p, q := toVec3(pos), toQuat(rot)
	if !p.finite() || !q.finite() || q.lengthSq() == 0 {
		return fmt.Errorf("physics: Teleport(%v): the pose %v %v is not finite and non-zero", e, pos, rot)
	}
	t := s.w.Transform(e)
	t.Pos, t.Rot = pos, fromQuat(q.normalize())
	s.w.Teleport(e, t)
	if b.Kind == Dynamic {
		wake(b)
	}
	return nil
}

// SetVelocity sets the linear (m/s) and angular (rad/s, world axes)
// velocity of the dynamic or kinematic body e and wakes it. Locked axes
// of a dynamic body stay still from the next step on. The linear velocity
// is the centre of mass's: a compound turns about its centre of mass (as
// the world's Vel of a compound is its centre of mass's velocity), every
// other body about its position.
func (s *Space) SetVelocity(e engine.Entity, linear, angular mgl32.Vec3) error {
	b := s.bodies.Ptr(e)
	switch {
	case b == nil:
		return fmt.Errorf("physics: SetVelocity(%v): the entity is not a body", e)
	case b.Kind == Static:
		return fmt.Errorf("physics: SetVelocity(%v): the body is static", e)
	case !toVec3(linear).finite() || !toVec3(angular).finite():
		return fmt.Errorf("physics: SetVelocity(%v): %v and %v must be finite", e, linear, angular)
	}
	s.w.SetDrawVelocity(e, linear, angular)
	if b.Kind == Dynamic {
		wake(b)
	}
	return nil
}

// Events returns the contact events of the last Step, sorted by their
// pair's slots (A's, then B's, A in the lower slot; an End before a Begin
// of the same slots). The slice is reused by the next Step.
func (s *Space) Events() []ContactEvent { return s.events }

// linearMask returns 1 on the axes l leaves free to move along, 0 on the
// locked ones.
func linearMask(l Locks) vec3 {
	m := vec3{1, 1, 1}
	if l&LockLinearX != 0 {
		m.x = 0
	}
	if l&LockLinearY != 0 {
		m.y = 0
	}
	if l&LockLinearZ != 0 {
		m.z = 0
	}
	return m
}

// angularMask is linearMask for turning.
func angularMask(l Locks) vec3 { return linearMask(l >> 3) }

// worldInvInertia returns R diag(invI) Rᵀ for a body turned by q, with the
// rows and columns of locked axes zeroed.
func worldInvInertia(q quat, invI vec3, l Locks) mat3 {
	r := q.rotation()
	// (R D) Rᵀ: row i of R D is row i of R scaled by invI per column.
	rd := mat3{r.r0.mul(invI), r.r1.mul(invI), r.r2.mul(invI)}
	m := mat3{
		vec3{rd.r0.dot(r.r0), rd.r0.dot(r.r1), rd.r0.dot(r.r2)},
		vec3{rd.r1.dot(r.r0), rd.r1.dot(r.r1), rd.r1.dot(r.r2)},
		vec3{rd.r2.dot(r.r0), rd.r2.dot(r.r1), rd.r2.dot(r.r2)},
	}
	if l&(LockAngularX|LockAngularY|LockAngularZ) != 0 {
		k := angularMask(l)
		m = mat3{m.r0.mul(k).scale(k.x), m.r1.mul(k).scale(k.y), m.r2.mul(k).scale(k.z)}
	}
	return m
}

// MaxMeshes is the most meshes a Space takes.
const MaxMeshes = 1 << 16

// AddMesh adds m to the Space and returns the MeshID a static body's
// Shape names it by (Shape{Kind: Mesh, Mesh: id}). Meshes are assets, like
// models, not simulated state: add the same meshes in the same order in
// every run, and to a new Space made for a restored world, before its
// first Step.
func (s *Space) AddMesh(m *TriangleMesh) (MeshID, error) {
	if m == nil || len(m.tris) == 0 {
		return 0, errors.New("physics: AddMesh: the mesh is nil or empty (make it with NewTriangleMesh)")
	}
	if len(s.meshes) >= MaxMeshes {
		return 0, fmt.Errorf("physics: AddMesh: a Space holds at most %d meshes", MaxMeshes)
	}
	s.meshes = append(s.meshes, m)
	return MeshID(len(s.meshes)), nil
}

// checkAssets checks that the mesh, compound, hull or height field sh
// names was added to the Space, and that a dynamic body of kind k made
// of it at density has a positive, finite mass and inertia.
//
//srccheck:wrapped by AddBody, SetShape and SetKind, as "physics: Call(<entity>): ..."
func (s *Space) checkAssets(sh Shape, k Kind, density float32) error {
	switch {
	case sh.Kind == Mesh && int(sh.Mesh) > len(s.meshes):
		return fmt.Errorf("mesh %d was not added to the Space (it has %d; Space.AddMesh)", sh.Mesh, len(s.meshes))
	case sh.Kind == Compound && int(sh.Compound) > len(s.compounds):
		return fmt.Errorf("compound %d was not added to the Space (it has %d; Space.AddCompound)", sh.Compound, len(s.compounds))
	case sh.Kind == ConvexHull && int(sh.Hull) > len(s.hulls):
		return fmt.Errorf("hull %d was not added to the Space (it has %d; Space.AddConvexHull)", sh.Hull, len(s.hulls))
	case sh.Kind == HeightField && int(sh.HeightField) > len(s.heights):
		return fmt.Errorf("height field %d was not added to the Space (it has %d; Space.AddHeightField)", sh.HeightField, len(s.heights))
	}
	if k != Dynamic || sh.Kind != Compound && sh.Kind != ConvexHull {
		return nil
	}
	bs := s.bodyShape(sh)
	var m float32
	var in vec3
	if bs.comp != nil {
		m, in = float32(bs.comp.volume*density), bs.comp.moments.scale(density)
	} else {
		m, in = bs.massProperties(density)
	}
	if !finite(m) || !in.finite() || !(m > 0) || !(in.x > 0 && in.y > 0 && in.z > 0) {
		return fmt.Errorf("the %v's mass %v or moments of inertia %v at density %v are not positive and finite", sh.Kind, m, in, density)
	}
	return nil
}
