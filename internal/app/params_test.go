package app

import (
	"io"
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
		{"\x01\x02", "game parameters: not the encoding of package app"},
		{`{"v":1,"flags":{"a":1}}`, "game parameters: not the encoding of package app"},
	} {
		if _, err := ParseParams([]byte(tc.data)); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("ParseParams(%q) = %v, want %q", tc.data, err, tc.want)
		}
	}
}

// Game.Params naming no flag is the game's mistake: Main panics at once,
// saying which.
func TestParamsNameFlags(t *testing.T) {
	defer func() {
		if r := recover(); r != `app: Game.Params names "level", which no flag defines` {
			t.Errorf("recovered %v", r)
		}
	}()
	Main("g", nil, io.Discard, io.Discard, Game{Params: []string{"level"}, Run: func(*Process) error { return nil }})
	t.Error("Main returned")
}
