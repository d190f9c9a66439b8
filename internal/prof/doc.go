// Package prof turns on the profiling switches of a program built on
// Nebula: a CPU profile, a heap profile written at exit, an execution trace
// and a live net/http/pprof server. It is the code behind the flags
// -cpuprofile, -memprofile, -trace and -pprof, and its errors name those
// flags.
//
// Start does everything that can fail up front, before the program's real
// work begins: it creates (or truncates) each file, so an unwritable path
// is reported at once and not after an hour of play, and it listens on the
// pprof address, so a malformed or taken address is reported at once too.
// Profiler.Stop, usually deferred in the program's run function (never
// skipped by os.Exit or log.Fatal), stops the CPU profile and the trace,
// writes the heap profile after a garbage collection and shuts the server
// down:
//
//	sess, err := prof.Start(prof.Options{
//		CPUProfile: "cpu.prof",
//		PprofAddr:  ":6060", // loopback: http://127.0.0.1:6060/debug/pprof/
//	}, log)
//	if err != nil {
//		return err // "-cpuprofile cpu.prof: cannot create file: permission denied"
//	}
//	defer func() {
//		if serr := sess.Stop(); err == nil {
//			err = serr
//		}
//	}()
//
// # The pprof address
//
// The server is reachable from other machines only when the user says so.
// PprofAddr is host:port, :port or a bare port. An empty host, as in
// ":6060" or "6060", means 127.0.0.1; an explicit host — localhost, an IP
// address such as 0.0.0.0 or a LAN address — is honoured as given. Port 0
// picks a free port; the URL actually served is logged (field url) and
// returned by Profiler.URL. Host names other than localhost are not
// accepted, so a typo such as "1.2.3.4.5:80" is a usage error rather than
// a failed DNS lookup. ParseAddr applies these rules, so a command-line
// parser can report a malformed address as bad usage before Start.
//
// The server has its own http.ServeMux with the handlers of
// net/http/pprof under /debug/pprof/. (Importing net/http/pprof still
// registers them on http.DefaultServeMux too; a program that serves
// DefaultServeMux publicly should know that.)
//
// # Working together
//
// The CPU profile, the execution trace and the engine's hitch capture
// (engine/diag's flight recorder) can all run at the same time; the trace
// then also holds the CPU profile's samples. While -cpuprofile is on, the
// server's /debug/pprof/profile reports that CPU profiling is already in
// use, and while -trace is on, /debug/pprof/trace reports that tracing is
// already enabled: the runtime allows one of each at a time.
package prof
