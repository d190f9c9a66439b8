package scene

import (
	"encoding/binary"
	"fmt"
)

// MaxEntities is the largest number of bouncing cubes Params may carry.
const MaxEntities = 1_000_000

// ParamsVersion is the version of the encoding MarshalBinary writes, its
// first byte; ParamsSize is the length of that encoding.
const (
	ParamsVersion = 1
	ParamsSize    = 1 + 8 + 4 + 8 // version, Seed, Entities, PanicAtTick
)

// Params are the scene's parameters: what a multiplayer server tells its
// clients (wire.Welcome.Params) so that each builds the identical scene.
// The tick rate travels separately.
type Params struct {
	// Seed seeds the world's RNG (engine.Config.Seed).
	Seed uint64
	// Entities is the number of bouncing cubes (Setup's cubes), 0 to
	// MaxEntities.
	Entities int
	// PanicAtTick makes the CrashSystem panic at that tick (0 = never):
	// Scene.PanicAt.
	PanicAtTick uint64
}

// checkEntities returns an error when n is not a valid Params.Entities.
func checkEntities(n int64) error {
	if n < 0 || n > MaxEntities {
		return fmt.Errorf("scene params: entities %d out of range, want 0 to %d", n, MaxEntities)
	}
	return nil
}

// MarshalBinary encodes p in ParamsSize bytes: the version byte
// (ParamsVersion), then Seed (uint64), Entities (uint32) and PanicAtTick
// (uint64), little-endian. It returns an error when Entities is out of
// range.
func (p Params) MarshalBinary() ([]byte, error) {
	if err := checkEntities(int64(p.Entities)); err != nil {
		return nil, err
	}
	b := make([]byte, 0, ParamsSize)
	b = append(b, ParamsVersion)
	b = binary.LittleEndian.AppendUint64(b, p.Seed)
	b = binary.LittleEndian.AppendUint32(b, uint32(p.Entities))
	b = binary.LittleEndian.AppendUint64(b, p.PanicAtTick)
	return b, nil
}

// ParseParams decodes what MarshalBinary wrote. It returns an error, naming
// what is wrong and what is accepted, when b has another length than
// ParamsSize, another version than ParamsVersion, or entities out of
// range.
func ParseParams(b []byte) (Params, error) {
	if len(b) == 0 {
		return Params{}, fmt.Errorf("scene params: 0 bytes, want %d (version %d)", ParamsSize, ParamsVersion)
	}
	if v := b[0]; v != ParamsVersion {
		return Params{}, fmt.Errorf("scene params: version %d, want %d (the server runs another build of the scene)", v, ParamsVersion)
	}
	if len(b) != ParamsSize {
		return Params{}, fmt.Errorf("scene params: %d bytes, want %d (version %d)", len(b), ParamsSize, ParamsVersion)
	}
	n := binary.LittleEndian.Uint32(b[9:])
	if err := checkEntities(int64(n)); err != nil {
		return Params{}, err
	}
	return Params{
		Seed:        binary.LittleEndian.Uint64(b[1:]),
		Entities:    int(n),
		PanicAtTick: binary.LittleEndian.Uint64(b[13:]),
	}, nil
}
