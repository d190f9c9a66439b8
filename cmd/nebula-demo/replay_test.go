package main

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/replay"
)

// runArgs runs the demo in-process and returns its status, stdout and
// stderr.
func runArgs(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// recordHeadless records a headless run of the demo and returns the file.
func recordHeadless(t *testing.T, dir string, args ...string) string {
	t.Helper()
	path := filepath.Join(dir, "r.rep")
	args = append([]string{"-headless", "-record", path, "-log-level", "error"}, args...)
	if code, _, stderr := runArgs(t, args...); code != 0 {
		t.Fatalf("recording: status %d: %s", code, stderr)
	}
	return path
}

func TestRecordThenVerify(t *testing.T) {
	dir := t.TempDir()
	path := recordHeadless(t, dir, "-ticks", "600", "-entities", "50", "-seed", "3", "-print-hash")
	code, stdout, stderr := runArgs(t, "-replay", path, "-headless", "-verify", "-print-hash", "-log-level", "error")
	if code != 0 {
		t.Fatalf("status %d: %s", code, stderr)
	}
	_, want, _ := runArgs(t, "-headless", "-ticks", "600", "-entities", "50", "-seed", "3", "-print-hash", "-log-level", "error")
	if stdout != "replay ok 600\n"+want {
		t.Errorf("stdout %q, want %q", stdout, "replay ok 600\n"+want)
	}
	// The flags the file fixes may be repeated with the same values.
	if code, stdout, stderr := runArgs(t, "-replay", path, "-headless", "-verify", "-entities", "50", "-seed", "3", "-log-level", "error"); code != 0 || stdout != "replay ok 600\n" {
		t.Errorf("with matching flags: status %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// rewriteHeader changes a field of a recording's header and fixes the
// header's CRC, so that only the field is wrong.
func rewriteHeader(t *testing.T, data []byte, edit func(fields []byte) []byte) []byte {
	t.Helper()
	n := int(binary.LittleEndian.Uint32(data[10:]))
	fields := edit(bytes.Clone(data[14 : 14+n]))
	out := append([]byte{}, data[:10]...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(fields)))
	out = append(out, fields...)
	out = binary.LittleEndian.AppendUint32(out, crc32.ChecksumIEEE(out))
	return append(out, data[14+n+4:]...)
}

// schemaAt returns where the schema starts in a header's fields: after
// the 18 fixed bytes, the scene and the game's parameters.
func schemaAt(fields []byte) int {
	at := 18 + int(fields[17])
	n, k := binary.Uvarint(fields[at:])
	return at + k + int(n)
}

// editSchema rewrites the schema at the end of a header's fields.
func editSchema(t *testing.T, fields []byte, edit func(engine.Schema) engine.Schema) []byte {
	t.Helper()
	at := schemaAt(fields)
	s, _, err := engine.ParseSchema(fields[at:])
	if err != nil {
		t.Fatal(err)
	}
	return engine.AppendSchema(fields[:at:at], edit(s))
}

// Bad replay files end with status 1 and one line that says what is wrong
// and where, never a panic.
func TestBadReplayFiles(t *testing.T) {
	dir := t.TempDir()
	path := recordHeadless(t, dir, "-ticks", "300", "-entities", "20")
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := replay.Open(good); err != nil {
		t.Fatal(err)
	}
	hdrLen := 14 + int(binary.LittleEndian.Uint32(good[10:])) + 4
	flip := bytes.Clone(good)
	flip[hdrLen+20] ^= 0x40 // inside the first chunk's payload
	magic := bytes.Clone(good)
	copy(magic, "NOTNEBUL")
	newer := bytes.Clone(good)
	binary.LittleEndian.PutUint16(newer[8:], replay.Version+1)
	older := bytes.Clone(good)
	binary.LittleEndian.PutUint16(older[8:], 1)
	version2 := bytes.Clone(good)
	binary.LittleEndian.PutUint16(version2[8:], 2)
	otherScene := rewriteHeader(t, good, func(f []byte) []byte {
		rest := bytes.Clone(f[18+int(f[17]):]) // the parameters and the schema
		return append(append(f[:17], byte(len("other-game"))), append([]byte("other-game"), rest...)...)
	})
	version3 := bytes.Clone(good)
	binary.LittleEndian.PutUint16(version3[8:], 3)
	otherType := rewriteHeader(t, good, func(f []byte) []byte {
		return editSchema(t, f, func(s engine.Schema) engine.Schema {
			s[0].Type = "float32"
			return s
		})
	})
	extra := rewriteHeader(t, good, func(f []byte) []byte {
		return editSchema(t, f, func(s engine.Schema) engine.Schema {
			return append(s, engine.SchemaEntry{Kind: "resource", Name: "ammo", Type: "uint16", Size: 2})
		})
	})
	tests := []struct {
		name string
		data []byte
		args []string
		want string // a regexp for the one line
	}{
		{"truncated mid-chunk", good[:len(good)/2], nil, `^nebula-demo: replay \S+: chunk \d+, byte \d+, field chunk payload: truncated: the file ends after \d+ of \d+ bytes \(a run that was killed leaves such a file: -partial plays its whole chunks\)$`},
		{"truncated after a chunk", good[:hdrLen], nil, `^nebula-demo: replay \S+: chunk 0, byte \d+, field chunk type: truncated: the file ends after 0 records without an end chunk \(the recording was cut short\) \(a run that was killed leaves such a file: -partial plays its whole chunks\)$`},
		{"empty", nil, nil, `^nebula-demo: replay \S+: header, byte 0, field magic: truncated: the file ends after 0 of 8 bytes$`},
		{"flipped byte", flip, nil, `^nebula-demo: replay \S+: chunk 0, byte \d+, field chunk CRC: checksum mismatch: stored [0-9a-f]{8}, computed [0-9a-f]{8} over bytes \d+ to \d+$`},
		{"wrong magic", magic, nil, `^nebula-demo: replay \S+: header, byte 0, field magic: not a Nebula replay: magic "NOTNEBUL", want "NEBREPLY"$`},
		{"newer version", newer, nil, `^nebula-demo: replay \S+: header, byte 8, field version: unsupported format version: version 7 is newer than this build reads \(6\); replay it with a newer nebula$`},
		{"older version", older, nil, `^nebula-demo: replay \S+: header, byte 8, field version: unsupported format version: version 1, written by an older build of Nebula \(before components and resources\); this build reads versions 4 to 6$`},
		{"version 2", version2, nil, `^nebula-demo: replay \S+: header, byte 8, field version: unsupported format version: version 2, written by an older build of Nebula \(before players\); this build reads versions 4 to 6$`},
		{"version 3", version3, nil, `^nebula-demo: replay \S+: header, byte 8, field version: unsupported format version: version 3, written by an older build of Nebula \(before game parameters\); this build reads versions 4 to 6$`},
		{"other component type", otherType, nil, `^nebula-demo: replay \S+: recorded with component "bounces" float32, this program has "bounces" uint32 \(entry 1 of the schema\)$`},
		{"extra resource", extra, nil, `^nebula-demo: replay \S+: recorded with resource "ammo" uint16, which this program does not register \(it has 9 components and resources, the recording 10\)$`},
		{"other scene", otherScene, nil, `^nebula-demo: replay \S+: header field scene: recorded with scene "other-game", this program plays "nebula-demo/cubes"$`},
		{"other entity count", good, []string{"-entities", "30"}, `^nebula-demo: replay \S+: header field entities: the recording has 20, but -entities 30 was given \(leave the flag out: a replay takes it from the file\)$`},
		{"other seed", good, []string{"-seed", "9"}, `^nebula-demo: replay \S+: header field seed: the recording has 1, but -seed 9 was given`},
		{"trailing bytes", append(bytes.Clone(good), 0), nil, `^nebula-demo: replay \S+: chunk \d+, byte \d+, field after the end chunk: invalid value: 1 bytes follow the end chunk$`},
		{"missing file", nil, []string{"missing"}, `^nebula-demo: cannot replay: stat \S+: no such file or directory$`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".rep")
			args := tc.args
			if len(args) == 1 && args[0] == "missing" {
				args = nil
			} else if err := os.WriteFile(p, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr := runArgs(t, append([]string{"-replay", p, "-headless", "-verify", "-log-level", "error"}, args...)...)
			if code != 1 {
				t.Errorf("status %d, want 1", code)
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
			if strings.Count(stderr, "\n") != 1 || !regexp.MustCompile(tc.want).MatchString(strings.TrimSuffix(stderr, "\n")) {
				t.Errorf("stderr %q\nwant one line matching %s", stderr, tc.want)
			}
		})
	}
}

func TestReplayUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-verify"}, "nebula-demo: -verify needs -replay and -headless"},
		{[]string{"-replay", "r", "-verify"}, "nebula-demo: -verify needs -replay and -headless"},
		{[]string{"-replay", "r", "-headless"}, "nebula-demo: -replay with -headless needs -verify (a headless replay only checks the recording)"},
		{[]string{"-replay", "r", "-record", "s"}, "nebula-demo: -record and -replay exclude each other (a replay is already a recording)"},
		{[]string{"-replay", "r", "-headless", "-verify", "-ticks", "5"}, "nebula-demo: -ticks conflicts with -replay (a replay runs its recording's ticks)"},
		{[]string{"-partial"}, "nebula-demo: -partial needs -replay"},
		{[]string{"-replay", "r", "-panic-at-tick", "5"}, "nebula-demo: -panic-at-tick conflicts with -replay (the recording says where a panic was injected)"},
	} {
		code, _, stderr := runArgs(t, tc.args...)
		if code != 2 || stderr != tc.want+"\n" {
			t.Errorf("%v: status %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

// A panic injected at a chosen tick is recovered, logged once with the
// tick, the system and the stack, leaves a crash replay (without -record)
// and ends the demo with status 1 and one line; replaying the crash replay
// reproduces the panic at the same tick.
func TestCrashReplayReproducesThePanic(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := runArgs(t, "-headless", "-ticks", "1000", "-entities", "30", "-panic-at-tick", "321", "-crash-dir", dir, "-log-level", "error")
	if code != 1 {
		t.Fatalf("status %d, want 1: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	if n := strings.Count(stderr, `msg="a system panicked"`); n != 1 {
		t.Errorf("the panic is logged %d times, want once:\n%s", n, stderr)
	}
	for _, want := range []string{"tick=321", "system=crash-test", "stack=", "scene.(*Scene).crashTest"} {
		if !strings.Contains(lines[0], want) {
			t.Errorf("the log line lacks %q: %s", want, lines[0])
		}
	}
	last := lines[len(lines)-1]
	m := regexp.MustCompile(`^nebula-demo: system "crash-test" \(fixed\) panicked at tick 321: injected panic at tick 321 \(-panic-at-tick\); crash replay saved to (\S+) \(reproduce it with -replay \S+ -headless -verify\)$`).FindStringSubmatch(last)
	if m == nil {
		t.Fatalf("last line %q", last)
	}
	crash := m[1]
	if filepath.Dir(crash) != dir {
		t.Errorf("crash replay %s is not in -crash-dir %s", crash, dir)
	}
	code, stdout, stderr := runArgs(t, "-replay", crash, "-headless", "-verify", "-log-level", "fatal")
	want := `nebula-demo: replay ` + crash + ` reproduced the recorded panic: system "crash-test" (fixed) panicked at tick 321: injected panic at tick 321 (-panic-at-tick)` + "\n"
	if code != 1 || stdout != "" || stderr != want {
		t.Errorf("replaying the crash: status %d, stdout %q, stderr %q\nwant status 1 and %q", code, stdout, stderr, want)
	}
}

// A recording run that is killed leaves a file without its end chunk: the
// recorder writes a chunk every second of simulated time, so only the last
// second is lost. -replay refuses the file as cut short and says what to
// do; with -partial it verifies the whole chunks.
func TestKilledRecordingVerifiesWithPartial(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "killed.rep")
	// A headless run of a day of ticks, killed once the file has grown.
	cmd := exec.Command(demoBinary(t), "-headless", "-ticks", "5184000", "-entities", "50", "-record", path, "-log-level", "error")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		if st, err := os.Stat(path); err == nil && st.Size() > 20000 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the recording did not grow past 20000 bytes within 20 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()

	code, _, stderr := runArgs(t, "-replay", path, "-headless", "-verify", "-log-level", "error")
	if code != 1 || !strings.Contains(stderr, "truncated") || !strings.Contains(stderr, "-partial") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("without -partial: status %d, stderr %q; want 1 and one line saying the file is cut short and naming -partial", code, stderr)
	}
	code, stdout, stderr := runArgs(t, "-replay", path, "-headless", "-verify", "-partial", "-log-level", "error")
	m := regexp.MustCompile(`^replay ok (\d+)\n$`).FindStringSubmatch(stdout)
	if code != 0 || m == nil {
		t.Fatalf("with -partial: status %d, stdout %q, stderr %q; want replay ok", code, stdout, stderr)
	}
	ticks, _ := strconv.Atoi(m[1])
	if ticks < 60 || ticks%60 != 0 {
		t.Errorf("verified %d ticks, want whole seconds (chunks) of 60", ticks)
	}
	t.Logf("killed recording: %d ticks verified", ticks)
}
