package app

import (
	"bytes"
	"flag"
	"strings"
	"testing"

	"github.com/nebulaengine/nebula/internal/cli"
)

// A game's own flag is defined beside the common ones, listed by -h, set by
// the command line and checked by Game.Check before Run; a refusal is
// status 2 and one line, and Run does not start.
func TestGameOwnsItsFlags(t *testing.T) {
	var (
		level int
		ran   bool
	)
	g := Game{
		Flags: func(fs *flag.FlagSet) { fs.IntVar(&level, "level", 1, "the level to start on") },
		Check: func(o *cli.Options) error {
			if level < 1 {
				return cli.Usagef("-level %d: must be 1 or more", level)
			}
			if o.Given("level") && o.Headless {
				return cli.Usagef("-level needs a window")
			}
			return nil
		},
		Run: func(*Process) error { ran = true; return nil },
	}
	play := func(args ...string) (int, string) {
		var stdout, stderr bytes.Buffer
		ran = false
		code := Main("my-game", args, &stdout, &stderr, g)
		return code, stderr.String()
	}

	code, usage := play("-h")
	if code != 0 || !strings.Contains(usage, "  -level int\n    \tthe level to start on (default 1)\n") || !strings.Contains(usage, "  -tick-rate int\n") {
		t.Errorf("-h: status %d, usage without -level or -tick-rate:\n%s", code, usage)
	}
	if strings.Contains(usage, "-record") {
		t.Errorf("-h lists -record in a game that does not record:\n%s", usage)
	}
	if code, stderr := play("-level", "3", "-log-level", "error"); code != 0 || level != 3 || !ran {
		t.Errorf("-level 3: status %d, level %d, ran %v: %s", code, level, ran, stderr)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-level", "0"}, "my-game: -level 0: must be 1 or more\n"},
		{[]string{"-level", "2", "-headless", "-ticks", "1"}, "my-game: -level needs a window\n"},
		{[]string{"-record", "r.rep"}, "my-game: flag provided but not defined: -record (see -h)\n"},
		{[]string{"-headless", "-ticks", "1", "-vsync"}, "my-game: -vsync needs a window: it means nothing with -headless\n"},
	} {
		if code, stderr := play(tc.args...); code != 2 || stderr != tc.want || ran {
			t.Errorf("%q: status %d, stderr %q, ran %v; want 2, %q, not run", tc.args, code, stderr, ran, tc.want)
		}
	}
	// With Records, the recording flags exist.
	g.Records = true
	if code, stderr := play("-headless", "-ticks", "1", "-record", "r.rep", "-log-level", "error"); code != 0 || !ran {
		t.Errorf("-record with Records: status %d, ran %v: %s", code, ran, stderr)
	}
}
