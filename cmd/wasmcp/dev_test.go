package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// wasmcp dev offers progressive discovery as serve does: by -discovery,
// or by the config's "discovery", so that a tool author can try a tool
// with a client that ignores list_changed.
func TestDevDiscovery(t *testing.T) {
	wasmcp := buildWasmcp(t)
	module, err := filepath.Abs(echoModule(t))
	if err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(config, []byte(`{"discovery": "only"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		flags []string
		want  []string
	}{
		{"config", []string{"--config", config}, []string{"wasmcp_call_tool", "wasmcp_search_tools"}},
		{"flag over config", []string{"--config", config, "--discovery", "beside"}, []string{"echo", "wasmcp_call_tool", "wasmcp_search_tools"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			args := append([]string{"dev", "--build", "true", "--module", module}, tc.flags...)
			cmd := exec.Command(wasmcp, append(args, t.TempDir())...)
			client := mcp.NewClient(&mcp.Implementation{Name: "dev-test", Version: "1"}, nil)
			cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			for {
				res, err := cs.ListTools(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				var names []string
				for _, tool := range res.Tools {
					names = append(names, tool.Name)
				}
				if slices.Sort(names); slices.Equal(names, tc.want) {
					break
				}
				// Before the first build has loaded, only the discovery
				// tools (or none) are listed.
				if slices.Contains(names, "echo") || ctx.Err() != nil {
					t.Fatalf("wasmcp dev %v lists %v, want %v", tc.flags, names, tc.want)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}
