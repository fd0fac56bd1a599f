package host_test

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/wasmcp/wasmcp/host"
	"github.com/wasmcp/wasmcp/host/policy"
)

// attackHost serves testdata/extism_attack.wasm, whose tools abuse the
// kernel and the host functions, as plugin "extism".
func attackHost(t *testing.T) *host.Host {
	t.Helper()
	p, err := policy.Parse([]byte(`{"plugins":{"extism_attack":{"memory":"8MiB","timeout":"300ms"}}}`), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h := newHost(t, "", newLogs(), testConfig(t).WithPolicy(p))
	if err := h.LoadFile(t.Context(), filepath.Join("testdata", "extism_attack.wasm")); err != nil {
		t.Fatal(err)
	}
	return h
}

// A guest that makes the host work hard in a few instructions (megabytes
// allocated by one alloc) is stopped at its deadline too, not only at its
// next yield.
func TestExtismDeadlineInHostWork(t *testing.T) {
	h := attackHost(t)
	for _, tool := range []string{"allocloop", "hostloop"} {
		res := callTool(t, h, tool, "", nil)
		if !res.IsError || !errors.Is(res.Failure, host.ErrTimeout) {
			t.Errorf("%s: %+v (failure %v), want a timeout", tool, res.Content, res.Failure)
		}
	}
}
