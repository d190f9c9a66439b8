package main

// netKeyOff reports, and logs, that a key that would change the
// simulation outside the confirmed inputs (what) is off in a networked
// window.
func netKeyOff(d *windowDemo, what string) bool {
	if d.s.Net() == nil {
		return false
	}
	d.log.Info(what + " is off in a networked match (every peer must simulate the same ticks)")
	return true
}
