package gameserver

import (
	"bytes"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nebulaengine/nebula/engine/netplay/token"
)

// The token subcommand makes a key file, and mints credentials under it
// that the server's opener takes: the match, the seat (or a spectator's)
// and the expiry asked for. A key file is never replaced.
func TestTokenSubcommand(t *testing.T) {
	path := filepath.Join(t.TempDir(), "k.key")
	if code := runToken("s", []string{"-new-key", path}, time.Now(), io.Discard, io.Discard); code != ExitOK {
		t.Fatalf("-new-key: exit %d", code)
	}
	var stderr bytes.Buffer
	if code := runToken("s", []string{"-new-key", path}, time.Now(), io.Discard, &stderr); code != ExitFailed || !strings.Contains(stderr.String(), "file exists") {
		t.Errorf("-new-key over a key: exit %d, %q", code, stderr.String())
	}
	key, err := token.LoadKeyFile(path)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_800_000_000, 0)
	for _, tc := range []struct {
		seat string
		want token.Seat
	}{{"0", 0}, {"255", 255}, {"spectator", token.Spectator}} {
		var out bytes.Buffer
		if code := runToken("s", []string{"-key", path, "-match", "m-1", "-seat", tc.seat, "-ttl", "2m"}, now, &out, io.Discard); code != ExitOK {
			t.Fatalf("-seat %s: exit %d", tc.seat, code)
		}
		var creds token.Credentials
		if err := json.Unmarshal(out.Bytes(), &creds); err != nil {
			t.Fatalf("-seat %s printed %q: %v", tc.seat, out.String(), err)
		}
		claims, err := token.NewOpener(key, "m-1").Open(creds.Token, now.Add(time.Minute))
		if err != nil || claims.Seat != tc.want || !claims.Expires.Equal(now.Add(2*time.Minute)) || claims.Keys != creds.Keys {
			t.Errorf("-seat %s: opened %+v, %v; want seat %d expiring at %v with the printed keys", tc.seat, claims, err, tc.want, now.Add(2*time.Minute))
		}
		if _, err := token.NewOpener(key, "m-1").Open(creds.Token, now.Add(2*time.Minute)); token.Reason(err) != "token-expired" {
			t.Errorf("-seat %s: opened after its -ttl: %v", tc.seat, err)
		}
	}
}

func TestTokenRequestChecks(t *testing.T) {
	for _, tc := range []struct {
		key, match, seat string
		ttl              time.Duration
		want             string
	}{
		{"", "m", "0", time.Minute, "-key is required"},
		{"k", "", "0", time.Minute, "-match is required"},
		{"k", "m", "", time.Minute, "-seat is required"},
		{"k", "m", "-1", time.Minute, `-seat "-1"`},
		{"k", "m", "x", time.Minute, `-seat "x"`},
		{"k", "m", "0", 0, "-ttl 0s"},
		{"k", "m", "0", 25 * time.Hour, "-ttl 25h0m0s"},
		{"k", "a b", "0", time.Minute, `-match "a b"`},
	} {
		if _, err := tokenRequest(tc.key, tc.match, tc.seat, tc.ttl); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("tokenRequest(%q, %q, %q, %v) = %v, want %q...", tc.key, tc.match, tc.seat, tc.ttl, err, tc.want)
		}
	}
}
