package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/geom"
	"github.com/nebulaengine/nebula/engine/physics"
	"github.com/nebulaengine/nebula/engine/physics/scene"
	"github.com/nebulaengine/nebula/timing"
)

// name is the program's name, at the start of its messages.
const name = "nebula-physics"

// Exit statuses.
const (
	exitOK      = 0
	exitFailure = 1 // the result could not be written
	exitUsage   = 2 // a bad command line or scene
)

// noCap is the speed limit the runner gives the Space: the scene format
// has no velocity caps, and the square of this is still a finite float32.
const noCap = 1e18

// run runs the command line args, writing the result on stdout and
// messages on stderr, and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	args, profile, err := cutProfile(args)
	if err != nil {
		return fail(stderr, exitUsage, err)
	}
	a, err := scene.ParseArgs(args)
	if errors.Is(err, scene.ErrHelp) {
		fmt.Fprintf(stdout, "usage: %s SCENE.json [--trace ID[,ID...]|all] [--every K] [--cpuprofile FILE]\n", name)
		return exitOK
	}
	if err != nil {
		return fail(stderr, exitUsage, err)
	}
	sc, err := scene.ReadFile(a.Scene)
	if err != nil {
		return fail(stderr, exitUsage, err)
	}
	if sc.JointsIgnored {
		fmt.Fprintf(stderr, "%s: %s: \"joints\" ignored (not part of %s)\n", name, a.Scene, scene.Format)
	}
	traced, err := sc.TraceBodies(a)
	if err != nil {
		return fail(stderr, exitUsage, err)
	}
	rate, err := tickRate(sc.Hz)
	if err != nil {
		return fail(stderr, exitUsage, fmt.Errorf("%s: %w", a.Scene, err))
	}

	start := time.Now()
	sim, err := build(sc, rate)
	initTime := time.Since(start)
	if err != nil {
		return fail(stderr, exitUsage, fmt.Errorf("%s: %w", a.Scene, err))
	}

	var prof *os.File
	if profile != "" {
		if prof, err = os.Create(profile); err != nil {
			return fail(stderr, exitFailure, fmt.Errorf("--cpuprofile: %w", err))
		}
		defer prof.Close()
	}
	times, trace, err := sim.run(sc.Steps, traced, a.Every, prof)
	if err != nil {
		return fail(stderr, exitFailure, fmt.Errorf("--cpuprofile: %w", err))
	}

	res := scene.Result{
		Engine: name + " " + version(),
		Scene:  sc.Name,
		Steps:  sc.Steps,
		Hz:     sc.Hz,
		StepMS: scene.Summarize(times),
		InitMS: scene.Millis(initTime),
		Hash:   scene.Hash(sim.engine.Snapshot()),
		Config: sim.settings(),
		Trace:  trace,
	}
	dynamic := sc.Dynamic()
	res.Bodies = make([]scene.Record, len(dynamic))
	for i, b := range dynamic {
		res.Bodies[i] = sim.record(b)
	}
	sim.jointResult(&res)
	if _, err := res.WriteTo(stdout); err != nil {
		return fail(stderr, exitFailure, fmt.Errorf("writing the result: %w", err))
	}
	return exitOK
}

// cutProfile takes "--cpuprofile FILE" (the runner's own option, beside
// the format's) out of args.
func cutProfile(args []string) (rest []string, profile string, err error) {
	for i := 0; i < len(args); i++ {
		switch {
		case args[i] != "--cpuprofile":
			rest = append(rest, args[i])
		case i+1 >= len(args):
			return nil, "", errors.New("--cpuprofile needs a file name")
		default:
			i++
			profile = args[i]
		}
	}
	return rest, profile, nil
}

// fail writes err on stderr as one line and returns status.
func fail(stderr io.Writer, status int, err error) int {
	msg := strings.TrimPrefix(err.Error(), "scene: ")
	fmt.Fprintf(stderr, "%s: %s\n", name, strings.ReplaceAll(msg, "\n", " "))
	return status
}

// tickRate returns hz as the engine's integer tick rate, or an error when
// the scene's rate is not a whole number the fixed-step loop accepts.
func tickRate(hz float64) (int, error) {
	if hz != math.Trunc(hz) || hz < timing.MinTickRate || hz > timing.MaxTickRate {
		return 0, fmt.Errorf("hz is %v; %s steps at a whole number of ticks per second, from %d to %d",
			hz, name, timing.MinTickRate, timing.MaxTickRate)
	}
	return int(hz), nil
}

// sim is a scene built on Nebula: an engine (for its world and
// snapshot), a Space, the entity of each of the scene's bodies, and the
// scene's joints with what is measured of them while it runs.
type sim struct {
	engine   *engine.Engine
	space    *physics.Space
	entities []engine.Entity
	ids      []string
	joints   []scene.Joint
	// jointRecords are the joints' records after the last step sampled,
	// tracker their errors' peaks over the steps.
	jointRecords []scene.JointRecord
	tracker      scene.JointTracker
	// cpuPerStep is the process's CPU time over the steps (tracing
	// included, the joints' sampling not) divided by their number; 0 when
	// unknown.
	cpuPerStep time.Duration
	// allocs is the number of heap allocations during the steps (tracing
	// included).
	allocs uint64
}

// build makes the engine and the Space for sc, at rate ticks per second,
// and adds the bodies in file order, then the joints in file order.
func build(sc *scene.Scene, rate int) (*sim, error) {
	ecfg := engine.DefaultConfig()
	ecfg.Loop.TickRate = rate
	eng, err := engine.New(ecfg)
	if err != nil {
		return nil, err
	}
	pcfg := physics.DefaultConfig()
	pcfg.Gravity = vec3(sc.Gravity)
	pcfg.TickRate = rate
	pcfg.MaxLinearSpeed, pcfg.MaxAngularSpeed = noCap, noCap
	space, err := physics.New(eng.World, pcfg)
	if err != nil {
		return nil, err
	}
	s := &sim{engine: eng, space: space, entities: make([]engine.Entity, len(sc.Bodies)), ids: make([]string, len(sc.Bodies))}
	w := eng.World
	for i := range sc.Bodies {
		b := &sc.Bodies[i]
		q := b.Rotation
		e := w.Spawn(geom.Transform{
			Pos:   vec3(b.Position),
			Rot:   mgl32.Quat{W: float32(q[3]), V: mgl32.Vec3{float32(q[0]), float32(q[1]), float32(q[2])}},
			Scale: mgl32.Vec3{1, 1, 1},
		}, engine.Interpolate)
		if b.Kind != scene.Static {
			w.SetDrawVelocity(e, vec3(b.LinearVelocity), vec3(b.AngularVelocity))
		}
		def := physics.NewBodyDef(kind(b.Kind), shape(b.Shape))
		def.Density = float32(b.Density)
		def.Friction = float32(b.Friction)
		def.Restitution = float32(b.Restitution)
		def.CCD = b.CCD
		if err := space.AddBody(e, def); err != nil {
			return nil, fmt.Errorf("bodies[%d] (id %q): %w", i, b.ID, err)
		}
		s.entities[i], s.ids[i] = e, b.ID
	}
	if err := s.addJoints(sc); err != nil {
		return nil, err
	}
	return s, nil
}

// run advances the world steps times, timing each Space.Step call alone,
// and traces the bodies traced (indices into the scene's bodies) before
// the first step and after every every-th. After every step, outside its
// timing, it measures the joints for the peaks of their errors, and
// leaves the CPU time that takes out of cpuPerStep. With a profile file
// it profiles the steps' CPU use into it.
func (s *sim) run(steps int, traced []int, every int, profile *os.File) ([]time.Duration, []scene.TraceEntry, error) {
	var trace []scene.TraceEntry
	if len(traced) > 0 {
		trace = make([]scene.TraceEntry, 0, min(len(traced)*(steps/every+1), 1<<20))
		trace = s.sample(trace, traced, 0)
	}
	times := make([]time.Duration, steps)
	// The garbage of reading the file is collected now, not during a
	// timed step.
	runtime.GC()
	if profile != nil {
		if err := pprof.StartCPUProfile(profile); err != nil {
			return nil, nil, err
		}
	}
	var mem runtime.MemStats
	runtime.ReadMemStats(&mem)
	mallocs := mem.Mallocs
	cpu0, cpuOK := cpuTime()
	var jointCPU time.Duration
	for k := 1; k <= steps; k++ {
		t0 := time.Now()
		s.space.Step()
		times[k-1] = time.Since(t0)
		if len(traced) > 0 && k%every == 0 {
			trace = s.sample(trace, traced, k)
		}
		if len(s.joints) > 0 {
			j0, _ := cpuTime()
			s.sampleJoints()
			j1, _ := cpuTime()
			jointCPU += j1 - j0
		}
	}
	if cpu1, ok := cpuTime(); cpuOK && ok && steps > 0 {
		s.cpuPerStep = max(cpu1-cpu0-jointCPU, 0) / time.Duration(steps)
	}
	runtime.ReadMemStats(&mem)
	s.allocs = mem.Mallocs - mallocs
	if profile != nil {
		pprof.StopCPUProfile()
		if err := profile.Close(); err != nil {
			return nil, nil, err
		}
	}
	return times, trace, nil
}

// record returns the state of the scene's body i.
func (s *sim) record(i int) scene.Record {
	e := s.entities[i]
	wb := s.engine.World.Bodies()
	k := e.Index()
	p, q, v, w := wb.Pos[k], wb.Rot[k], wb.Vel[k], wb.AngVel[k]
	return scene.Record{
		ID:              s.ids[i],
		Position:        p,
		Rotation:        [4]float32{q.V[0], q.V[1], q.V[2], q.W},
		LinearVelocity:  v,
		AngularVelocity: w,
		Sleeping:        s.space.Asleep(e),
	}
}

// sample appends the state of the bodies traced after step.
func (s *sim) sample(trace []scene.TraceEntry, traced []int, step int) []scene.TraceEntry {
	for _, i := range traced {
		trace = append(trace, scene.TraceEntry{Step: step, Record: s.record(i)})
	}
	return trace
}

// vec3 rounds a scene's vector to float32, each component to the nearest.
func vec3(v [3]float64) mgl32.Vec3 {
	return mgl32.Vec3{float32(v[0]), float32(v[1]), float32(v[2])}
}

// kind returns the physics kind of a scene's body kind.
func kind(k scene.Kind) physics.Kind {
	switch k {
	case scene.Static:
		return physics.Static
	case scene.Kinematic:
		return physics.Kinematic
	}
	return physics.Dynamic
}

// shape returns the physics shape of a scene's shape, rounded to float32.
func shape(s scene.Shape) physics.Shape {
	switch s.Type {
	case scene.Box:
		return physics.Shape{Kind: physics.Box, HalfExtents: vec3(s.HalfExtents)}
	case scene.Capsule:
		return physics.Shape{Kind: physics.Capsule, Radius: float32(s.Radius), HalfHeight: float32(s.HalfHeight)}
	}
	return physics.Shape{Kind: physics.Sphere, Radius: float32(s.Radius)}
}

// settings lists the Space's configuration for the result's config, and
// figures of the run beside step_ms: the CPU time of a step (which a busy
// machine does not inflate as it does wall-clock times), when known, and
// the heap allocations made while stepping.
func (s *sim) settings() []scene.Setting {
	c := s.space.Config()
	out := []scene.Setting{
		{Name: "substeps", Value: c.Substeps},
		{Name: "speculative_distance", Value: c.SpeculativeDistance},
		{Name: "contact_hertz", Value: c.ContactHertz},
		{Name: "contact_damping_ratio", Value: c.ContactDampingRatio},
		{Name: "max_push_out", Value: c.MaxPushOut},
		{Name: "joint_hertz", Value: c.JointHertz},
		{Name: "joint_damping_ratio", Value: c.JointDampingRatio},
		{Name: "restitution_threshold", Value: c.RestitutionThreshold},
		{Name: "sleep_linear_speed", Value: c.SleepLinearSpeed},
		{Name: "sleep_angular_speed", Value: c.SleepAngularSpeed},
		{Name: "time_to_sleep", Value: c.TimeToSleep},
		{Name: "sleeping", Value: !c.NoSleep},
		{Name: "velocity_caps", Value: "none"},
		{Name: "combine", Value: "average (friction and restitution)"},
		{Name: "threads", Value: 1},
	}
	if s.cpuPerStep > 0 {
		out = append(out, scene.Setting{Name: "cpu_ms_per_step", Value: scene.Millis(s.cpuPerStep)})
	}
	return append(out, scene.Setting{Name: "allocs_while_stepping", Value: int64(s.allocs)})
}

// version returns the program's module version, or "devel" and the
// commit it was built from ("devel+1a2b3c4d5e6f", "-dirty" when the
// checkout had changes).
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	v := info.Main.Version
	if v == "" || v == "(devel)" {
		v = "devel"
	}
	var rev string
	dirty := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if v == "devel" && rev != "" {
		v += "+" + rev[:min(12, len(rev))]
		if dirty {
			v += "-dirty"
		}
	}
	return v
}
