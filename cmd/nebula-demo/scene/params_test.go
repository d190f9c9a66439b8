package scene

import (
	"bytes"
	"encoding/hex"
	"testing"
)

// paramsHex is the encoding of Params{Seed: 0x0102030405060708, Entities:
// 1000, PanicAtTick: 321}, written out by hand: version 1, then the fields
// little-endian.
const paramsHex = "01" + "0807060504030201" + "e8030000" + "4101000000000000"

func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParamsMarshalBinary(t *testing.T) {
	tests := []struct {
		p       Params
		want    string // hex, when no error
		wantErr string
	}{
		{Params{Seed: 0x0102030405060708, Entities: 1000, PanicAtTick: 321}, paramsHex, ""},
		{Params{}, "01" + "0000000000000000" + "00000000" + "0000000000000000", ""},
		{Params{Seed: ^uint64(0), Entities: MaxEntities, PanicAtTick: ^uint64(0)}, "01" + "ffffffffffffffff" + "40420f00" + "ffffffffffffffff", ""},
		{Params{Entities: -1}, "", "scene params: entities -1 out of range, want 0 to 1000000"},
		{Params{Entities: MaxEntities + 1}, "", "scene params: entities 1000001 out of range, want 0 to 1000000"},
	}
	for _, tt := range tests {
		b, err := tt.p.MarshalBinary()
		switch {
		case tt.wantErr != "":
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("%+v: MarshalBinary = %x, %v; want error %q", tt.p, b, err, tt.wantErr)
			}
		case err != nil:
			t.Errorf("%+v: MarshalBinary: %v", tt.p, err)
		case hex.EncodeToString(b) != tt.want:
			t.Errorf("%+v: MarshalBinary = %x, want %s", tt.p, b, tt.want)
		case len(b) != ParamsSize:
			t.Errorf("%+v: MarshalBinary gave %d bytes, want ParamsSize %d", tt.p, len(b), ParamsSize)
		}
	}
}

func TestParseParams(t *testing.T) {
	tests := []struct {
		name    string
		hex     string
		want    Params
		wantErr string
	}{
		{"valid", paramsHex, Params{Seed: 0x0102030405060708, Entities: 1000, PanicAtTick: 321}, ""},
		{"zero", "01" + "0000000000000000" + "00000000" + "0000000000000000", Params{}, ""},
		{"most entities", "01" + "0000000000000000" + "40420f00" + "0000000000000000", Params{Entities: MaxEntities}, ""},
		{"empty", "", Params{}, "scene params: 0 bytes, want 21 (version 1)"},
		{"short", "0102030405", Params{}, "scene params: 5 bytes, want 21 (version 1)"},
		{"one short", paramsHex[:40], Params{}, "scene params: 20 bytes, want 21 (version 1)"},
		{"one long", paramsHex + "00", Params{}, "scene params: 22 bytes, want 21 (version 1)"},
		{"version 0", "00" + paramsHex[2:], Params{}, "scene params: version 0, want 1 (the server runs another build of the scene)"},
		{"version 2", "02" + paramsHex[2:], Params{}, "scene params: version 2, want 1 (the server runs another build of the scene)"},
		{"too many entities", "01" + "0000000000000000" + "41420f00" + "0000000000000000", Params{}, "scene params: entities 1000001 out of range, want 0 to 1000000"},
		{"entities all ones", "01" + "0000000000000000" + "ffffffff" + "0000000000000000", Params{}, "scene params: entities 4294967295 out of range, want 0 to 1000000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseParams(mustHex(t, tt.hex))
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("ParseParams = %+v, %v; want error %q", got, err, tt.wantErr)
				}
				if got != (Params{}) {
					t.Errorf("ParseParams returned %+v with its error, want the zero Params", got)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseParams = %+v, %v; want %+v", got, err, tt.want)
			}
			again, err := got.MarshalBinary()
			if err != nil || hex.EncodeToString(again) != tt.hex {
				t.Errorf("%+v re-marshals to %x, %v; want %s", got, again, err, tt.hex)
			}
		})
	}
}

// Whatever ParseParams accepts re-marshals to the same bytes, and it never
// panics.
func FuzzParseParams(f *testing.F) {
	f.Add(mustHex(f, paramsHex))
	f.Add(mustHex(f, "01"+"0000000000000000"+"00000000"+"0000000000000000"))
	f.Add(mustHex(f, "01"+"ffffffffffffffff"+"40420f00"+"ffffffffffffffff"))
	f.Add(mustHex(f, "01"+"0000000000000000"+"41420f00"+"0000000000000000")) // entities out of range
	f.Add(mustHex(f, "02"+paramsHex[2:]))                                    // unknown version
	f.Add(mustHex(f, paramsHex+"00"))                                        // too long
	f.Add([]byte{1, 2, 3, 4, 5})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ParseParams(b)
		if err != nil {
			return
		}
		again, err := p.MarshalBinary()
		if err != nil {
			t.Fatalf("ParseParams(%x) = %+v, which does not marshal: %v", b, p, err)
		}
		if !bytes.Equal(again, b) {
			t.Fatalf("ParseParams(%x) = %+v, which marshals to %x", b, p, again)
		}
	})
}
