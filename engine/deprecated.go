package engine

import (
	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine/geom"
	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/engine/render"
)

// The names below left package engine in v0.13.0, when transforms moved to
// engine/geom, the render data to engine/render and the input types to
// engine/input (so that the renderer, the platform layer and the wire import
// no simulation code). They were restored in v0.16.0 as deprecated aliases,
// so that a game written for v0.12 builds with a warning from staticcheck
// instead of failing; they will be removed in v0.17.0. CHANGELOG.md says
// what replaces each. The rollback names of v0.12 (engine.Rollback,
// engine.SyncTest, ...) have no alias here: engine/rollback imports engine,
// so engine cannot name them.

// Transform is an entity's position, rotation and scale.
//
// Deprecated: use geom.Transform (since v0.13.0).
type Transform = geom.Transform

// NewTransform returns the transform at pos with no rotation and unit
// scale.
//
// Deprecated: use geom.NewTransform (since v0.13.0).
func NewTransform(pos mgl32.Vec3) Transform { return geom.NewTransform(pos) }

// AddFixed adds a system to the Scripts stage, after the systems added to
// it before. It panics where AddSystem returns an error (an empty name, a
// nil function).
//
// Deprecated: use e.AddSystem(engine.StageScripts, name, run), or the stage
// where the system belongs, and check its error (since v0.13.0).
func (e *Engine) AddFixed(name string, run func(*FixedContext)) {
	if err := e.AddSystem(StageScripts, name, run); err != nil {
		panic(err)
	}
}

// Render data.
type (
	// Instance is one entity as a frame draws it.
	//
	// Deprecated: use render.Instance (since v0.13.0).
	Instance = render.Instance
	// Poses holds a frame's bones and blend weights.
	//
	// Deprecated: use render.Poses (since v0.13.0).
	Poses = render.Poses
	// PoseRef names an instance's pose in a frame's Poses.
	//
	// Deprecated: use render.PoseRef (since v0.13.0).
	PoseRef = render.PoseRef
	// Bone is one bone's transform in a frame's Poses.
	//
	// Deprecated: use render.Bone (since v0.13.0).
	Bone = render.Bone
	// MeshID names what an entity is drawn as.
	//
	// Deprecated: use render.MeshID (since v0.13.0).
	MeshID = render.MeshID
)

// The built-in meshes, the first id of a game's own, and the most poses a
// frame holds.
//
// Deprecated: use render.MeshCube, render.MeshSphere, render.MeshPlane,
// render.MeshFirstGame and render.MaxPoses (since v0.13.0).
const (
	MeshCube      = render.MeshCube
	MeshSphere    = render.MeshSphere
	MeshPlane     = render.MeshPlane
	MeshFirstGame = render.MeshFirstGame
	MaxPoses      = render.MaxPoses
)

// Input.
type (
	// InputSnapshot is a player's input for one tick.
	//
	// Deprecated: use input.Sample (since v0.13.0).
	InputSnapshot = input.Sample
	// InputEvent is one timed device event.
	//
	// Deprecated: use input.Event (since v0.13.0).
	InputEvent = input.Event
	// Input is the queue that turns timed events into one sample per tick.
	//
	// Deprecated: use input.Queue (since v0.13.0).
	Input = input.Queue
	// Key is a keyboard key.
	//
	// Deprecated: use input.Key (since v0.13.0).
	Key = input.Key
	// MouseButton is a mouse button.
	//
	// Deprecated: use input.MouseButton (since v0.13.0).
	MouseButton = input.MouseButton
	// EventKind is what an InputEvent reports.
	//
	// Deprecated: use input.EventKind (since v0.13.0).
	EventKind = input.EventKind
)

// InputWords is the number of words of a sample's keys and mouse, and
// MaxInputQueue the most events a queue holds.
//
// Deprecated: use input.KeyMouseWords and input.MaxQueue (since v0.13.0).
const (
	InputWords    = input.KeyMouseWords
	MaxInputQueue = input.MaxQueue
)

// The keys.
//
// Deprecated: use the constants of the same names in package input
// (input.KeyA, ...) (since v0.13.0).
const (
	Key0            = input.Key0
	Key1            = input.Key1
	Key2            = input.Key2
	Key3            = input.Key3
	Key4            = input.Key4
	Key5            = input.Key5
	Key6            = input.Key6
	Key7            = input.Key7
	Key8            = input.Key8
	Key9            = input.Key9
	KeyA            = input.KeyA
	KeyB            = input.KeyB
	KeyC            = input.KeyC
	KeyD            = input.KeyD
	KeyE            = input.KeyE
	KeyF            = input.KeyF
	KeyG            = input.KeyG
	KeyH            = input.KeyH
	KeyI            = input.KeyI
	KeyJ            = input.KeyJ
	KeyK            = input.KeyK
	KeyL            = input.KeyL
	KeyM            = input.KeyM
	KeyN            = input.KeyN
	KeyO            = input.KeyO
	KeyP            = input.KeyP
	KeyQ            = input.KeyQ
	KeyR            = input.KeyR
	KeyS            = input.KeyS
	KeyT            = input.KeyT
	KeyU            = input.KeyU
	KeyV            = input.KeyV
	KeyW            = input.KeyW
	KeyX            = input.KeyX
	KeyY            = input.KeyY
	KeyZ            = input.KeyZ
	KeyF1           = input.KeyF1
	KeyF2           = input.KeyF2
	KeyF3           = input.KeyF3
	KeyF4           = input.KeyF4
	KeyF5           = input.KeyF5
	KeyF6           = input.KeyF6
	KeyF7           = input.KeyF7
	KeyF8           = input.KeyF8
	KeyF9           = input.KeyF9
	KeyF10          = input.KeyF10
	KeyF11          = input.KeyF11
	KeyF12          = input.KeyF12
	KeyArrowUp      = input.KeyArrowUp
	KeyArrowDown    = input.KeyArrowDown
	KeyArrowLeft    = input.KeyArrowLeft
	KeyArrowRight   = input.KeyArrowRight
	KeyBackspace    = input.KeyBackspace
	KeyEnter        = input.KeyEnter
	KeyEqual        = input.KeyEqual
	KeyEscape       = input.KeyEscape
	KeyLeftAlt      = input.KeyLeftAlt
	KeyLeftBracket  = input.KeyLeftBracket
	KeyLeftCtrl     = input.KeyLeftCtrl
	KeyLeftShift    = input.KeyLeftShift
	KeyMinus        = input.KeyMinus
	KeyRightAlt     = input.KeyRightAlt
	KeyRightBracket = input.KeyRightBracket
	KeyRightCtrl    = input.KeyRightCtrl
	KeyRightShift   = input.KeyRightShift
	KeySpace        = input.KeySpace
	KeyTab          = input.KeyTab
	KeyUnknown      = input.KeyUnknown
	KeyCount        = input.KeyCount
)

// The mouse buttons.
//
// Deprecated: use the constants of the same names in package input
// (input.MouseButtonLeft, ...) (since v0.13.0).
const (
	MouseButtonLeft   = input.MouseButtonLeft
	MouseButtonRight  = input.MouseButtonRight
	MouseButtonMiddle = input.MouseButtonMiddle
	MouseButton4      = input.MouseButton4
	MouseButton5      = input.MouseButton5
	MouseButton6      = input.MouseButton6
	MouseButton7      = input.MouseButton7
	MouseButton8      = input.MouseButton8
	MouseButtonCount  = input.MouseButtonCount
)

// The kinds of input events.
//
// Deprecated: use the constants of the same names in package input
// (input.KeyDown, ...) (since v0.13.0).
const (
	KeyDown    = input.KeyDown
	KeyUp      = input.KeyUp
	ButtonDown = input.ButtonDown
	ButtonUp   = input.ButtonUp
	CursorMove = input.CursorMove
	Scroll     = input.Scroll
)
