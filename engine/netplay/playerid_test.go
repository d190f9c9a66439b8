package netplay

import (
	"testing"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/netplay/wire"
)

// The wire's player numbers are the engine's: the same limit, and no
// player of the engine is the wire's spectator mark.
func TestWirePlayerIDsAreTheEngines(t *testing.T) {
	if wire.MaxPlayers != engine.MaxPlayers {
		t.Errorf("wire.MaxPlayers = %d, engine.MaxPlayers = %d: they must agree", wire.MaxPlayers, engine.MaxPlayers)
	}
	if int(wire.NoPlayer) < engine.MaxPlayers {
		t.Errorf("wire.NoPlayer = %d is an engine player ID (below %d)", wire.NoPlayer, engine.MaxPlayers)
	}
}
