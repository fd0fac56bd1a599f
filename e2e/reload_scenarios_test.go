package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// quietWindow is how long an absence check waits for a list_changed
// notification that must not come. It starts only once the server's log shows
// the file was handled, so a notification, if the server sent one, would
// already be on its way.
const quietWindow = 1500 * time.Millisecond

// The replies of the two versions of the hello tool, which tell them apart.
const (
	helloV1 = "hello from a hot-loaded module"
	helloV2 = "hello from the second version"
)

// TestHotReloadScenarios follows one served directory through the changes an
// operator makes to it and checks what a client sees after each: a module
// replaced, rewritten with the same bytes, broken, deleted and restored,
// shadowed by another file defining the same tool, and a hundred modules
// arriving at once. The server logs in JSON so that each step can wait for
// the line saying its file was handled before checking that nothing changed.
func TestHotReloadScenarios(t *testing.T) {
	s := startServer(t, servedCopy(t, wat("hello")), serverOptions{
		protocol: legacyProtocol,
		args:     []string{"--log-format", "json"},
	})
	path := filepath.Join(s.dir, "hello.wasm")
	v2, err := os.ReadFile(wat("hello2"))
	if err != nil {
		t.Fatal(err)
	}
	s.wantHello(t, helloV1)

	steps := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"replace", func(t *testing.T) {
			copyFile(t, wat("hello2"), path)
			s.waitToolsChanged(t)
			tool, ok := s.tools(t)["hello"]
			if !ok {
				t.Fatal("hello not listed after its module was replaced")
			}
			if want := wantDescription(t, v2); tool.Description != want {
				t.Errorf("description = %q, want the new version's %q", tool.Description, want)
			}
			s.wantHello(t, helloV2)
		}},
		{"identical rewrite", func(t *testing.T) {
			mark := s.logMark()
			copyFile(t, wat("hello2"), path)
			s.waitLog(t, mark, logField("msg", "plugin unchanged; not reloaded"), logField("file", path))
			s.wantQuiet(t, "an identical rewrite")
			s.wantHello(t, helloV2)
		}},
		{"break", func(t *testing.T) {
			// Written in place, not renamed in: a writer caught mid-write
			// looks like this to the server.
			for _, bad := range []struct {
				name string
				wasm []byte
			}{{"garbage", []byte("garbage, not a WebAssembly module")}, {"truncated", v2[:len(v2)/2]}} {
				t.Run(bad.name, func(t *testing.T) {
					mark := s.logMark()
					if err := os.WriteFile(path, bad.wasm, 0o644); err != nil {
						t.Fatal(err)
					}
					s.waitLog(t, mark, logField("msg", "plugin not reloaded; the previous version keeps serving"), logField("file", path))
					s.wantQuiet(t, bad.name+" written over the module")
					for range 5 {
						s.wantHello(t, helloV2)
					}
				})
			}
		}},
		{"delete and restore", func(t *testing.T) {
			removeFile(t, path)
			s.waitToolsChanged(t)
			if _, ok := s.tools(t)["hello"]; ok {
				t.Fatal("hello still listed after its module was deleted")
			}
			_, err := s.callErr(t, "hello", `{}`)
			wantInvalidParams(t, err)

			copyFile(t, wat("hello2"), path)
			s.waitToolsChanged(t)
			if _, ok := s.tools(t)["hello"]; !ok {
				t.Fatal("hello not listed after its module was restored")
			}
			s.wantHello(t, helloV2)
		}},
		{"collide", func(t *testing.T) {
			// zz-hello sorts after hello, so neither the load order nor the
			// name order could make it the owner: only the rule that the
			// module serving a name keeps it.
			newcomer := filepath.Join(s.dir, "zz-hello.wasm")
			mark := s.logMark()
			copyFile(t, wat("hello"), newcomer)
			s.waitLog(t, mark, logField("msg", "tool name collision: tool refused, another module serves it"),
				logField("tool", "hello"), logField("file", newcomer), logField("served_by", path))
			s.wantQuiet(t, "a colliding module was added")
			tool, ok := s.tools(t)["hello"]
			if !ok {
				t.Fatal("hello not listed after the collision")
			}
			if want := wantDescription(t, v2); tool.Description != want {
				t.Errorf("description = %q, want the incumbent's %q", tool.Description, want)
			}
			for range 5 {
				s.wantHello(t, helloV2)
			}
		}},
		{"hundred at once", func(t *testing.T) {
			const n = 100
			staging := t.TempDir()
			for i := range n {
				wasm, err := wat2wasm([]byte(bulkWAT(bulkName(i))))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(staging, bulkName(i)+".wasm"), wasm, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for i := range n {
				name := bulkName(i) + ".wasm"
				if err := os.Rename(filepath.Join(staging, name), filepath.Join(s.dir, name)); err != nil {
					t.Fatal(err)
				}
			}
			// The watcher may deliver them as one change or several: wait for
			// notifications until the list is complete. Each notification
			// follows its change, so a list taken after the last one is full.
			for {
				tools := s.tools(t)
				missing := 0
				for i := range n {
					if _, ok := tools[bulkName(i)]; !ok {
						missing++
					}
				}
				if missing == 0 {
					if len(tools) != n+1 {
						t.Errorf("%d tools listed, want the %d bulk tools and hello", len(tools), n)
					}
					break
				}
				s.waitToolsChanged(t)
			}
			for _, i := range []int{0, 42, n - 1} {
				t.Run(bulkName(i), func(t *testing.T) {
					res := s.call(t, bulkName(i), `{}`)
					wantOK(t, res)
					if got, want := text(res), bulkName(i)+" answers"; got != want {
						t.Errorf("%s = %q, want %q", bulkName(i), got, want)
					}
				})
			}
			s.wantHello(t, helloV2)
		}},
	}
	for _, step := range steps {
		// Each step starts from the state the previous one left.
		if !t.Run(step.name, step.run) {
			return
		}
	}
}

// wantHello calls hello and fails the test unless it answers want.
func (s *server) wantHello(t *testing.T, want string) {
	t.Helper()
	res := s.call(t, "hello", `{}`)
	wantOK(t, res)
	if got := text(res); got != want {
		t.Fatalf("hello = %q, want %q", got, want)
	}
}

// wantQuiet fails the test if a notifications/tools/list_changed arrives
// within quietWindow: what was done before (named by what) changed nothing.
func (s *server) wantQuiet(t *testing.T, what string) {
	t.Helper()
	select {
	case <-s.toolsChanged:
		t.Fatalf("notifications/tools/list_changed after %s; the tool list must not change", what)
	case <-time.After(quietWindow):
	}
}

// logMark is the length of the server log so far; waitLog reads only what
// comes after it.
func (s *server) logMark() int { return len(s.stderr.String()) }

// waitLog waits for a line of the server's log, written after mark, that
// contains every one of fields (see logField). The server must be started
// with --log-format json.
func (s *server) waitLog(t *testing.T, mark int, fields ...string) {
	t.Helper()
	ctx := testContext(t)
	for {
		for line := range strings.Lines(s.stderr.String()[mark:]) {
			if containsAll(line, fields) {
				return
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no log line with %s\nserver log:\n%s", strings.Join(fields, " "), s.stderr)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func containsAll(s string, words []string) bool {
	for _, w := range words {
		if !strings.Contains(s, w) {
			return false
		}
	}
	return true
}

// logField is a string field of a JSON log line as slog writes it.
func logField(key, value string) string {
	v, err := json.Marshal(value)
	if err != nil {
		panic(err) // a string always marshals
	}
	return fmt.Sprintf("%q:%s", key, v)
}

// wantDescription is the description of the only tool of a testdata module,
// read from the Describe document in its data section.
func wantDescription(t *testing.T, wasm []byte) string {
	t.Helper()
	const key = `"description":"`
	i := strings.Index(string(wasm), key)
	if i < 0 {
		t.Fatal("no description in the module's data")
	}
	rest := string(wasm[i+len(key):])
	return rest[:strings.IndexByte(rest, '"')]
}

func bulkName(i int) string { return fmt.Sprintf("bulk_%03d", i) }

// bulkWAT is a one-tool module whose tool, name, answers "name answers".
// The host calls a module only with the names it defines, so the guest
// need not look at the name.
func bulkWAT(name string) string {
	describe := fmt.Sprintf(`{"tools":[{"name":%q,"description":"One of a hundred modules added at once.","inputSchema":{"type":"object"}}]}`, name)
	result := fmt.Sprintf(`{"content":[{"type":"text","text":"%s answers"}]}`, name)
	return fmt.Sprintf(`(module
  (memory (export "memory") 1)
  (data (i32.const 16) "%s")
  (data (i32.const 512) "%s")
  (func (export "wasmcp_abi_version") (result i32) (i32.const 1))
  ;; A fixed arena: the tests pass only "{}".
  (func (export "wasmcp_alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "wasmcp_describe") (result i64)
    (i64.or (i64.shl (i64.const 16) (i64.const 32)) (i64.const %d)))
  (func (export "wasmcp_call") (param i32 i32 i32 i32) (result i64)
    (i64.or (i64.shl (i64.const 512) (i64.const 32)) (i64.const %d))))`,
		watString(describe), watString(result), len(describe), len(result))
}

// watString escapes s for a WAT string literal.
func watString(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s)
}
