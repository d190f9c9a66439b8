package netplay

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/nebulaengine/nebula/engine"
)

// serverHook is the server's tick hook: each tick's players are those of
// the tick being confirmed. A recorder of the match is another of the
// engine's hooks.
type serverHook struct{ s *Server }

func (h *serverHook) OwnsPlayers() bool { return true }

func (h *serverHook) PreTick() {}

func (h *serverHook) BeginTick(t *engine.TickInfo) {
	if err := applyTick(t.Players, &h.s.m.ct); err != nil {
		panic(fmt.Sprintf("netplay: server: tick %d: %v", t.Tick, err)) // the server's own bookkeeping is wrong
	}
}

func (h *serverHook) JobApplied(uint64, engine.JobID, []byte) {}

func (h *serverHook) EndTick(tick uint64, w *engine.World) {
	if tick%HashEvery == 0 {
		h.s.m.saveHash(tick, w.Hash())
	}
}

// writeDump writes the world's state as saved in st to path, restoring
// the engine's state afterwards.
func writeDump(e *engine.Engine, st *engine.State, path string) error {
	var now engine.State
	e.SaveState(&now)
	e.LoadState(st)
	defer e.LoadState(&now)
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("netplay: dump: %w", err)
	}
	if err := e.World.WriteDump(f); err != nil {
		f.Close()
		return fmt.Errorf("netplay: dump: cannot write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("netplay: dump: %w", err)
	}
	return nil
}

// dumpPath is the file a peer writes its dump of tick to.
func dumpPath(dir string, tick uint64, who string) string {
	return filepath.Join(dir, fmt.Sprintf("desync-%d-%s.dump", tick, who))
}
