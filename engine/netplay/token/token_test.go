package token

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 27, 15, 0, 0, 0, time.UTC)

func testKey(t testing.TB, b byte) Key {
	t.Helper()
	var k Key
	for i := range k {
		k[i] = b + byte(i)
	}
	return k
}

func mint(t testing.TB, key Key, req Request) Credentials {
	t.Helper()
	c, err := Mint(key, req, t0)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestMintOpen(t *testing.T) {
	key := testKey(t, 1)
	for _, seat := range []Seat{0, 3, MaxSeat, Spectator} {
		c := mint(t, key, Request{MatchID: "m-42", Seat: seat, TTL: time.Minute})
		got, err := NewOpener(key, "m-42").Open(c.Token, t0.Add(59*time.Second))
		if err != nil {
			t.Fatalf("seat %v: %v", seat, err)
		}
		if got.Seat != seat || got.MatchID != "m-42" || got.ID != c.ID || got.Keys != c.Keys || !got.Expires.Equal(c.Expires) {
			t.Fatalf("seat %v: opened %+v, minted %+v", seat, got, c)
		}
		if len(c.Token) != MinSize-1+len("m-42") {
			t.Fatalf("token of %d bytes", len(c.Token))
		}
	}
	a := mint(t, key, Request{MatchID: "m", Seat: 1, TTL: time.Minute})
	b := mint(t, key, Request{MatchID: "m", Seat: 1, TTL: time.Minute})
	if a.ID == b.ID || a.Keys == b.Keys {
		t.Fatal("two tokens share an ID or keys")
	}
}

// TestOpenRefuses checks each fault is refused with its reason, in the
// documented order.
func TestOpenRefuses(t *testing.T) {
	key := testKey(t, 1)
	c := mint(t, key, Request{MatchID: "m-42", Seat: 2, TTL: time.Minute})
	flip := func(i int) []byte {
		b := append([]byte(nil), c.Token...)
		b[i] ^= 0x01
		return b
	}
	ok := t0.Add(time.Second)
	for _, tc := range []struct {
		name   string
		token  []byte
		key    Key
		match  string
		now    time.Time
		reason string
	}{
		{"empty", nil, key, "m-42", ok, "token-size"},
		{"cut", c.Token[:len(c.Token)-1], key, "m-42", ok, "token-size"},
		{"long", append(append([]byte(nil), c.Token...), 0), key, "m-42", ok, "token-size"},
		{"version", flip(0), key, "m-42", ok, "token-version"},
		{"expired", c.Token, key, "m-42", t0.Add(time.Minute), "token-expired"},
		{"expired beats forged", flip(len(c.Token) - 1), key, "m-42", t0.Add(time.Hour), "token-expired"},
		{"other match", c.Token, key, "m-43", ok, "token-match"},
		{"wrong key", c.Token, testKey(t, 2), "m-42", ok, "token-forged"},
		{"flipped id", flip(headerSize + 4 + 1), key, "m-42", ok, "token-forged"},
		{"flipped seal", flip(len(c.Token) - 20), key, "m-42", ok, "token-forged"},
		{"flipped tag", flip(len(c.Token) - 1), key, "m-42", ok, "token-forged"},
		{"later expiry", flip(5), key, "m-42", ok, "token-forged"},
	} {
		_, err := NewOpener(tc.key, tc.match).Open(tc.token, tc.now)
		if err == nil || Reason(err) != tc.reason {
			t.Errorf("%s: %v (%s), want %s", tc.name, err, Reason(err), tc.reason)
		}
	}
}

func TestMintRefuses(t *testing.T) {
	key := testKey(t, 1)
	for _, req := range []Request{
		{MatchID: "", Seat: 0, TTL: time.Minute},
		{MatchID: string(make([]byte, MaxMatchID+1)), Seat: 0, TTL: time.Minute},
		{MatchID: "m", Seat: 256, TTL: time.Minute},
		{MatchID: "m", Seat: 0, TTL: 0},
		{MatchID: "m", Seat: 0, TTL: MaxTTL + 1},
	} {
		if _, err := Mint(key, req, t0); err == nil {
			t.Errorf("%+v: minted", req)
		}
	}
}

func TestCredentialsJSON(t *testing.T) {
	c := mint(t, testKey(t, 1), Request{MatchID: "m-42", Seat: Spectator, TTL: time.Minute})
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var back Credentials
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if string(back.Token) != string(c.Token) || back.Keys != c.Keys || back.Seat != c.Seat || !back.Expires.Equal(c.Expires) {
		t.Fatalf("JSON round trip: %s", b)
	}
	path := filepath.Join(t.TempDir(), "creds.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if back, err := ReadCredentialsFile(path); err != nil || back.Keys != c.Keys || string(back.Token) != string(c.Token) {
		t.Fatalf("ReadCredentialsFile: %v", err)
	}
	os.WriteFile(path, []byte(`{"token":"AAAA"}`), 0o600)
	if _, err := ReadCredentialsFile(path); err == nil {
		t.Fatal("credentials with a 3-byte token were read")
	}
	var k SessionKey
	if k.UnmarshalText([]byte("AAAA")) == nil {
		t.Fatal("a short session key was read")
	}
}

func TestKeyFile(t *testing.T) {
	k, err := GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "match.key")
	if err := SaveKeyFile(path, k); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode %v, %v", st.Mode(), err)
	}
	if err := SaveKeyFile(path, k); err == nil {
		t.Fatal("SaveKeyFile replaced a key file")
	}
	back, err := LoadKeyFile(path)
	if err != nil || back != k {
		t.Fatalf("LoadKeyFile: %v", err)
	}
	for _, bad := range []string{"", "nebula-token-key-v1 00", "other " + string(FormatKey(k)[20:]),
		"nebula-token-key-v1 " + string(make([]byte, 64)), "nebula-token-key-v1 " + "00000000000000000000000000000000000000000000000000000000000000000"[:64]} {
		if _, err := ParseKey([]byte(bad)); err == nil {
			t.Errorf("ParseKey(%q) accepted", bad)
		}
	}
}

func TestReason(t *testing.T) {
	if Reason(errors.New("x")) != "token" || Reason(ErrExpired) != "token-expired" {
		t.Fatal("Reason")
	}
}

// BenchmarkOpenRefused measures the tokens a server refuses per second on
// one core: forged (a flipped byte in the seal: the whole check, one
// AEAD open) and expired (refused before the AEAD). tokens/s is the
// figure.
func BenchmarkOpenRefused(b *testing.B) {
	key := testKey(b, 1)
	c := mint(b, key, Request{MatchID: "m-42", Seat: 0, TTL: time.Minute})
	forged := append([]byte(nil), c.Token...)
	forged[len(forged)-20] ^= 1
	o := NewOpener(key, "m-42")
	for _, bc := range []struct {
		name  string
		token []byte
		now   time.Time
	}{
		{"forged", forged, t0},
		{"expired", c.Token, t0.Add(time.Hour)},
		{"valid", c.Token, t0},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				o.Open(bc.token, bc.now)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
		})
	}
}

func BenchmarkMint(b *testing.B) {
	m := NewMinter(testKey(b, 1))
	b.ReportAllocs()
	for b.Loop() {
		m.Mint(Request{MatchID: "m-42", Seat: 0, TTL: time.Minute}, t0)
	}
}

// fuzzToken is a token of seat 1 of match "m-42" under testKey(1),
// expiring a day after t0, minted once: the fuzzer's workers run the
// target's set-up again, so it must not mint (a new random token).
const fuzzToken = "018095ab22a2010000046d2d3432e1234e0890e7bd78c53f5c3c8f02e9e744fea2d3e0721f52c31093cce90e924d1276bfeaa44109db71ac90b7a636ab67069562393de0d9bf415699bbd4fe01c48128f521750f9d1a0ae99479e2d482599ec32663f35d4d013f7615caa0527d48d3e5f503e25d789ca416"

func FuzzOpen(f *testing.F) {
	minted, err := hex.DecodeString(fuzzToken)
	if err != nil {
		f.Fatal(err)
	}
	o := NewOpener(testKey(f, 1), "m-42")
	if c, err := o.Open(minted, t0); err != nil || c.Seat != 1 {
		f.Fatalf("the fuzz token: %v", err)
	}
	f.Add(minted)
	f.Add([]byte{})
	f.Add(minted[:MinSize])
	f.Fuzz(func(t *testing.T, b []byte) {
		if _, err := o.Open(b, t0); err == nil && string(b) != string(minted) {
			// Only the minted token opens: anything else is a forgery
			// the fuzzer cannot make.
			t.Fatalf("opened a token that was not minted: %x", b)
		}
	})
}
