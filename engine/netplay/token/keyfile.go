package token

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
)

// keyPrefix starts a key file's one line; the key follows in hex.
const keyPrefix = "nebula-token-key-v1 "

// GenerateKey returns a new random Key, from crypto/rand.
func GenerateKey() (Key, error) {
	var k Key
	if _, err := rand.Read(k[:]); err != nil {
		return k, fmt.Errorf("token: no randomness: %w", err)
	}
	return k, nil
}

// FormatKey returns a key file's contents: one line,
// "nebula-token-key-v1 " and the key's 64 hex digits.
func FormatKey(k Key) []byte {
	b := append([]byte(keyPrefix), hex.EncodeToString(k[:])...)
	return append(b, '\n')
}

// ParseKey reads a key file's contents (FormatKey's form; white space
// around the line is ignored).
func ParseKey(b []byte) (Key, error) {
	var k Key
	b = bytes.TrimSpace(b)
	rest, ok := bytes.CutPrefix(b, []byte(keyPrefix))
	if !ok {
		return k, fmt.Errorf("token: not a key file: it must start with %q", keyPrefix)
	}
	if len(rest) != 2*KeySize {
		return k, fmt.Errorf("token: the key is %d hex digits, want %d", len(rest), 2*KeySize)
	}
	if _, err := hex.Decode(k[:], rest); err != nil {
		return k, fmt.Errorf("token: the key is not hex: %w", err)
	}
	if k == (Key{}) {
		return k, errors.New("token: the key is all zeros")
	}
	return k, nil
}

// LoadKeyFile reads the key file at path.
func LoadKeyFile(path string) (Key, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Key{}, fmt.Errorf("token: %w", err)
	}
	k, err := ParseKey(b)
	if err != nil {
		return Key{}, fmt.Errorf("%w (in %s)", err, path)
	}
	return k, nil
}

// SaveKeyFile writes k to a new key file at path, readable by its owner
// only (mode 0600). It refuses to replace a file that exists: a server
// holding the old key would refuse every token of the new one.
func SaveKeyFile(path string, k Key) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("token: %w", err)
	}
	if _, err := f.Write(FormatKey(k)); err != nil {
		f.Close()
		return fmt.Errorf("token: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("token: %w", err)
	}
	return nil
}

// ReadCredentialsFile reads credentials in their JSON form (what a
// matchmaker hands a client, and `nebula-server token` prints).
func ReadCredentialsFile(path string) (Credentials, error) {
	var c Credentials
	b, err := os.ReadFile(path)
	if err != nil {
		return c, fmt.Errorf("token: %w", err)
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("token: credentials %s: %w", path, err)
	}
	if len(c.Token) < MinSize || len(c.Token) > MaxSize {
		return c, fmt.Errorf("token: credentials %s: a token of %d bytes, want %d to %d", path, len(c.Token), MinSize, MaxSize)
	}
	return c, nil
}
