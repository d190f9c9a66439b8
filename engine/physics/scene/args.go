package scene

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Usage is the runner's command line, as its messages write it.
const Usage = "usage: SCENE.json [--trace ID[,ID...]|all] [--every K]"

// ErrHelp is what ParseArgs returns for -h or --help: the caller prints
// Usage on stdout and exits 0.
var ErrHelp = errors.New("scene: help requested")

// Args is a runner's command line.
type Args struct {
	Scene    string   // the scene file
	Trace    []string // ids to trace, in the order asked (empty ids dropped)
	TraceAll bool     // --trace all: every dynamic body, in scene order
	Every    int      // trace every Every steps (>= 1; default 1)
}

// Tracing reports whether the command line asks for a trace of some body
// (--trace "" asks for none).
func (a *Args) Tracing() bool { return a.TraceAll || len(a.Trace) > 0 }

// TraceAt reports whether the trace holds the state after step s (s = 0:
// before the first step): s = 0, K, 2K, ... up to the last step. The last
// step is traced only when it is a multiple of K, as the anchors do.
func (a *Args) TraceAt(s int) bool { return a.Tracing() && s%a.Every == 0 }

// ParseArgs reads SCENE.json [--trace ID[,ID...]|all] [--every K], options
// and the scene in any order, as the anchors' runners do. It returns
// ErrHelp for -h or --help, and an error naming the problem and Usage for
// an unknown option, an option without its value, an --every that is not
// a whole number >= 1, no scene or more than one. The runner exits 2 on
// such an error.
func ParseArgs(args []string) (Args, error) {
	a := Args{Every: 1}
	seen := false
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case arg == "--trace" || arg == "--every":
			if i+1 >= len(args) {
				return Args{}, fmt.Errorf("scene: %s needs a value; %s", arg, Usage)
			}
			i++
			v := args[i]
			if arg == "--every" {
				k, err := strconv.Atoi(v)
				if err != nil || k < 1 {
					return Args{}, fmt.Errorf("scene: --every wants a whole number >= 1, got %q", v)
				}
				a.Every = k
				continue
			}
			a.Trace, a.TraceAll = nil, false
			if v == "all" {
				a.TraceAll = true
				continue
			}
			a.Trace = []string{}
			for id := range strings.SplitSeq(v, ",") {
				if id != "" {
					a.Trace = append(a.Trace, id)
				}
			}
		case arg == "-h" || arg == "--help":
			return Args{}, ErrHelp
		case strings.HasPrefix(arg, "-"):
			return Args{}, fmt.Errorf("scene: unknown option %s; %s", arg, Usage)
		case seen:
			return Args{}, fmt.Errorf("scene: more than one scene given (%s); %s", arg, Usage)
		default:
			a.Scene, seen = arg, true
		}
	}
	if !seen {
		return Args{}, fmt.Errorf("scene: no scene given; %s", Usage)
	}
	return a, nil
}

// TraceBodies returns the indices in s.Bodies of the bodies a asks to
// trace, in the order asked (--trace all: every dynamic body, in scene
// order), or an error naming an id that is not a dynamic body of s (the
// runner exits 2).
func (s *Scene) TraceBodies(a Args) ([]int, error) {
	if a.TraceAll {
		return s.Dynamic(), nil
	}
	if a.Trace == nil {
		return nil, nil
	}
	index := make(map[string]int, len(s.Bodies))
	for i := range s.Bodies {
		index[s.Bodies[i].ID] = i
	}
	out := make([]int, 0, len(a.Trace))
	for _, id := range a.Trace {
		i, ok := index[id]
		if !ok {
			return nil, fmt.Errorf("scene: --trace: %q is not a body of the scene %q", id, s.Name)
		}
		if s.Bodies[i].Kind != Dynamic {
			return nil, fmt.Errorf("scene: --trace: %q is a %s body; only dynamic bodies are traced", id, s.Bodies[i].Kind)
		}
		out = append(out, i)
	}
	return out, nil
}
