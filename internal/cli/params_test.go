package cli

import (
	"flag"
	"strings"
	"testing"
)

// Params encode as versioned JSON, the same values to the same bytes; what
// is not that encoding, or another version of it, is a clear error.
func TestParamsEncoding(t *testing.T) {
	p := Params{"level": "3", "arena": "2.5"}
	b, err := p.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"v":1,"flags":{"arena":"2.5","level":"3"}}` {
		t.Errorf("encoded %s", b)
	}
	back, err := ParseParams(b)
	if err != nil || len(back) != 2 || back["level"] != "3" || back["arena"] != "2.5" {
		t.Errorf("ParseParams = %v, %v", back, err)
	}
	if none, err := ParseParams(nil); err != nil || len(none) != 0 {
		t.Errorf("ParseParams(nil) = %v, %v", none, err)
	}
	for _, tc := range []struct{ data, want string }{
		{`{"v":2,"flags":{}}`, "game parameters: encoding version 2, this program reads version 1"},
		{"\x01\x02", "game parameters: not the encoding of package cli"},
		{`{"v":1,"flags":{"a":1}}`, "game parameters: not the encoding of package cli"},
	} {
		if _, err := ParseParams([]byte(tc.data)); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("ParseParams(%q) = %v, want %q", tc.data, err, tc.want)
		}
	}
}

// FlagParams reads the named flags' current values, leaving out a name no
// flag has.
func TestFlagParams(t *testing.T) {
	fs := flag.NewFlagSet("g", flag.ContinueOnError)
	fs.Int("level", 1, "")
	fs.Bool("hard", false, "")
	if err := fs.Parse([]string{"-level", "4"}); err != nil {
		t.Fatal(err)
	}
	p := FlagParams(fs, []string{"level", "hard", "none"})
	if len(p) != 2 || p["level"] != "4" || p["hard"] != "false" {
		t.Errorf("FlagParams = %v", p)
	}
}
