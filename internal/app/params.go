package app

import (
	"errors"
	"flag"
	"fmt"
	"slices"

	"github.com/nebulaengine/nebula/internal/cli"
)

// Params are a game's own parameters, as recordings and matches carry
// them: cli.Params, whose encoding a dedicated server (package gameserver)
// shares.
type Params = cli.Params

// ParseParams decodes what Params.MarshalBinary wrote (cli.ParseParams).
func ParseParams(data []byte) (Params, error) { return cli.ParseParams(data) }

// gameParams reads the current values of the flags names names on fs.
func gameParams(fs *flag.FlagSet, names []string) Params { return cli.FlagParams(fs, names) }

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
