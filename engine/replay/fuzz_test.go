package replay

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/nebulaengine/nebula/engine"
)

// fuzzSeeds are small valid recordings: a run with jobs and hashes, a
// crash, a four-player match with joins and leaves, and the same match as
// format version 4 wrote it.
func fuzzSeeds(t testing.TB) [][]byte {
	ok, _ := record(t, engine.JobsDeterministic, 130, 0)
	crash, _ := record(t, engine.JobsDeterministic, 130, 65)
	match, _, _ := recordMatch(t)
	v4, err := os.ReadFile(v4Match)
	if err != nil {
		t.Fatal(err)
	}
	return [][]byte{ok, crash, match, v4}
}

// FuzzOpen feeds Open arbitrary bytes: it must return a *FormatError or a
// Replay, never panic; and a file it accepts must replay (agreeing or
// diverging) without panicking. The seed corpus is in
// testdata/fuzz/FuzzOpen (write it again with NEBULA_WRITE_FUZZ_SEEDS=1).
func FuzzOpen(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Add([]byte(Magic))
	f.Fuzz(func(t *testing.T, data []byte) {
		// OpenIncomplete takes what Open takes, and more: the whole chunks
		// of a file cut short.
		r, err := OpenIncomplete(data)
		if _, oerr := Open(data); oerr == nil && err != nil {
			t.Fatalf("Open accepts the file, OpenIncomplete refuses it: %v", err)
		}
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("OpenIncomplete returned %T %v, want a *FormatError", err, err)
			}
			return
		}
		if r.Records() > 5000 {
			return // valid but long: replaying it proves nothing more
		}
		s := newTestScene(t, r.Header.Seed, 5, engine.JobsDeterministic)
		_, _ = Verify(s.e, r)
	})
}

func TestWriteFuzzSeeds(t *testing.T) {
	if os.Getenv("NEBULA_WRITE_FUZZ_SEEDS") != "1" {
		t.Skip("set NEBULA_WRITE_FUZZ_SEEDS=1 to write the seed corpus")
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzOpen")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	seeds := fuzzSeeds(t)
	// Damaged versions of the first: cut short, one byte flipped.
	flipped := append([]byte{}, seeds[0]...)
	flipped[len(flipped)/2] ^= 1
	seeds = append(seeds, seeds[0][:len(seeds[0])*2/3], flipped)
	for i, s := range seeds {
		body := "go test fuzz v1\n[]byte(" + strconv.Quote(string(s)) + ")\n"
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("seed-%d", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// FuzzTornTail cuts a recording with checkpoints (a match log) at any
// byte and appends any bytes, as a crash may leave a log: OpenIncomplete
// must keep every whole chunk before the cut and replay them to their
// recorded hashes, and refuse the file only when the appended bytes hold
// a whole chunk (damage that whole chunks follow is not a torn tail).
func FuzzTornTail(f *testing.F) {
	data, _ := recordSeats(f, 240, 0)
	ends := chunkEnds(f, data)
	f.Add(uint32(ends[2]), []byte{})
	f.Add(uint32(ends[2]+7), []byte{0, 0, 0})
	f.Add(uint32(ends[1]), make([]byte, 64))
	f.Add(uint32(len(data)-5), []byte("T\x10\x00\x00\x00garbage"))
	f.Fuzz(func(t *testing.T, cut uint32, tail []byte) {
		if len(tail) > 512 {
			return
		}
		c := int(cut) % (len(data) + 1)
		file := append(append([]byte(nil), data[:c]...), tail...)
		r, err := OpenIncomplete(file)
		// The ticks of the whole chunks before the cut.
		var whole uint64
		d := newDecoder(file)
		if d.header(new(Header)) != nil {
			return // the header itself is cut: refused, rightly
		}
		for off := d.r.Offset(); ; {
			end, _, ok := wholeFrame(file, off)
			if !ok || end > c {
				break
			}
			off = end
			whole = uint64(end) // a marker: some whole chunk is kept
		}
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("OpenIncomplete returned %T %v, want a *FormatError", err, err)
			}
			for i := range tail {
				if _, _, ok := wholeFrame(file, c+i); ok {
					return // the tail holds a whole chunk: damage, not a tear
				}
			}
			t.Fatalf("a file cut at byte %d with %d bytes after it refused: %v", c, len(tail), err)
		}
		if whole > 0 && r.Records() == 0 {
			t.Fatalf("whole chunks before byte %d, no record kept", c)
		}
		s := newTestScene(t, 7, 50, engine.JobsDeterministic)
		if _, err := Verify(s.e, r); err != nil {
			t.Fatalf("the kept records do not verify: %v", err)
		}
	})
}
