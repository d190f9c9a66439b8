package replay

import (
	"bytes"
	"errors"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/geom"
	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/engine/rollback"
)

// stageLate is stagedGame's own stage, after engine.StageAI.
const stageLate engine.Stage = "late"

// stagedGame is a small game with systems in five built-in stages and one
// of its own. Every system folds its name into the "order" resource, so
// that the state hash depends on the order the systems ran in; swapped
// runs the integration in the AI stage instead of the physics stage.
func stagedGame(t testing.TB, swapped bool) *engine.Engine {
	t.Helper()
	e, err := engine.New(engine.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	w := e.World
	rng := w.RNG()
	for range 20 {
		id := w.Spawn(geom.NewTransform(mgl32.Vec3{rng.Range(-5, 5), rng.Range(-5, 5), 0}), engine.Interpolate)
		w.SetDrawVelocity(id, mgl32.Vec3{rng.Range(-1, 1), rng.Range(-1, 1), 0}, mgl32.Vec3{})
	}
	intent := engine.NewResource[int32](w, "intent", 0)
	order := engine.NewResource[uint64](w, "order", 0)
	score := engine.NewResource[uint32](w, "score", 0)
	add := func(s engine.Stage, name string, run func(c *engine.FixedContext)) {
		t.Helper()
		err := e.AddSystem(s, name, func(c *engine.FixedContext) {
			for _, b := range []byte(string(c.Stage) + "/" + name) {
				*order.Ptr() = *order.Ptr()*31 + uint64(b)
			}
			run(c)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := e.AddStage(stageLate, engine.After(engine.StageAI)); err != nil {
		t.Fatal(err)
	}
	add(stageLate, "tally", func(c *engine.FixedContext) { *score.Ptr() += uint32(c.Tick % 3) })
	add(engine.StageInput, "intent", func(c *engine.FixedContext) {
		var x int32
		if c.Input.Down(input.KeyArrowRight) {
			x++
		}
		if c.Input.Down(input.KeyArrowLeft) {
			x--
		}
		intent.Set(x)
	})
	add(engine.StageScripts, "steer", func(c *engine.FixedContext) {
		p, _ := c.World.EntityAt(0)
		_, ang := c.World.DrawVelocity(p)
		c.World.SetDrawVelocity(p, mgl32.Vec3{float32(3 * intent.Get()), 0, 0}, ang)
	})
	integrate := func(c *engine.FixedContext) {
		b := c.World.Bodies()
		for i := range c.World.Slots() {
			for a := range 2 {
				b.Pos[i][a] = float32(b.Vel[i][a]*c.DT) + b.Pos[i][a]
			}
		}
	}
	if swapped {
		add(engine.StageAI, "integrate", integrate)
	} else {
		add(engine.StagePhysics, "integrate", integrate)
	}
	add(engine.StageCollision, "walls", func(c *engine.FixedContext) {
		b := c.World.Bodies()
		for i := range c.World.Slots() {
			for a := range 2 {
				if b.Pos[i][a] > 6 || b.Pos[i][a] < -6 {
					b.Vel[i][a] = -b.Vel[i][a]
					*score.Ptr() += 10
				}
			}
		}
	})
	add(engine.StageAI, "wander", func(c *engine.FixedContext) {
		if c.Tick%20 != 0 {
			return
		}
		r := c.World.RNG()
		id, _ := c.World.EntityAt(1 + r.Intn(19))
		c.World.SetDrawVelocity(id, mgl32.Vec3{r.Range(-2, 2), r.Range(-2, 2), 0}, mgl32.Vec3{})
	})
	add(engine.StageTransforms, "after-propagate", func(*engine.FixedContext) {})
	return e
}

// A recorded run with systems in several stages, its own included, replays
// to the same hashes, and so does the sync test, which simulates every
// tick again from earlier states: every way of running a tick runs the
// same stages. The same systems in other stages give another hash, which
// the replay catches.
func TestStagesReplayAndSyncTest(t *testing.T) {
	const ticks = 300
	e := stagedGame(t, false)
	e.SetInputScript(script)
	var buf bytes.Buffer
	h := testHeader(1, 20)
	h.Schema = e.World.Schema()
	rec, err := NewRecorder(&buf, h)
	if err != nil {
		t.Fatal(err)
	}
	addHook(t, e, rec)
	if _, err := engine.RunHeadless(e, engine.HeadlessConfig{DisplayHz: 144, Jitter: 0.5, JitterSeed: 3, Ticks: ticks}); err != nil {
		t.Fatal(err)
	}
	hash := e.World.Hash()
	if err := rec.Close(hash); err != nil {
		t.Fatal(err)
	}
	r, err := Open(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}

	replayed := stagedGame(t, false)
	res, err := Verify(replayed, r)
	if err != nil {
		t.Fatal(err)
	}
	if res.Ticks != ticks || res.Hashes != 6 || replayed.World.Hash() != hash {
		t.Errorf("replay: %d ticks, %d hashes, hash %016x; want %d, 6 and %016x", res.Ticks, res.Hashes, replayed.World.Hash(), ticks, hash)
	}

	synced := stagedGame(t, false)
	synced.SetInputScript(script)
	if err := rollback.SyncTest(synced, rollback.SyncTestConfig{Ticks: ticks, Depth: 8}); err != nil {
		t.Fatal(err)
	}
	if synced.World.Hash() != hash {
		t.Errorf("sync test: hash %016x, want the recorded run's %016x", synced.World.Hash(), hash)
	}

	swapped := stagedGame(t, true)
	_, err = Verify(swapped, r)
	var div *DivergenceError
	if !errors.As(err, &div) {
		t.Errorf("replaying on the game with integrate in the AI stage: %v, want a *DivergenceError", err)
	}
}
