package physics

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

// peerScenesDir, when set, is where TestPeerSceneFiles writes the peer
// scenes as nebula-scene/1 files, to run them on the reference engines
// (Rapier, Jolt) and on cmd/nebula-physics:
//
//	go test ./engine/physics -run TestPeerSceneFiles -args -peer-scenes /tmp/scenes
var peerScenesDir = flag.String("peer-scenes", "", "write the Box2D/Box3D peer scenes as nebula-scene/1 files into this folder")

// peerSceneFile is a nebula-scene/1 file (the shared scene format).
type peerSceneFile struct {
	Format      string          `json:"format"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Hz          int             `json:"hz"`
	Steps       int             `json:"steps"`
	Gravity     [3]float64      `json:"gravity"`
	Bodies      []peerSceneBody `json:"bodies"`
}

// peerSceneBody is a body of a peerSceneFile.
type peerSceneBody struct {
	ID       string         `json:"id"`
	Kind     string         `json:"kind"`
	Shape    peerSceneShape `json:"shape"`
	Position [3]float64     `json:"position"`
	Rotation [4]float64     `json:"rotation"`
	Vel      [3]float64     `json:"linear_velocity"`
	Ang      [3]float64     `json:"angular_velocity"`
	Density  float64        `json:"density,omitempty"`
	Friction float64        `json:"friction"`
}

// peerSceneShape is a box shape of a peerSceneBody.
type peerSceneShape struct {
	Type        string     `json:"type"`
	HalfExtents [3]float64 `json:"half_extents"`
}

// file returns sc as a nebula-scene/1 file: the float32 values widened to
// float64, so a runner that reads them back into float32 gets the same
// bits as the Space the tests build.
func (sc *peerScene) file() peerSceneFile {
	cfg := DefaultConfig()
	f := peerSceneFile{
		Format: "nebula-scene/1", Name: sc.name, Description: sc.description,
		Hz: cfg.TickRate, Steps: sc.steps, Gravity: peerVec64(cfg.Gravity),
	}
	for _, b := range sc.bodies {
		sb := peerSceneBody{
			ID: b.id, Kind: b.kind.String(),
			Shape:    peerSceneShape{Type: "box", HalfExtents: peerVec64(b.half)},
			Position: peerVec64(b.pos),
			Rotation: [4]float64{float64(b.rot.V[0]), float64(b.rot.V[1]), float64(b.rot.V[2]), float64(b.rot.W)},
			Vel:      peerVec64(b.vel), Ang: peerVec64(b.ang),
			Friction: float64(b.friction),
		}
		if b.kind == Dynamic {
			sb.Density = float64(b.density)
		}
		f.Bodies = append(f.Bodies, sb)
	}
	return f
}

func peerVec64(v mgl32.Vec3) [3]float64 {
	return [3]float64{float64(v[0]), float64(v[1]), float64(v[2])}
}

// TestPeerSceneFiles: every box-only peer scene makes a nebula-scene/1
// file that reads back to the same bodies (ids unique, kinds and values
// as built); with -peer-scenes DIR it writes them there. (The tumbler is
// a kinematic compound turning about a point: the format has neither.)
func TestPeerSceneFiles(t *testing.T) {
	scenes := []peerScene{peerLargePyramid(20), peerLargePyramid(100), peerCardHouse(), peerBoxStack(40), peerFallingBoxes(), peerJengaStack(), peerDominoes(2)}
	for _, sc := range scenes {
		data, err := json.Marshal(sc.file())
		if err != nil {
			t.Fatal(err)
		}
		var back peerSceneFile
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatalf("%s: %v", sc.name, err)
		}
		if len(back.Bodies) != len(sc.bodies) {
			t.Fatalf("%s: %d bodies in the file, %d in the scene", sc.name, len(back.Bodies), len(sc.bodies))
		}
		ids := map[string]bool{}
		for i, b := range back.Bodies {
			want := sc.bodies[i]
			if ids[b.ID] {
				t.Errorf("%s: duplicate id %q", sc.name, b.ID)
			}
			ids[b.ID] = true
			p := mgl32.Vec3{float32(b.Position[0]), float32(b.Position[1]), float32(b.Position[2])}
			if b.Kind != want.kind.String() || p != want.pos || float32(b.Rotation[3]) != want.rot.W {
				t.Errorf("%s: body %d reads back as %+v, want %+v", sc.name, i, b, want)
			}
		}
		if *peerScenesDir == "" {
			continue
		}
		if err := os.WriteFile(filepath.Join(*peerScenesDir, sc.name+".json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
