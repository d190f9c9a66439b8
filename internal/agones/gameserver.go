package agones

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// State is a GameServer's lifecycle state, as Agones names it.
type State string

// The states a game server sees through the SDK. A GameServer starts
// Scheduled (its pod is placed), moves to RequestReady and Ready when the
// server calls Ready, to Allocated when a GameServerAllocation (or the
// server's own Allocate) picks it, and to Shutdown when the server calls
// Shutdown. Reserved is Ready held back for a while; Unhealthy follows
// missed health pings; Error is a failure Agones saw itself.
const (
	StateScheduled    State = "Scheduled"
	StateRequestReady State = "RequestReady"
	StateReady        State = "Ready"
	StateReserved     State = "Reserved"
	StateAllocated    State = "Allocated"
	StateShutdown     State = "Shutdown"
	StateUnhealthy    State = "Unhealthy"
	StateError        State = "Error"
)

// GameServer is what a game server reads of its GameServer object: its
// name, labels and annotations, state, and the address and ports players
// reach it at.
type GameServer struct {
	Name        string            // metadata.name
	Namespace   string            // metadata.namespace
	Labels      map[string]string // metadata.labels, those set through the SDK with LabelPrefix
	Annotations map[string]string // metadata.annotations, likewise
	State       State             // status.state
	Address     string            // status.address: the node's address players connect to
	Ports       []Port            // status.ports: the ports Agones opened on that address
}

// Label returns the label that SetLabel(key, ...) set, and whether it is
// there.
func (gs GameServer) Label(key string) (string, bool) {
	v, ok := gs.Labels[LabelPrefix+key]
	return v, ok
}

// Port is one of the ports a GameServer's players reach it on.
type Port struct {
	Name string // the port's name in the GameServer spec ("default", ...)
	Port int    // the port number on the GameServer's address
}

// rawGameServer is the SDK server's JSON of a GameServer: the proto
// message sdk.GameServer with proto field names, 64-bit integers as
// strings.
type rawGameServer struct {
	ObjectMeta struct {
		Name        string            `json:"name"`
		Namespace   string            `json:"namespace"`
		Labels      map[string]string `json:"labels"`
		Annotations map[string]string `json:"annotations"`
	} `json:"object_meta"`
	Status struct {
		State   State  `json:"state"`
		Address string `json:"address"`
		Ports   []struct {
			Name string      `json:"name"`
			Port json.Number `json:"port"`
		} `json:"ports"`
	} `json:"status"`
}

func (r rawGameServer) gameServer() GameServer {
	gs := GameServer{
		Name:        r.ObjectMeta.Name,
		Namespace:   r.ObjectMeta.Namespace,
		Labels:      r.ObjectMeta.Labels,
		Annotations: r.ObjectMeta.Annotations,
		State:       r.Status.State,
		Address:     r.Status.Address,
	}
	for _, p := range r.Status.Ports {
		n, _ := strconv.Atoi(p.Port.String()) // int32 in the proto: a JSON number, or a string
		gs.Ports = append(gs.Ports, Port{Name: p.Name, Port: n})
	}
	return gs
}

// DecodeGameServer decodes the SDK server's JSON of a GameServer (GET
// /gameserver's response).
func DecodeGameServer(data []byte) (GameServer, error) {
	var raw rawGameServer
	if err := json.Unmarshal(data, &raw); err != nil {
		return GameServer{}, fmt.Errorf("agones: decoding a GameServer: %w", err)
	}
	return raw.gameServer(), nil
}

// decodeWatchLine decodes one line of GET /watch/gameserver: the gRPC
// gateway's {"result": GameServer} or {"error": {...}}.
func decodeWatchLine(line []byte) (GameServer, error) {
	var msg struct {
		Result *rawGameServer `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(line, &msg); err != nil {
		return GameServer{}, fmt.Errorf("agones: watch gameserver: decoding %.100q: %w", line, err)
	}
	switch {
	case msg.Error != nil:
		return GameServer{}, fmt.Errorf("agones: watch gameserver: the SDK server says: %s (code %d)", msg.Error.Message, msg.Error.Code)
	case msg.Result == nil:
		return GameServer{}, fmt.Errorf("agones: watch gameserver: a line with no result: %.100q", line)
	}
	return msg.Result.gameServer(), nil
}

// maxKey is the longest key SetLabel takes: a Kubernetes label's name is
// at most 63 characters, and the SDK server adds "sdk-" to it.
const maxKey = 63 - len("sdk-")

// checkKey checks a label or annotation key for the SDK: letters, digits,
// '-', '_' and '.', ending with a letter or digit, at most maxKey long.
//
//srccheck:wrapped by SetLabel and SetAnnotation, as "agones: label "k": ..."
func checkKey(key string) error {
	switch {
	case key == "":
		return errors.New("empty key")
	case len(key) > maxKey:
		return fmt.Errorf("key longer than %d characters", maxKey)
	}
	return checkLabelChars(key)
}

// CheckLabelValue reports whether v can be a label's value (LifecycleConfig.MatchID
// must): empty, or at most 63 letters, digits, '-', '_' and '.', starting and
// ending with a letter or digit.
func CheckLabelValue(v string) error {
	if err := checkLabelValue(v); err != nil {
		return fmt.Errorf("agones: label value %q: %w", v, err)
	}
	return nil
}

// checkLabelValue checks a label value: empty, or at most 63 letters,
// digits, '-', '_' and '.', starting and ending with a letter or digit.
//
//srccheck:wrapped by SetLabel, as "agones: label k="v": ..."
func checkLabelValue(v string) error {
	switch {
	case v == "":
		return nil
	case len(v) > 63:
		return errors.New("value longer than 63 characters")
	case !alnum(v[0]):
		return errors.New("a label value starts with a letter or digit")
	}
	return checkLabelChars(v)
}

// checkLabelChars checks the characters of a label name or value.
//
//srccheck:wrapped by checkKey and checkLabelValue's callers
func checkLabelChars(s string) error {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !alnum(c) && c != '-' && c != '_' && c != '.' {
			return fmt.Errorf("character %q: only letters, digits, '-', '_' and '.'", c)
		}
	}
	if !alnum(s[len(s)-1]) {
		return errors.New("must end with a letter or digit")
	}
	return nil
}

func alnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}
