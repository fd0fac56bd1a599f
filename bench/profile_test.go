package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/wasmcp/wasmcp/host"
)

// BenchmarkHostCall calls tools through the public host API, in process, for
// profiling the host's part of a call without the transport:
//
//	go test -run '^$' -bench HostCall/echo-10MB -cpuprofile cpu.out
//
// It needs the modules `make plugins` builds.
func BenchmarkHostCall(b *testing.B) {
	plugins := dirFromEnv("WASMCP_PLUGINS", filepath.Join("..", "build", "plugins"))
	examples := dirFromEnv("WASMCP_EXAMPLES", filepath.Join("..", "build", "examples"))
	dir := b.TempDir()
	for _, m := range []string{filepath.Join(plugins, "jq.wasm"), filepath.Join(plugins, "text.wasm"),
		filepath.Join(examples, "examples-c.wasm")} {
		if err := copyFile(m, filepath.Join(dir, filepath.Base(m))); err != nil {
			b.Skipf("%v (run make plugins)", err)
		}
	}
	ctx := context.Background()
	cacheDir, err := os.UserCacheDir()
	if err != nil {
		b.Fatal(err)
	}
	h, err := host.New(ctx, host.NewConfig().WithDir(dir).WithCacheDir(filepath.Join(cacheDir, "wasmcp-bench", "host")).
		WithLogger(slog.New(slog.DiscardHandler)).WithMaxInput(32<<20).WithMaxOutput(32<<20).WithLongCalls(serveLongCalls))
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close(ctx)
	if err := h.LoadDir(ctx); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name, tool string
		args       []byte
	}{
		{"jq-1MB", "jq", jqDocArgs(7000)},
		{"jq-1MB-result", "jq", bytes.Replace(jqDocArgs(7000), []byte(jqFilter), []byte("."), 1)},
		{"diff-100KB", "unified_diff", diffTexts(1700)},
		{"echo-1MB", "echo", mustJSON(map[string]string{"message": strings.Repeat("x", 1e6)})},
		{"echo-10MB", "echo", mustJSON(map[string]string{"message": strings.Repeat("x", 1e7)})},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.args)))
			for b.Loop() {
				res, err := h.Call(ctx, host.CallRequest{Tool: c.tool, Arguments: c.args})
				if err != nil {
					b.Fatal(err)
				}
				if res.IsError {
					b.Fatal(fmt.Sprintf("%.300v", res.Content))
				}
			}
		})
	}
}

// guestMarks are the functions of a Go guest (names as in the module's name
// section) whose first call in a tool call marks where a phase of the SDK
// begins: the call is sequential, so that the time from one mark to the
// next is that phase's, whatever the Go runtime did in between (goroutine
// switches, collection). A listener on a function cannot time it directly:
// Go's WebAssembly port unwinds and re-enters the stack when a goroutine
// yields, which ends and restarts every enclosing function.
var guestMarks = []struct{ mark, function string }{
	{"call", "github.com_wasmcp_wasmcp_sdk_guest_go.exportCall"},
	{"decode", "github.com_wasmcp_wasmcp_sdk_guest_go.decodeArgs"},
	{"tool", "main.run"},         // jq
	{"tool", "main.unifiedDiff"}, // text
	{"encode", "encoding_json.Marshal"},
	{"encode", "encoding_json_v2.Marshal"}, // GOEXPERIMENT=jsonv2
	{"settle", "github.com_wasmcp_wasmcp_sdk_guest_go.settle"},
}

// guestPhases are the phases reported, each from its mark to the next.
var guestPhases = []string{"call", "decode", "tool", "encode", "settle"}

// BenchmarkGuestPhases splits the time of a Go guest's call under plain
// wazero (no deadline instrumentation, as in the deadline experiment) into
// the SDK's phases: decoding the arguments, the tool's own work, encoding
// the result, and the collection the SDK runs after the call ("call" is
// the SDK's work before decoding; "host" is the runner's, outside the
// guest: copying the arguments in and reading the result). A function
// listener (wazero's experimental package) on the marks alone sees them,
// so the rest of the code runs as compiled. With node installed, "v8" is
// the same call of the same module in V8 (v8guest.mjs), another compiler
// of the same WebAssembly.
//
//	go test -run '^$' -bench GuestPhases
func BenchmarkGuestPhases(b *testing.B) {
	plugins := dirFromEnv("WASMCP_PLUGINS", filepath.Join("..", "build", "plugins"))
	for _, c := range []struct {
		name, module, tool string
		args               []byte
	}{
		{"jq-1MB", "jq", "jq", jqDocArgs(7000)},
		{"diff-100KB", "text", "unified_diff", diffTexts(1700)},
		// The same input, returned whole: a 1 MB result to encode.
		{"jq-1MB-result", "jq", "jq", bytes.Replace(jqDocArgs(7000), []byte(jqFilter), []byte("."), 1)},
	} {
		b.Run(c.name, func(b *testing.B) {
			wasm, err := os.ReadFile(filepath.Join(plugins, c.module+".wasm"))
			if err != nil {
				b.Skipf("%v (run make plugins)", err)
			}
			marks := &guestMarker{}
			ctx := experimental.WithFunctionListenerFactory(context.Background(), marks)
			g, err := newGuestRunner(ctx, wasm, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer g.close(ctx)
			spent := map[string]time.Duration{}
			var total time.Duration
			for i := 0; b.Loop() || i == 0; i++ {
				marks.reset()
				start := time.Now()
				if err := g.run(ctx, c.tool, c.args); err != nil {
					b.Fatal(err)
				}
				if i == 0 {
					continue // warm-up
				}
				total += time.Since(start)
				for k, p := range guestPhases {
					next := marks.end
					if k+1 < len(guestPhases) {
						next = marks.at[guestPhases[k+1]]
					}
					if marks.at[p].IsZero() || next.Before(marks.at[p]) {
						b.Fatalf("phase %s: marks out of order: %v", p, marks.at)
					}
					spent[p] += next.Sub(marks.at[p])
				}
				spent["host"] += time.Since(start) - marks.end.Sub(marks.at["call"])
			}
			n := float64(b.N - 1)
			report := func(d time.Duration, phase string) {
				b.ReportMetric(float64(d.Microseconds())/1e3/n, "ms-"+phase+"/op")
			}
			report(total, "total")
			for _, p := range append(guestPhases, "host") {
				report(spent[p], p)
			}
			if v8, ok := v8Call(b, filepath.Join(plugins, c.module+".wasm"), c.tool, c.args); ok {
				report(v8*time.Duration(n), "v8")
			}
		})
	}
}

// v8Call returns the median time of a call of tool in Node's V8
// (v8guest.mjs), when node is installed.
func v8Call(b *testing.B, wasm, tool string, args []byte) (time.Duration, bool) {
	node, err := exec.LookPath("node")
	if err != nil {
		return 0, false
	}
	path := filepath.Join(b.TempDir(), "args.json")
	if err := os.WriteFile(path, args, 0o644); err != nil {
		b.Fatal(err)
	}
	out, err := exec.Command(node, "v8guest.mjs", wasm, tool, path, "30").Output()
	if err != nil {
		b.Fatalf("node v8guest.mjs: %v\n%s", err, out)
	}
	var ms float64
	if _, err := fmt.Sscanf(string(out), "median %g ms", &ms); err != nil {
		b.Fatalf("node v8guest.mjs said %q", out)
	}
	return time.Duration(ms * float64(time.Millisecond)), true
}

// guestMarker is a function listener factory that records, in one tool
// call, when each mark of guestMarks was first entered and when the
// export wasmcp_call last returned.
type guestMarker struct {
	at  map[string]time.Time
	end time.Time
}

func (g *guestMarker) reset() { g.at, g.end = map[string]time.Time{}, time.Time{} }

func (g *guestMarker) NewFunctionListener(def api.FunctionDefinition) experimental.FunctionListener {
	for _, m := range guestMarks {
		if def.Name() == m.function {
			return markListener{g, m.mark}
		}
	}
	return nil
}

type markListener struct {
	*guestMarker
	mark string
}

func (l markListener) Before(context.Context, api.Module, api.FunctionDefinition, []uint64, experimental.StackIterator) {
	// The tool's result is encoded after the tool; the tool may encode
	// things of its own before.
	if _, ok := l.at[l.mark]; !ok && (l.mark != "encode" || !l.at["tool"].IsZero()) {
		l.at[l.mark] = time.Now()
	}
}

func (l markListener) After(context.Context, api.Module, api.FunctionDefinition, []uint64) {
	if l.mark == "call" {
		l.end = time.Now()
	}
}

func (l markListener) Abort(context.Context, api.Module, api.FunctionDefinition, error) {}
