package binread

import (
	"errors"
	"testing"
)

func TestFirstFaultKept(t *testing.T) {
	r := New([]byte{1, 2, 0, 3, 0, 0, 0})
	if v := r.U8("a"); v != 1 {
		t.Fatalf("U8 = %d, want 1", v)
	}
	if v := r.U16("b"); v != 2 {
		t.Fatalf("U16 = %d, want 2", v)
	}
	if v := r.U64("c"); v != 0 {
		t.Fatalf("U64 past the end = %d, want 0", v)
	}
	r.Fail("d", errors.New("later"))
	if v := r.U8("e"); v != 0 || r.Offset() != 3 {
		t.Fatalf("U8 after a fault = %d at %d, want 0 at 3", v, r.Offset())
	}
	err := r.Err()
	if err == nil || err.Error() != "byte 3, field c: truncated: needs 8 bytes, 4 left" {
		t.Fatalf("Err = %v", err)
	}
	if !errors.Is(err, ErrTruncated) {
		t.Fatalf("Err = %v, want ErrTruncated wrapped", err)
	}
}

func TestCountBeforeAllocating(t *testing.T) {
	for _, tc := range []struct {
		in   []byte
		max  int
		want string
	}{
		{[]byte{5, 0, 0, 0}, 4, "byte 0, field n: 5 entries, at most 4 allowed"},
		{[]byte{2, 0, 0, 0, 1, 2, 3}, 4, "byte 0, field n: truncated: 2 entries of 2 bytes, 3 bytes left"},
		{[]byte{0xff, 0xff, 0xff, 0x7f}, 1<<31 - 1, "byte 0, field n: truncated: 2147483647 entries of 2 bytes, 0 bytes left"},
	} {
		r := New(tc.in)
		if n := r.Count("n", tc.max, 2); n != 0 || r.Err() == nil || r.Err().Error() != tc.want {
			t.Errorf("Count(% x) = %d, %v; want 0, %s", tc.in, n, r.Err(), tc.want)
		}
	}
	r := New([]byte{2, 0, 0, 0, 1, 2, 3, 4})
	if n := r.Count("n", 2, 2); n != 2 || r.Err() != nil {
		t.Errorf("Count = %d, %v; want 2, nil", n, r.Err())
	}
}

func TestLimitAndUvarint(t *testing.T) {
	r := New([]byte{0xac, 0x02, 0x80, 9, 9})
	r.Limit(3)
	if v := r.Uvarint("v"); v != 300 {
		t.Fatalf("Uvarint = %d, want 300", v)
	}
	r.Uvarint("w")
	var s *ShortError
	if err := r.Err(); err == nil || err.Offset != 2 || !errors.As(err, &s) || !s.Varint || !s.Limited {
		t.Fatalf("Err = %v (%+v), want a varint cut by the limit at byte 2", err, s)
	}

	r = New([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	r.Uvarint("big")
	if err := r.Err(); err == nil || !errors.Is(err, ErrOverflow) || err.Offset != 0 {
		t.Fatalf("Err = %v, want ErrOverflow at byte 0", err)
	}
}

func TestFailAt(t *testing.T) {
	r := New([]byte{7, 0})
	at := r.Offset()
	if v := r.U16("kind"); v == 7 {
		r.FailAt(at, "kind", errors.New("kind 7 is unknown"))
	}
	if err := r.Err(); err == nil || err.Error() != "byte 0, field kind: kind 7 is unknown" {
		t.Fatalf("Err = %v", err)
	}
}

func TestPeek(t *testing.T) {
	r := New([]byte{1, 2, 3})
	if s := r.Peek("p", 3); len(s) != 3 || r.Offset() != 0 {
		t.Fatalf("Peek = % x at %d, want 3 bytes at 0", s, r.Offset())
	}
	if s := r.Peek("p", 4); s != nil || r.Err() == nil || r.Err().Error() != "byte 0, field p: truncated: needs 4 bytes, 3 left" {
		t.Fatalf("Peek past the end = % x, %v", s, r.Err())
	}
}
