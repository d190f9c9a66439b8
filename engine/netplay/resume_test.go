package netplay_test

import (
	"strings"
	"testing"

	"github.com/nebulaengine/nebula/engine/netplay"
)

// ResumeServer continues a match at its engine's tick; NewServer refuses
// such an engine and names ResumeServer; a match at tick 0, or past its
// last tick, is not resumed.
func TestResumeServerRefuses(t *testing.T) {
	e, _ := newTestEngine(t)
	cfg := netplay.DefaultServerConfig()
	cfg.Scene, cfg.Ticks = testScene, 5
	cfg.Log, _ = quietLog()
	if _, err := netplay.ResumeServer(e, cfg, netplay.ResumeConfig{}); err == nil || !strings.Contains(err.Error(), "tick 0") {
		t.Errorf("ResumeServer at tick 0 = %v, want a refusal", err)
	}
	for range 10 {
		if !e.StepTick(0) {
			t.Fatal(e.Err())
		}
	}
	if _, err := netplay.NewServer(e, cfg); err == nil || !strings.Contains(err.Error(), "ResumeServer") {
		t.Errorf("NewServer at tick 10 = %v, want a refusal naming ResumeServer", err)
	}
	if _, err := netplay.ResumeServer(e, cfg, netplay.ResumeConfig{}); err == nil || !strings.Contains(err.Error(), "ended at tick 5") {
		t.Errorf("ResumeServer past the match's end = %v, want a refusal", err)
	}
	cfg.Ticks = 0
	if _, err := netplay.ResumeServer(e, cfg, netplay.ResumeConfig{}); err != nil {
		t.Errorf("ResumeServer at tick 10: %v", err)
	}
}
