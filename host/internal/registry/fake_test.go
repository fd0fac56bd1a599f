package registry

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host/internal/plugin"
	"github.com/wasmcp/wasmcp/host/internal/sandbox"
)

// fake is a Plugin whose Call answers "<name>/<version>:<tool>" and which
// behaves like plugin.Plugin on Close: new calls get plugin.ErrClosed and
// Close waits for calls already running.
type fake struct {
	name    string
	version int
	tools   []abi.Tool

	// beforeCall, if set, runs at the start of Call, before the closed
	// check: a test uses it to close the plugin between lookup and call.
	beforeCall func()
	// duringCall, if set, runs while the call counts as in flight.
	duringCall func()

	mu       sync.Mutex
	closed   bool
	inflight sync.WaitGroup
	closedCh chan struct{}
	closes   atomic.Int32
}

func newFake(name string, version int, tools ...abi.Tool) *fake {
	return &fake{name: name, version: version, tools: tools, closedCh: make(chan struct{})}
}

func (f *fake) Name() string      { return f.name }
func (f *fake) Path() string      { return "/plugins/" + f.name + ".wasm" }
func (f *fake) Tools() []abi.Tool { return f.tools }

func (f *fake) Call(ctx context.Context, tool string, args json.RawMessage, hooks *sandbox.CallHooks) (*plugin.Result, error) {
	if f.beforeCall != nil {
		f.beforeCall()
	}
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return nil, plugin.ErrClosed
	}
	f.inflight.Add(1)
	f.mu.Unlock()
	defer f.inflight.Done()
	if f.duringCall != nil {
		f.duringCall()
	}
	return &plugin.Result{Result: abi.Result{Content: []abi.Content{abi.Text(f.answer(tool))}}}, nil
}

func (f *fake) answer(tool string) string { return fmt.Sprintf("%s/%d:%s", f.name, f.version, tool) }

// Close waits for calls in flight, or for ctx, like plugin.Plugin.Close.
func (f *fake) Close(ctx context.Context) error {
	f.mu.Lock()
	first := !f.closed
	f.closed = true
	f.mu.Unlock()
	drained := make(chan struct{})
	go func() { f.inflight.Wait(); close(drained) }()
	var err error
	select {
	case <-drained:
	default:
		select {
		case <-drained:
		case <-ctx.Done():
			err = ctx.Err()
		}
	}
	if first {
		f.closes.Add(1)
		close(f.closedCh)
	}
	return err
}

// tool returns a definition with an object input schema.
func tool(name, description string) abi.Tool {
	return abi.Tool{Name: name, Description: description, InputSchema: json.RawMessage(`{"type":"object"}`)}
}

// memStore is a ClaimStore in memory that counts saves and can be shared by
// two registries to simulate a restart.
type memStore struct {
	mu     sync.Mutex
	claims map[string]string
	saves  int
}

func (m *memStore) Load() (map[string]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]string{}
	for k, v := range m.claims {
		out[k] = v
	}
	return out, nil
}

func (m *memStore) Save(c map[string]string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.claims = map[string]string{}
	for k, v := range c {
		m.claims[k] = v
	}
	m.saves++
	return nil
}

func newRegistry(t *testing.T, store ClaimStore) *Registry[*fake] {
	t.Helper()
	r := New[*fake](Options{Claims: store, Logger: slog.New(slog.DiscardHandler)})
	t.Cleanup(func() { r.Close(context.Background()) })
	return r
}

func mustUpdate(t *testing.T, r *Registry[*fake], put []*fake, remove ...string) Change[*fake] {
	t.Helper()
	c, err := r.Update(put, remove)
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	return c
}

// served returns tool -> plugin name for the current snapshot.
func served(r *Registry[*fake]) map[string]string {
	out := map[string]string{}
	for _, e := range r.Snapshot().Entries() {
		out[e.Tool.Name] = e.Plugin.Name()
	}
	return out
}

func names(es []Entry[*fake]) []string {
	out := []string{}
	for _, e := range es {
		out = append(out, e.Tool.Name)
	}
	return out
}

// call runs tool as the host does, with Registry.Route.
func call(r *Registry[*fake], tool string) (res *plugin.Result, err error) {
	err = r.Route(tool, func(p *fake) error {
		res, err = p.Call(context.Background(), tool, nil, nil)
		return err
	})
	return res, err
}

func callText(t *testing.T, r *Registry[*fake], tool string) string {
	t.Helper()
	res, err := call(r, tool)
	if err != nil {
		t.Fatalf("Call %s: %v", tool, err)
	}
	return res.Content[0].Text
}
