package timing

import "testing"

func TestPowerModes(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    Power
		tick int
		fps  float64
	}{
		{"normal", PowerNormal, 60, 144},
		{"low", PowerLow, 30, 30},
	} {
		p, err := ParsePower(tc.name)
		if err != nil || p != tc.p {
			t.Errorf("ParsePower(%q) = %v, %v; want %v", tc.name, p, err, tc.p)
		}
		if p.String() != tc.name || p.TickRate() != tc.tick || p.RenderRate() != tc.fps {
			t.Errorf("%v: String %q, TickRate %d, RenderRate %v; want %q, %d, %v", tc.p, p.String(), p.TickRate(), p.RenderRate(), tc.name, tc.tick, tc.fps)
		}
		if err := ValidateTickRate(p.TickRate()); err != nil {
			t.Error(err)
		}
		if err := ValidateRenderRate(p.RenderRate()); err != nil {
			t.Error(err)
		}
	}
	if _, err := ParsePower("eco"); err == nil || err.Error() != `timing: power mode must be normal or low, got "eco"` {
		t.Errorf("ParsePower(eco) = %v", err)
	}
	if s := Power(7).String(); s != "Power(7)" {
		t.Errorf("Power(7).String() = %q", s)
	}
}
