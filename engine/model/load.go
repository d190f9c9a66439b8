package model

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/qmuntal/gltf"
)

// Load reads the glTF 2.0 file at path, a .gltf (JSON, with its buffers
// and images in data URIs or in files beside it) or a .glb (binary), and
// converts it as FromDocument does. Errors name the file and the part of
// it at fault:
//
//	model: arm.glb: mesh 0 (arm) primitive 0: attribute POSITION: accessor 7 does not exist (the file has 5)
func Load(path string) (*Model, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	return decode(data, path, os.DirFS(filepath.Dir(path)), "")
}

// LoadFS is Load reading from fsys (an embed.FS, for instance): the file
// name and the files it refers to, which are looked up beside it.
func LoadFS(fsys fs.FS, name string) (*Model, error) {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	return decode(data, name, fsys, path.Dir(name))
}

// Decode reads a glTF 2.0 file from r: a .glb, or a .gltf whose buffers
// and images are all in data URIs (Decode reads no other file). name names
// the model in messages and becomes Model.Name.
func Decode(r io.Reader, name string) (*Model, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("model: %s: %w", name, err)
	}
	return decode(data, name, nil, "")
}

// FromDocument converts a glTF document, with its buffers' data loaded
// (as gltf.Open leaves them), into a Model named name. It reads no file:
// an image in a file of its own is an error (Load reads it). The document
// is only read.
func FromDocument(doc *gltf.Document, name string) (*Model, error) {
	if doc == nil {
		return nil, fmt.Errorf("model: %s: no document", name)
	}
	return convert(doc, name, nil, "")
}

// glbMagic is "glTF" read as a little-endian uint32; the chunk types
// likewise.
const (
	glbMagic     = 0x46546C67
	glbChunkJSON = 0x4E4F534A
	glbChunkBIN  = 0x004E4942
)

// decode parses a .glb or .gltf file's bytes and converts the document.
// fsys, when not nil, holds the files its URIs name, relative to dir.
func decode(data []byte, name string, fsys fs.FS, dir string) (m *Model, err error) {
	defer func() {
		if r := recover(); r != nil {
			m, err = nil, fmt.Errorf("model: %s: internal error while reading the file (a bug in the loader): %v", name, r)
		}
	}()
	doc, bin, isGLB, err := parseContainer(data)
	if err != nil {
		return nil, fmt.Errorf("model: %s: %w", name, err)
	}
	if err := loadBuffers(doc, bin, isGLB, fsys, dir); err != nil {
		return nil, fmt.Errorf("model: %s: %w", name, err)
	}
	return convert(doc, name, fsys, dir)
}

// parseContainer splits a GLB into its JSON and BIN chunks (or takes the
// whole of a .gltf as JSON) and decodes the JSON.
//
//srccheck:wrapped by decode, as "model: <name>: ..."
func parseContainer(data []byte) (doc *gltf.Document, bin []byte, isGLB bool, err error) {
	jsonText := data
	if len(data) >= 4 && binary.LittleEndian.Uint32(data) == glbMagic {
		isGLB = true
		if jsonText, bin, err = splitGLB(data); err != nil {
			return nil, nil, true, err
		}
	}
	doc = new(gltf.Document)
	if err := json.Unmarshal(jsonText, doc); err != nil {
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			return nil, nil, isGLB, fmt.Errorf("not glTF: JSON: %v (byte %d)", err, syntax.Offset)
		}
		return nil, nil, isGLB, fmt.Errorf("not glTF: JSON: %v", err)
	}
	return doc, bin, isGLB, nil
}

// splitGLB returns the JSON and BIN chunks of a GLB file (bin is nil when
// there is none).
//
//srccheck:wrapped by decode, as "model: <name>: ..."
func splitGLB(data []byte) (jsonText, bin []byte, err error) {
	if len(data) < 12 {
		return nil, nil, fmt.Errorf("truncated: %d bytes, a GLB header has 12", len(data))
	}
	if v := binary.LittleEndian.Uint32(data[4:]); v != 2 {
		return nil, nil, fmt.Errorf("GLB version %d, only 2 is read", v)
	}
	length := uint64(binary.LittleEndian.Uint32(data[8:]))
	if length > uint64(len(data)) {
		return nil, nil, fmt.Errorf("truncated: the GLB header says %d bytes, the file has %d", length, len(data))
	}
	data = data[:length]
	off := uint64(12)
	for chunk := 0; off < length; chunk++ {
		if length-off < 8 {
			return nil, nil, fmt.Errorf("truncated: chunk %d's header at byte %d, the GLB has %d bytes", chunk, off, length)
		}
		n := uint64(binary.LittleEndian.Uint32(data[off:]))
		typ := binary.LittleEndian.Uint32(data[off+4:])
		start := off + 8
		if n > length-start {
			return nil, nil, fmt.Errorf("truncated: chunk %d (%s) ends at byte %d, the GLB has %d bytes",
				chunk, chunkName(typ), start+n, length)
		}
		body := data[start : start+n]
		switch {
		case chunk == 0 && typ != glbChunkJSON:
			return nil, nil, fmt.Errorf("GLB: the first chunk is %s, not JSON", chunkName(typ))
		case chunk == 0:
			jsonText = body
		case chunk == 1 && typ == glbChunkBIN:
			bin = body
		}
		off = start + n
	}
	if jsonText == nil {
		return nil, nil, errors.New("truncated: the GLB has no JSON chunk")
	}
	return jsonText, bin, nil
}

func chunkName(typ uint32) string {
	switch typ {
	case glbChunkJSON:
		return "JSON"
	case glbChunkBIN:
		return "BIN"
	}
	return fmt.Sprintf("of type 0x%08x", typ)
}

// loadBuffers fills every buffer's Data: a GLB's first buffer without a
// URI from the BIN chunk, the others from data URIs or files.
//
//srccheck:wrapped by decode, as "model: <name>: ..."
func loadBuffers(doc *gltf.Document, bin []byte, isGLB bool, fsys fs.FS, dir string) error {
	for i, b := range doc.Buffers {
		if b == nil {
			return fmt.Errorf("buffer %d is null", i)
		}
		if b.ByteLength < 1 {
			return fmt.Errorf("buffer %d: byteLength %d, at least 1", i, b.ByteLength)
		}
		var data []byte
		switch {
		case b.URI == "" && i == 0 && isGLB:
			if bin == nil {
				return errors.New("buffer 0: the GLB has no BIN chunk")
			}
			if len(bin) < b.ByteLength {
				return fmt.Errorf("truncated: buffer 0 has %d bytes, its byteLength says %d", len(bin), b.ByteLength)
			}
			data = bin
		case b.URI == "":
			return fmt.Errorf("buffer %d has no uri", i)
		default:
			var err error
			if data, err = readURI(b.URI, fsys, dir); err != nil {
				return fmt.Errorf("buffer %d: %w", i, err)
			}
			if len(data) < b.ByteLength {
				return fmt.Errorf("buffer %d: uri %s has %d bytes, its byteLength says %d", i, shortURI(b.URI), len(data), b.ByteLength)
			}
		}
		b.Data = data[:b.ByteLength:b.ByteLength]
	}
	return nil
}

// readURI returns the bytes a URI names: a base64 data URI's, or a file's
// in fsys relative to dir.
//
//srccheck:wrapped by decode and the converter, as "model: <name>: ..."
func readURI(uri string, fsys fs.FS, dir string) ([]byte, error) {
	if strings.HasPrefix(uri, "data:") {
		comma := strings.IndexByte(uri, ',')
		if comma < 0 || !strings.HasSuffix(uri[:comma], ";base64") {
			return nil, fmt.Errorf("uri %s: only base64 data URIs are read", shortURI(uri))
		}
		data, err := base64.StdEncoding.DecodeString(uri[comma+1:])
		if err != nil {
			return nil, fmt.Errorf("uri %s: %v", shortURI(uri), err)
		}
		return data, nil
	}
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "" || u.Host != "" {
		return nil, fmt.Errorf("uri %s: only data URIs and file names relative to the model are read", shortURI(uri))
	}
	name, err := url.PathUnescape(u.Path)
	if err != nil {
		return nil, fmt.Errorf("uri %s: %v", shortURI(uri), err)
	}
	name = path.Join(dir, name)
	if !fs.ValidPath(name) {
		return nil, fmt.Errorf("uri %s: not a file beside the model", shortURI(uri))
	}
	if fsys == nil {
		return nil, fmt.Errorf("missing (uri %s: Decode and FromDocument read no files; use Load)", shortURI(uri))
	}
	data, err := fs.ReadFile(fsys, name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("missing (uri %s not found)", shortURI(uri))
	}
	if err != nil {
		return nil, fmt.Errorf("uri %s: %v", shortURI(uri), err)
	}
	return data, nil
}

// shortURI quotes a URI for a message, cutting a long data URI.
func shortURI(uri string) string {
	if len(uri) > 64 {
		return fmt.Sprintf("%q", uri[:48]+"...")
	}
	return fmt.Sprintf("%q", uri)
}
