package cli

import (
	"encoding/json"
	"flag"
	"fmt"
)

// paramsVersion is the version of the parameters' encoding.
const paramsVersion = 1

// Params are a game's own parameters as a recording's header
// (replay.Header.Params) and a match's Welcome (wire.Welcome.Params) carry
// them: the values of the game's flags that the simulation depends on
// (app.Game.Params names them), by flag name, as flag.Value.String gives
// them. Encoded, they are a versioned JSON object:
// {"v":1,"flags":{"entities":"20"}}. A program with a window (package app)
// and a dedicated server (package gameserver) write and read the same
// encoding, so the server's clients take their parameters from it.
type Params map[string]string

// paramsDoc is the encoding of Params.
type paramsDoc struct {
	V     int               `json:"v"`
	Flags map[string]string `json:"flags"`
}

// MarshalBinary encodes p (encoding/json writes the names in order, so the
// same values give the same bytes).
func (p Params) MarshalBinary() ([]byte, error) {
	return json.Marshal(paramsDoc{V: paramsVersion, Flags: p})
}

// ParseParams decodes what Params.MarshalBinary wrote. Empty data is no
// parameters; another version, or anything but the encoding, is an error
// that says which.
func ParseParams(data []byte) (Params, error) {
	if len(data) == 0 {
		return Params{}, nil
	}
	var d paramsDoc
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, fmt.Errorf("game parameters: not the encoding of package cli: %w", err)
	}
	if d.V != paramsVersion {
		return nil, fmt.Errorf("game parameters: encoding version %d, this program reads version %d", d.V, paramsVersion)
	}
	if d.Flags == nil {
		d.Flags = Params{}
	}
	return d.Flags, nil
}

// FlagParams reads the current values of the flags names names on fs (a
// name no flag of fs has is left out).
func FlagParams(fs *flag.FlagSet, names []string) Params {
	p := make(Params, len(names))
	for _, name := range names {
		if f := fs.Lookup(name); f != nil {
			p[name] = f.Value.String()
		}
	}
	return p
}
