package desktop

// SetPollHook makes Run call f on every pass of its loop, right after the
// window's events were processed (also while the window is minimised, when
// no frame is drawn): tests deliver simulated window events from there, on
// the main thread.
func SetPollHook(r *Runner, f func()) { r.testHookPoll = f }

// ShotBuffer returns the image Screenshot reads frames into.
func ShotBuffer(r *Runner) any { return r.shot }
