package agones

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// EnvHTTPPort is the environment variable through which Agones tells a game
// server's container the port of its SDK server's REST API (on localhost).
const EnvHTTPPort = "AGONES_SDK_HTTP_PORT"

// maxResponse bounds the body of one SDK server response, and of one line
// of the watch stream: a GameServer object is a few kilobytes.
const maxResponse = 1 << 20

// Client calls the Agones SDK server's REST API: the sidecar beside every
// GameServer pod, which applies the calls to the pod's GameServer object.
// Its methods are safe for concurrent use.
type Client struct {
	base string // "http://host:port", no trailing slash
	http *http.Client
}

// NewClient returns a client of the SDK server at addr: a port ("9358"),
// ":port" or "host:port". A port alone means localhost, as in the pod.
func NewClient(addr string) (*Client, error) {
	hostport, err := parseAddr(addr)
	if err != nil {
		return nil, err
	}
	return &Client{
		base: "http://" + hostport,
		// No overall timeout: the watch stream lasts as long as its
		// context. Each call is bounded by the caller's context.
		http: &http.Client{Transport: &http.Transport{
			Proxy:               nil, // never through an HTTP proxy: the SDK server is local
			DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
			MaxIdleConnsPerHost: 4,
			IdleConnTimeout:     90 * time.Second,
		}},
	}, nil
}

// ClientFromEnv returns a client of the SDK server whose port getenv (such
// as os.Getenv) gives under EnvHTTPPort, and false when the variable is
// unset or empty: the server is not running under Agones.
func ClientFromEnv(getenv func(string) string) (*Client, bool, error) {
	port := getenv(EnvHTTPPort)
	if port == "" {
		return nil, false, nil
	}
	if _, err := parsePort(port); err != nil {
		return nil, false, fmt.Errorf("agones: %s=%q: %w", EnvHTTPPort, port, err)
	}
	c, err := NewClient("localhost:" + port)
	if err != nil {
		return nil, false, err
	}
	return c, true, nil
}

// parseAddr turns a port, :port or host:port into host:port.
func parseAddr(addr string) (string, error) {
	if _, err := strconv.Atoi(addr); err == nil {
		addr = "localhost:" + addr
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("agones: SDK server address %q: want a port, :port or host:port", addr)
	}
	if _, err := parsePort(port); err != nil {
		return "", fmt.Errorf("agones: SDK server address %q: %w", addr, err)
	}
	if host == "" {
		host = "localhost"
	}
	return net.JoinHostPort(host, port), nil
}

// parsePort checks a TCP port number, 1 to 65535.
//
//srccheck:wrapped by parseAddr and ClientFromEnv, as "agones: ...: port ..."
func parsePort(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 65535 {
		return 0, errors.New("port must be a number from 1 to 65535")
	}
	return n, nil
}

// Addr returns the SDK server's host:port.
func (c *Client) Addr() string { return strings.TrimPrefix(c.base, "http://") }

// Ready tells Agones the game server is ready to take players: the
// GameServer moves to Ready and may be allocated.
func (c *Client) Ready(ctx context.Context) error {
	return c.call(ctx, http.MethodPost, "/ready", struct{}{}, nil)
}

// Health sends one health ping. Agones marks the GameServer Unhealthy (and
// replaces it) when no ping arrives for the failure threshold times the
// period its spec.health sets.
func (c *Client) Health(ctx context.Context) error {
	return c.call(ctx, http.MethodPost, "/health", struct{}{}, nil)
}

// Allocate marks the GameServer Allocated, as a GameServerAllocation does:
// a game server that finds its own players (no matchmaker) calls it so the
// fleet does not scale it down or hand it out.
func (c *Client) Allocate(ctx context.Context) error {
	return c.call(ctx, http.MethodPost, "/allocate", struct{}{}, nil)
}

// Reserve marks the GameServer Reserved for d (whole seconds, at least
// one): not allocatable and not scaled down, then back to Ready.
func (c *Client) Reserve(ctx context.Context, d time.Duration) error {
	secs := int64(d / time.Second)
	if secs < 1 {
		return fmt.Errorf("agones: reserve for %v: want at least 1s", d)
	}
	body := struct {
		Seconds string `json:"seconds"` // int64: a JSON string in proto's mapping
	}{strconv.FormatInt(secs, 10)}
	return c.call(ctx, http.MethodPost, "/reserve", body, nil)
}

// Shutdown tells Agones the game server is done: the GameServer moves to
// Shutdown and its pod is deleted.
func (c *Client) Shutdown(ctx context.Context) error {
	return c.call(ctx, http.MethodPost, "/shutdown", struct{}{}, nil)
}

// LabelPrefix is what the SDK server puts before the key of every label
// and annotation set through the SDK.
const LabelPrefix = "agones.dev/sdk-"

// SetLabel sets the GameServer's label LabelPrefix+key to value. Key and
// value must be valid in a Kubernetes label (checked here: the cluster
// would refuse them later, far from the call).
func (c *Client) SetLabel(ctx context.Context, key, value string) error {
	if err := checkKey(key); err != nil {
		return fmt.Errorf("agones: label %q: %w", key, err)
	}
	if err := checkLabelValue(value); err != nil {
		return fmt.Errorf("agones: label %s=%q: %w", key, value, err)
	}
	return c.call(ctx, http.MethodPut, "/metadata/label", keyValue{key, value}, nil)
}

// SetAnnotation sets the GameServer's annotation LabelPrefix+key to value.
// The key must be valid in a Kubernetes annotation; the value may be any
// text.
func (c *Client) SetAnnotation(ctx context.Context, key, value string) error {
	if err := checkKey(key); err != nil {
		return fmt.Errorf("agones: annotation %q: %w", key, err)
	}
	return c.call(ctx, http.MethodPut, "/metadata/annotation", keyValue{key, value}, nil)
}

type keyValue struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// GameServer returns the GameServer object as the SDK server holds it now.
func (c *Client) GameServer(ctx context.Context) (GameServer, error) {
	var raw rawGameServer
	if err := c.call(ctx, http.MethodGet, "/gameserver", nil, &raw); err != nil {
		return GameServer{}, err
	}
	return raw.gameServer(), nil
}

// WatchGameServer streams the GameServer: it calls fn with the object as
// it is now, then once per change, until fn returns false (WatchGameServer
// returns nil), ctx ends (ctx's error), or the stream fails or ends (an
// error).
func (c *Client) WatchGameServer(ctx context.Context, fn func(GameServer) bool) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	resp, err := c.do(ctx, http.MethodGet, "/watch/gameserver", nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), maxResponse)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		gs, err := decodeWatchLine(line)
		if err != nil {
			return err
		}
		if !fn(gs) {
			return nil
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("agones: watch gameserver: %w", err)
	}
	return errors.New("agones: watch gameserver: the SDK server closed the stream")
}

// WaitState watches the GameServer until its state is one of states and
// returns it then. A GameServer that reaches Shutdown, Error or Unhealthy
// (and none of those is in states) ends the wait with an error.
func (c *Client) WaitState(ctx context.Context, states ...State) (GameServer, error) {
	var got GameServer
	var fail error
	err := c.WatchGameServer(ctx, func(gs GameServer) bool {
		for _, s := range states {
			if gs.State == s {
				got = gs
				return false
			}
		}
		switch gs.State {
		case StateShutdown, StateError, StateUnhealthy:
			fail = fmt.Errorf("agones: waiting for %v: the GameServer is %s", states, gs.State)
			return false
		}
		return true
	})
	if err == nil {
		err = fail
	}
	if err != nil {
		return GameServer{}, err
	}
	return got, nil
}

// call sends body (nil for none) as JSON and decodes the response into out
// (nil to discard it).
func (c *Client) call(ctx context.Context, method, path string, body, out any) error {
	resp, err := c.do(ctx, method, path, body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
	if err != nil {
		return fmt.Errorf("agones: %s %s: reading the response: %w", method, path, err)
	}
	if len(data) > maxResponse {
		return fmt.Errorf("agones: %s %s: response over %d bytes", method, path, maxResponse)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("agones: %s %s: decoding the response: %w", method, path, err)
	}
	return nil
}

// do sends the request and returns the response if its status is 200; any
// other status is an error with the SDK server's message.
func (c *Client) do(ctx context.Context, method, path string, body any) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("agones: %s %s: %w", method, path, err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return nil, fmt.Errorf("agones: %s %s: %w", method, path, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("agones: %s %s: %w", method, path, err)
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		return nil, fmt.Errorf("agones: %s %s: %s%s", method, path, resp.Status, errorDetail(data))
	}
	return resp, nil
}

// errorDetail returns ": message" from an SDK server's error body (the
// gRPC gateway's {"code":3,"message":"..."}), or the body's start.
func errorDetail(data []byte) string {
	var e struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(data, &e) == nil && e.Message != "" {
		return ": " + e.Message
	}
	s := strings.TrimSpace(string(data))
	if s == "" {
		return ""
	}
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return ": " + s
}
