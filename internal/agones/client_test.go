package agones

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeSDK is a stand-in for the SDK server in the tests that need no real
// one: it applies the REST calls to a GameServer as the SDK server's
// local mode does, records every call, and streams changes to watchers.
type fakeSDK struct {
	t   *testing.T
	srv *httptest.Server

	mu      sync.Mutex
	calls   []string // "METHOD /path body"
	state   State
	labels  map[string]string
	annots  map[string]string
	version chan struct{}  // closed and replaced on every change
	fail    map[string]int // path -> status to answer with
}

func newFakeSDK(t *testing.T) *fakeSDK {
	f := &fakeSDK{
		t: t, state: StateScheduled,
		labels:  map[string]string{"app": "game-server"},
		annots:  map[string]string{},
		version: make(chan struct{}),
		fail:    map[string]int{},
	}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeSDK) client(t *testing.T) *Client {
	c, err := NewClient(strings.TrimPrefix(f.srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (f *fakeSDK) callLog() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

// json returns the GameServer as the SDK server writes it.
func (f *fakeSDK) json() []byte {
	gs := map[string]any{
		"object_meta": map[string]any{"name": "fake", "namespace": "default", "labels": f.labels, "annotations": f.annots},
		"status":      map[string]any{"state": f.state, "address": "127.0.0.1", "ports": []any{map[string]any{"name": "default", "port": 7777}}},
	}
	b, _ := json.Marshal(gs)
	return b
}

func (f *fakeSDK) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.calls = append(f.calls, strings.TrimSpace(r.Method+" "+r.URL.Path+" "+string(body)))
	if code := f.fail[r.URL.Path]; code != 0 {
		f.mu.Unlock()
		w.WriteHeader(code)
		fmt.Fprintf(w, `{"code":3,"message":"fake failure of %s","details":[]}`, r.URL.Path)
		return
	}
	changed := true
	switch r.Method + " " + r.URL.Path {
	case "POST /ready":
		f.state = StateReady
	case "POST /allocate":
		f.state = StateAllocated
	case "POST /shutdown":
		f.state = StateShutdown
	case "POST /reserve":
		f.state = StateReserved
	case "POST /health":
		changed = false
		if len(body) == 0 {
			f.mu.Unlock()
			w.WriteHeader(http.StatusBadRequest) // as the SDK server does
			return
		}
	case "PUT /metadata/label", "PUT /metadata/annotation":
		var kv keyValue
		if err := json.Unmarshal(body, &kv); err != nil {
			f.mu.Unlock()
			http.Error(w, `{"code":3,"message":"bad json"}`, http.StatusBadRequest)
			return
		}
		if strings.HasSuffix(r.URL.Path, "label") {
			f.labels[LabelPrefix+kv.Key] = kv.Value
		} else {
			f.annots[LabelPrefix+kv.Key] = kv.Value
		}
	case "GET /gameserver":
		b := f.json()
		f.mu.Unlock()
		w.Write(b)
		return
	case "GET /watch/gameserver":
		f.mu.Unlock()
		f.watch(w, r)
		return
	default:
		f.mu.Unlock()
		http.NotFound(w, r)
		return
	}
	if changed {
		close(f.version)
		f.version = make(chan struct{})
	}
	f.mu.Unlock()
	io.WriteString(w, "{}")
}

func (f *fakeSDK) watch(w http.ResponseWriter, r *http.Request) {
	for {
		f.mu.Lock()
		b, next := f.json(), f.version
		f.mu.Unlock()
		fmt.Fprintf(w, "{\"result\":%s}\n", b)
		w.(http.Flusher).Flush()
		select {
		case <-next:
		case <-r.Context().Done():
			return
		}
	}
}

func TestClientCalls(t *testing.T) {
	f := newFakeSDK(t)
	c := f.client(t)
	ctx := context.Background()
	steps := []struct {
		call func() error
		want string
	}{
		{func() error { return c.Ready(ctx) }, "POST /ready {}"},
		{func() error { return c.Health(ctx) }, "POST /health {}"},
		{func() error { return c.SetLabel(ctx, "match", "m-1") }, `PUT /metadata/label {"key":"match","value":"m-1"}`},
		{func() error { return c.SetAnnotation(ctx, "why", "any text: at all") }, `PUT /metadata/annotation {"key":"why","value":"any text: at all"}`},
		{func() error { return c.Reserve(ctx, 3*time.Second) }, `POST /reserve {"seconds":"3"}`},
		{func() error { return c.Allocate(ctx) }, "POST /allocate {}"},
		{func() error { return c.Shutdown(ctx) }, "POST /shutdown {}"},
	}
	for i, s := range steps {
		if err := s.call(); err != nil {
			t.Fatalf("step %d (%s): %v", i, s.want, err)
		}
		if got := f.callLog(); got[len(got)-1] != s.want {
			t.Fatalf("step %d: the SDK server got %q, want %q", i, got[len(got)-1], s.want)
		}
	}
	gs, err := c.GameServer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if gs.State != StateShutdown || gs.Name != "fake" || gs.Address != "127.0.0.1" || len(gs.Ports) != 1 || gs.Ports[0] != (Port{"default", 7777}) {
		t.Errorf("GameServer: %+v", gs)
	}
	if v, ok := gs.Label("match"); !ok || v != "m-1" {
		t.Errorf(`Label("match") = %q, %v; labels %v`, v, ok, gs.Labels)
	}
	if gs.Annotations[LabelPrefix+"why"] != "any text: at all" {
		t.Errorf("annotations %v", gs.Annotations)
	}
}

func TestClientErrors(t *testing.T) {
	f := newFakeSDK(t)
	c := f.client(t)
	ctx := context.Background()
	f.fail["/ready"] = http.StatusBadRequest
	err := c.Ready(ctx)
	if err == nil || err.Error() != "agones: POST /ready: 400 Bad Request: fake failure of /ready" {
		t.Errorf("Ready on a failing SDK server: %v", err)
	}
	if err := c.Reserve(ctx, 500*time.Millisecond); err == nil || !strings.HasPrefix(err.Error(), "agones: reserve for 500ms") {
		t.Errorf("Reserve(500ms): %v", err)
	}
	// Keys and values the cluster would refuse are refused before any
	// request.
	before := len(f.callLog())
	bad := []struct{ key, value, want string }{
		{"", "x", `agones: label "": empty key`},
		{"Bad Key", "x", `agones: label "Bad Key": character ' ': only letters, digits, '-', '_' and '.'`},
		{"key-", "x", `agones: label "key-": must end with a letter or digit`},
		{strings.Repeat("k", 60), "x", `agones: label "` + strings.Repeat("k", 60) + `": key longer than 59 characters`},
		{"match", "-m", `agones: label match="-m": a label value starts with a letter or digit`},
		{"match", "a/b", `agones: label match="a/b": character '/': only letters, digits, '-', '_' and '.'`},
		{"match", strings.Repeat("v", 64), `agones: label match="` + strings.Repeat("v", 64) + `": value longer than 63 characters`},
	}
	for _, b := range bad {
		err := c.SetLabel(ctx, b.key, b.value)
		if err == nil || err.Error() != b.want {
			t.Errorf("SetLabel(%q, %q): %v, want %s", b.key, b.value, err, b.want)
		}
	}
	if err := c.SetAnnotation(ctx, "a b", "x"); err == nil {
		t.Error(`SetAnnotation("a b") took a key with a space`)
	}
	if after := len(f.callLog()); after != before {
		t.Errorf("refused labels still reached the SDK server: %v", f.callLog()[before:])
	}
	// Nothing listening.
	f.srv.Close()
	if err := c.Health(ctx); err == nil || !strings.HasPrefix(err.Error(), "agones: POST /health: ") {
		t.Errorf("Health with no SDK server: %v", err)
	}
}

func TestClientFromEnv(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == EnvHTTPPort {
				return v
			}
			return ""
		}
	}
	if _, ok, err := ClientFromEnv(env("")); ok || err != nil {
		t.Errorf("unset: ok %v, err %v", ok, err)
	}
	c, ok, err := ClientFromEnv(env("9358"))
	if !ok || err != nil || c.Addr() != "localhost:9358" {
		t.Errorf("9358: %v, %v, %v", c, ok, err)
	}
	for _, bad := range []string{"x", "0", "70000", "-1"} {
		if _, _, err := ClientFromEnv(env(bad)); err == nil || !strings.HasPrefix(err.Error(), "agones: AGONES_SDK_HTTP_PORT=") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	addrs := map[string]string{"9358": "localhost:9358", ":9358": "localhost:9358", "127.0.0.1:1": "127.0.0.1:1", "[::1]:80": "[::1]:80"}
	for in, want := range addrs {
		c, err := NewClient(in)
		if err != nil || c.Addr() != want {
			t.Errorf("NewClient(%q): %v, %v; want %s", in, c, err, want)
		}
	}
	for _, bad := range []string{"", "host", "host:", "host:x", "host:0"} {
		if _, err := NewClient(bad); err == nil || !strings.HasPrefix(err.Error(), "agones: SDK server address") {
			t.Errorf("NewClient(%q): %v", bad, err)
		}
	}
}

func TestWaitState(t *testing.T) {
	f := newFakeSDK(t)
	c := f.client(t)
	ctx := context.Background()
	got := make(chan error, 1)
	go func() {
		gs, err := c.WaitState(ctx, StateAllocated)
		if err == nil && gs.State != StateAllocated {
			err = fmt.Errorf("returned in state %s", gs.State)
		}
		got <- err
	}()
	if err := c.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.Allocate(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	// A GameServer shut down while waiting ends the wait with an error.
	go func() {
		_, err := c.WaitState(ctx, StateReady)
		got <- err
	}()
	if err := c.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err == nil || err.Error() != "agones: waiting for [Ready]: the GameServer is Shutdown" {
		t.Errorf("wait for Ready across a shutdown: %v", err)
	}
	// The context ends a wait.
	cctx, cancel := context.WithCancel(ctx)
	go func() {
		_, err := c.WaitState(cctx, StateAllocated)
		got <- err
	}()
	cancel()
	if err := <-got; !errors.Is(err, context.Canceled) {
		t.Errorf("canceled wait: %v", err)
	}
}

func TestDecodeWatchLine(t *testing.T) {
	gs, err := decodeWatchLine([]byte(`{"result":{"object_meta":{"name":"n","labels":{"agones.dev/sdk-match":"m"}},"status":{"state":"Ready","ports":[{"name":"default","port":"7000"}]}}}`))
	if err != nil || gs.State != StateReady || gs.Name != "n" || gs.Ports[0].Port != 7000 {
		t.Errorf("%+v, %v", gs, err)
	}
	if _, err := decodeWatchLine([]byte(`{"error":{"code":14,"message":"gone"}}`)); err == nil || err.Error() != "agones: watch gameserver: the SDK server says: gone (code 14)" {
		t.Errorf("error line: %v", err)
	}
	if _, err := decodeWatchLine([]byte(`{}`)); err == nil {
		t.Error("a line without result decoded")
	}
}

// FuzzDecodeWatchLine feeds the watch stream's decoder arbitrary lines: it
// returns a GameServer or an error, never panics.
func FuzzDecodeWatchLine(f *testing.F) {
	f.Add([]byte(`{"result":{"object_meta":{"name":"local","labels":{"a":"b"}},"status":{"state":"Ready","address":"127.0.0.1","ports":[{"name":"default","port":7777}]}}}`))
	f.Add([]byte(`{"error":{"code":14,"message":"unavailable"}}`))
	f.Add([]byte(`{"result":{"status":{"ports":[{"port":"x"}]}}}`))
	f.Add([]byte(`{"result":null}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		gs, err := decodeWatchLine(line)
		if err != nil && (gs.Name != "" || gs.State != "") {
			t.Errorf("an error with a GameServer: %+v, %v", gs, err)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "agones: ") {
			t.Errorf("error without the package's name: %v", err)
		}
		if _, err := DecodeGameServer(line); err != nil && !strings.HasPrefix(err.Error(), "agones: ") {
			t.Errorf("DecodeGameServer: error without the package's name: %v", err)
		}
	})
}
