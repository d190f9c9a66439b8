//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package platformtest

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// LockInput makes the test the only one, among all the test processes using
// this display, that opens visible windows and drives input until it ends.
// A display's pointer, keyboard focus and XTEST keys are shared by every
// client: go test runs the packages' test binaries in parallel, and a
// visible window opened by one takes the focus from another's, a pointer
// moved by one sends motion to another's window. Call it before opening the
// window; it is released when the test ends, after the window has closed
// (cleanups run last-registered first). Within one process it is
// reentrant: a test may take it again (for a second window), and it does
// not serialise parallel tests of the same binary.
func LockInput(t testing.TB) {
	t.Helper()
	inputLock.Lock()
	defer inputLock.Unlock()
	if inputLock.held == 0 {
		display := strings.NewReplacer("/", "_", ":", "_").Replace(os.Getenv("DISPLAY"))
		path := filepath.Join(os.TempDir(), "nebula-test-input"+display+".lock")
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o666)
		if err != nil {
			t.Fatalf("platformtest: input lock: %v", err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
			f.Close()
			t.Fatalf("platformtest: input lock %s: %v", path, err)
		}
		inputLock.f = f
	}
	inputLock.held++
	t.Cleanup(func() {
		inputLock.Lock()
		defer inputLock.Unlock()
		if inputLock.held--; inputLock.held == 0 {
			_ = syscall.Flock(int(inputLock.f.Fd()), syscall.LOCK_UN)
			inputLock.f.Close()
			inputLock.f = nil
		}
	})
}

// inputLock is this process's hold on the display's input lock file.
var inputLock struct {
	sync.Mutex
	f    *os.File
	held int
}
