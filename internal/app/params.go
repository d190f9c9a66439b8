package app

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"slices"
)

// paramsVersion is the version of the parameters' encoding.
const paramsVersion = 1

// Params are a game's own parameters as a recording's header
// (replay.Header.Params) and a match's Welcome (wire.Welcome.Params) carry
// them: the values of the game's flags that Game.Params names, by flag
// name, as flag.Value.String gives them. Encoded, they are a versioned
// JSON object: {"v":1,"flags":{"entities":"20"}}.
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
		return nil, fmt.Errorf("game parameters: not the encoding of package app: %w", err)
	}
	if d.V != paramsVersion {
		return nil, fmt.Errorf("game parameters: encoding version %d, this program reads version %d", d.V, paramsVersion)
	}
	if d.Flags == nil {
		d.Flags = Params{}
	}
	return d.Flags, nil
}

// gameParams reads the current values of the flags names names on fs.
func gameParams(fs *flag.FlagSet, names []string) Params {
	p := make(Params, len(names))
	for _, name := range names {
		if f := fs.Lookup(name); f != nil {
			p[name] = f.Value.String()
		}
	}
	return p
}

// errUnknownParam is a parameter that names no flag of this program's.
var errUnknownParam = errors.New("names no recorded flag of this program")

// applyParams sets the flags p names on fs to p's values, in name order.
// conflict, if not nil, is called for a flag given on the command line
// (given) with another value; an error it returns stops applyParams. Only
// the flags in allowed may be set.
func applyParams(fs *flag.FlagSet, p Params, allowed []string, given func(string) bool, conflict func(name, file, flagValue string) error) error {
	names := make([]string, 0, len(p))
	for name := range p {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		value := p[name]
		f := fs.Lookup(name)
		if f == nil || !slices.Contains(allowed, name) {
			return fmt.Errorf("parameter %q: %w", name, errUnknownParam)
		}
		if cur := f.Value.String(); cur != value && given(name) && conflict != nil {
			if err := conflict(name, value, cur); err != nil {
				return err
			}
		}
		if err := fs.Set(name, value); err != nil {
			return fmt.Errorf("parameter %s: %w", name, err)
		}
	}
	return nil
}
