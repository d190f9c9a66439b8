package netplay

import (
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	"github.com/sirupsen/logrus/hooks/test"
)

// A burst of info lines of a kind gives one line at once, a debug line
// for each held back, and, once the burst is a second old, a summary
// that counts them: not at the next line of the kind, which may come
// much later.
func TestRateLogSummarisesABurstASecondLater(t *testing.T) {
	log, hook := test.NewNullLogger()
	log.SetLevel(logrus.DebugLevel)
	l := newRateLog(log)
	now := time.Unix(1000, 0)
	l.now = func() time.Time { return now }
	for i := range 5 {
		l.info("joined", logrus.Fields{"conn": i}, "client joined the running match")
		now = now.Add(100 * time.Millisecond)
	}
	levels := func() (info, debug int) {
		for _, e := range hook.AllEntries() {
			switch e.Level {
			case logrus.InfoLevel:
				info++
			case logrus.DebugLevel:
				debug++
			}
		}
		return info, debug
	}
	if info, debug := levels(); info != 1 || debug != 4 {
		t.Fatalf("after a burst of 5: %d info lines and %d debug lines, want 1 and 4", info, debug)
	}
	l.flushDue() // the first line is 0.5 s old: not yet
	if info, _ := levels(); info != 1 {
		t.Fatalf("a summary before the second was over: %d info lines", info)
	}
	now = now.Add(600 * time.Millisecond)
	l.flushDue()
	last := hook.LastEntry()
	if info, _ := levels(); info != 2 || last.Data["summary"] != true || last.Data["repeats"] != 4 || last.Data["kind"] != "joined" {
		t.Fatalf("a second after the burst: %d info lines, the last %v; want the summary of kind joined with repeats 4", info, last.Data)
	}
	l.flush()
	if info, _ := levels(); info != 2 {
		t.Errorf("flush logged again what flushDue summarised: %d info lines", info)
	}
}
