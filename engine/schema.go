package engine

import (
	"encoding/binary"
	"fmt"
	"slices"
	"unicode"
	"unicode/utf8"

	"github.com/zeebo/xxh3"

	"github.com/nebulaengine/nebula/internal/binread"
)

// SchemaEntry describes one registered component or resource.
type SchemaEntry struct {
	Kind string // "component" or "resource"
	Name string // the name it was registered under
	Type string // its Go type
	// Size is the number of bytes of one value's exact bits, or -1 for a
	// variable-size type that encodes itself (encoding.BinaryAppender).
	Size int
	// Shape is a hash of the type's fields' types, in order (not their
	// names): two types of the same name and size whose values encode
	// differently have different shapes.
	Shape uint64
}

// String formats the entry as in messages: component "health" int32.
func (s SchemaEntry) String() string {
	if s.Size < 0 {
		return fmt.Sprintf("%s %q %s (variable size)", s.Kind, s.Name, s.Type)
	}
	return fmt.Sprintf("%s %q %s", s.Kind, s.Name, s.Type)
}

// Schema lists a world's components and resources in registration order.
// A snapshot or a replay records the schema of the world it was made from,
// and is refused by a world with another one.
type Schema []SchemaEntry

// Fingerprint returns a hash of the schema: two schemas with the same
// entries in the same order have the same fingerprint.
func (s Schema) Fingerprint() uint64 {
	var b []byte
	for _, e := range s {
		b = appendSchemaEntry(b, e)
	}
	return xxh3.Hash(b)
}

// Compare returns nil when s and other are the same, or an error naming
// their first difference, with s as the recorded schema and other as this
// program's: "recorded with component "health" int32, this program has
// "health" float32".
//
//srccheck:wrapped by its callers: Restore (engine: snapshot: ...) and replay.SchemaError (replay: ...), which also print it to the user after the file name
func (s Schema) Compare(other Schema) error {
	for i := range max(len(s), len(other)) {
		switch {
		case i >= len(s):
			return fmt.Errorf("this program registers %v, which the recording does not have (it has %d components and resources, this program %d)", other[i], len(s), len(other))
		case i >= len(other):
			return fmt.Errorf("recorded with %v, which this program does not register (it has %d components and resources, the recording %d)", s[i], len(other), len(s))
		case s[i] == other[i]:
			continue
		}
		rec, cur := s[i], other[i]
		what := fmt.Sprintf("%q %s", cur.Name, cur.Type)
		if cur.Kind != rec.Kind {
			what = cur.Kind + " " + what
		}
		if cur.Type == rec.Type && cur.Size != rec.Size {
			return fmt.Errorf("recorded with %v of %d bytes, this program has %s of %d bytes", rec, rec.Size, what, cur.Size)
		}
		if cur.Type == rec.Type && cur.Kind == rec.Kind && cur.Name == rec.Name {
			return fmt.Errorf("recorded with %v, this program has %s whose fields have other types (shape %016x, recorded %016x)", rec, what, cur.Shape, rec.Shape)
		}
		if cur.Size < 0 {
			what += " (variable size)"
		}
		return fmt.Errorf("recorded with %v, this program has %s (entry %d of the schema)", rec, what, i+1)
	}
	return nil
}

// Limits of a schema, so that a snapshot or replay header stays bounded.
const (
	MaxColumns    = 1024 // components and resources in one world
	MaxColumnName = 64   // bytes of a component's or resource's name
	maxTypeName   = 255  // bytes of a type's name in a schema
)

// Schema returns the world's components and resources in registration
// order.
func (w *World) Schema() Schema { return slices.Clone(w.schema) }

// appendSchemaEntry appends e's portable encoding (snapshots, replays):
// kind byte (0 component, 1 resource), name and type as a length byte and
// bytes, size as int32, shape as uint64.
func appendSchemaEntry(b []byte, e SchemaEntry) []byte {
	k := byte(0)
	if e.Kind == "resource" {
		k = 1
	}
	b = append(b, k, byte(len(e.Name)))
	b = append(b, e.Name...)
	b = append(b, byte(len(e.Type)))
	b = append(b, e.Type...)
	b = binary.LittleEndian.AppendUint32(b, uint32(int32(e.Size)))
	return binary.LittleEndian.AppendUint64(b, e.Shape)
}

// AppendSchema appends the portable encoding of s to b: the number of
// entries (uint16), then for each its kind (uint8: 0 component, 1
// resource), name and type (a length byte and the bytes), size (int32,
// -1 for variable-size values) and shape (uint64). Snapshots and replay headers carry it.
func AppendSchema(b []byte, s Schema) []byte {
	b = append(b, byte(len(s)), byte(len(s)>>8))
	for _, e := range s {
		b = appendSchemaEntry(b, e)
	}
	return b
}

// ParseSchema reads a schema AppendSchema wrote at the start of b and
// returns it with the number of bytes it took.
func ParseSchema(b []byte) (Schema, int, error) {
	r := binread.New(b)
	s := readSchema(&r, "schema")
	if err := r.Err(); err != nil {
		return nil, 0, fmt.Errorf("engine: schema: byte %d: %w", err.Offset, err.Err)
	}
	return s, r.Offset(), nil
}

// readSchema reads a schema (see AppendSchema), checking every entry.
func readSchema(r *binread.Reader, field string) Schema {
	n := int(r.U16(field))
	if r.Err() != nil {
		return nil
	}
	if n > MaxColumns {
		r.Fail(field, fmt.Errorf("%d entries, at most %d allowed", n, MaxColumns))
		return nil
	}
	s := make(Schema, 0, min(n, r.Left()/7))
	for range n {
		var e SchemaEntry
		switch k := r.U8(field); {
		case r.Err() != nil:
			return nil
		case k > 1:
			r.Fail(field, fmt.Errorf("entry %d has kind %d (0 component, 1 resource)", len(s), k))
			return nil
		case k == 0:
			e.Kind = "component"
		default:
			e.Kind = "resource"
		}
		at := r.Offset()
		e.Name = string(r.Take(field, int(r.U8(field))))
		e.Type = string(r.Take(field, int(r.U8(field))))
		e.Size = int(int32(r.U32(field)))
		e.Shape = r.U64(field)
		switch {
		case r.Err() != nil:
			return nil
		case !printable(e.Name) || !printable(e.Type) || e.Name == "" || e.Type == "":
			r.FailAt(at, field, fmt.Errorf("entry %d has name %q and type %q (non-empty printable text wanted)", len(s), e.Name, e.Type))
			return nil
		case e.Size < -1:
			r.FailAt(at, field, fmt.Errorf("entry %d (%q) has size %d (-1 or more wanted)", len(s), e.Name, e.Size))
			return nil
		}
		s = append(s, e)
	}
	return s
}

// printable reports whether s is valid UTF-8 without control characters.
func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, c := range s {
		if !unicode.IsPrint(c) {
			return false
		}
	}
	return true
}
