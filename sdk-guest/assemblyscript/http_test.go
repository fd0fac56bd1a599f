//go:build !wasip1

package assemblyscript_test

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host"
	"github.com/wasmcp/wasmcp/sdk-guest/internal/httpcheck"
)

// TestHTTPImportOnlyWhenUsed checks, with the host's own report (what
// `wasmcp inspect` prints), that only a module calling http imports
// http_request: the example tools make no request and so load on hosts
// that predate it.
func TestHTTPImportOnlyWhenUsed(t *testing.T) {
	for _, c := range []struct {
		name, src string
		want      bool
	}{
		{"examples", "../../examples/assemblyscript/examples.ts", false},
		{"httpguest", "tests/httpguest.ts", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := host.Inspect(t.Context(), quietConfig(), compile(t, c.src))
			if err != nil {
				t.Fatal(err)
			}
			imports := strings.Join(r.Imports, "\n")
			for _, name := range []string{abi.ImportHTTPRequest, abi.ImportReadReply} {
				if got := strings.Contains(imports, abi.ImportModule+"."+name); got != c.want {
					t.Errorf("%s: imports %s: %v, want %v (imports:\n%s)", c.src, name, got, c.want, imports)
				}
			}
		})
	}
}

func quietConfig() host.Config {
	return host.NewConfig().WithCacheDir("").WithLogger(slog.New(slog.DiscardHandler))
}

// TestHTTPThroughHost makes the requests every SDK's test makes
// (httpcheck) with http() from a module the real host runs.
func TestHTTPThroughHost(t *testing.T) {
	data, err := os.ReadFile(compile(t, "tests/httpguest.ts"))
	if err != nil {
		t.Fatal(err)
	}
	module := filepath.Join(t.TempDir(), "ashttp.wasm")
	if err := os.WriteFile(module, data, 0o644); err != nil {
		t.Fatal(err)
	}
	httpcheck.Run(t, module)
}
