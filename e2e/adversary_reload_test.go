package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// memVariant assembles adversary_mem.wat with changes: extra imports and
// functions, and the describe export replaced when describe is not "".
func memVariant(t *testing.T, imports, funcs, describe string) []byte {
	t.Helper()
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(root, "e2e", "testdata", "adversary_mem.wat"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(src)
	anchor := `(import "wasmcp" "log" (func $log (param i32 i32 i32)))`
	text = strings.Replace(text, anchor, anchor+"\n"+imports, 1)
	anchor = `(func (export "wasmcp_abi_version") (result i32) (i32.const 1))`
	text = strings.Replace(text, anchor, anchor+"\n"+funcs, 1)
	if describe != "" {
		old := "(func (export \"wasmcp_describe\") (result i64)\n    (i64.or (i64.shl (i64.const 16) (i64.const 32)) (i64.const 708)))"
		if !strings.Contains(text, old) {
			t.Fatal("adversary_mem.wat changed: no describe export to replace")
		}
		text = strings.Replace(text, old, `(func (export "wasmcp_describe") (result i64) `+describe+`)`, 1)
	}
	wasm, err := wat2wasm([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return wasm
}

// withCustomSection returns wasm with a custom section appended: the same
// module under another digest, so that a watcher loads it again.
func withCustomSection(wasm []byte, name string) []byte {
	out := append([]byte{}, wasm...)
	return append(append(out, 0, byte(1+len(name)), byte(len(name))), name...)
}

// While eight clients call a tool without pause, its module file is
// replaced again and again: by new versions of itself, and by versions
// that loop in _initialize or describe, trap in describe, describe past
// their memory, or are cut short. Those fail to load and the previous
// version keeps serving (README, "Hot reload"): no call fails.
func TestAdversaryReloadUnderLoad(t *testing.T) {
	good, err := os.ReadFile(wat("adversary_mem"))
	if err != nil {
		t.Fatal(err)
	}
	versions := map[string][]byte{
		"initloop":     memVariant(t, "", `(func (export "_initialize") (loop $l (br $l)))`, ""),
		"describeloop": memVariant(t, "", "", `(loop $l (br $l)) (unreachable)`),
		"describetrap": memVariant(t, "", "", `(unreachable)`),
		"describepast": memVariant(t, "", "", `(i64.const 0x7fffffff00001000)`),
		"truncated":    good[:len(good)/2],
	}
	dir := servedCopy(t, wat("hello"))
	target := filepath.Join(dir, "mem.wasm")
	install := func(b []byte) {
		tmp := filepath.Join(dir, ".mem.partial")
		if err := os.WriteFile(tmp, b, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, target); err != nil {
			t.Fatal(err)
		}
	}
	install(good)
	s := startServer(t, dir, serverOptions{protocol: legacyProtocol, args: []string{"--timeout", "1s"}})
	var calls, failed atomic.Int64
	var failures sync.Map
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				calls.Add(1)
				res, err := s.callErr(t, "echo", `{}`)
				if err != nil || res.IsError {
					failed.Add(1)
					msg := fmt.Sprint(err)
					if res != nil {
						msg = text(res)
					}
					failures.Store(msg, true)
				}
			}
		})
	}
	start := time.Now()
	swaps := 0
	for round := range 12 {
		for name, bad := range versions {
			install(bad)
			time.Sleep(150 * time.Millisecond) // lets the watcher try it; not an assertion
			install(withCustomSection(good, fmt.Sprintf("v%d-%s", round, name)))
			time.Sleep(100 * time.Millisecond)
			swaps += 2
		}
	}
	close(stop)
	wg.Wait()
	t.Logf("%d swaps in %v, %d calls, %d failed", swaps, time.Since(start).Round(time.Millisecond), calls.Load(), failed.Load())
	failures.Range(func(k, _ any) bool {
		t.Errorf("a call failed during reloads: %s", clipped(k.(string)))
		return true
	})
	if _, err := s.callErr(t, "hello", `{}`); err != nil {
		t.Errorf("hello after the reloads: %v", err)
	}
}

// A module whose _initialize loops only when it has its grant, so that its
// describe instance (which has none) loads it, and each instance made for a
// call then loops before the call begins. Its calls must end at the
// deadline, and the other plugins keep answering meanwhile.
func TestAdversaryInitLoopsOnlyWithGrants(t *testing.T) {
	wasm := memVariant(t,
		`(import "wasi_snapshot_preview1" "fd_prestat_get" (func $prestat (param i32 i32) (result i32)))`,
		`(func (export "_initialize") (if (i32.eqz (call $prestat (i32.const 3) (i32.const 0))) (then (loop $l (br $l)))))`, "")
	// The describe document, with a permissions request.
	doc := `{"tools":[{"name":"echo","description":"Answers ok.","inputSchema":{"type":"object"}}],"permissions":{"fs":[{"path":"/m"}]}}`
	dir := servedCopy(t, wat("hello"))
	writeWithDescribe(t, filepath.Join(dir, "grantloop.wasm"), wasm, doc)
	policy := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(policy, []byte(fmt.Sprintf(`{"plugins":{"grantloop":{"fs":[{"host":%q,"guest":"/m"}]}}}`, t.TempDir())), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, dir, serverOptions{protocol: legacyProtocol, args: []string{"--config", policy, "--timeout", "1s"}})
	if _, ok := s.tools(t)["echo"]; !ok {
		t.Skipf("the module was refused at load:\n%s", s.stderr)
	}
	var wg sync.WaitGroup
	durations := make([]time.Duration, 4)
	for i := range durations {
		wg.Go(func() {
			start := time.Now()
			res, err := s.callErr(t, "echo", `{}`)
			durations[i] = time.Since(start)
			if err == nil && !res.IsError {
				t.Errorf("a call whose instance loops in _initialize succeeded: %s", text(res))
			}
		})
	}
	hello := time.Now()
	if _, err := s.callErr(t, "hello", `{}`); err != nil {
		t.Errorf("hello while grantloop's instances loop: %v", err)
	}
	helloTook := time.Since(hello)
	wg.Wait()
	t.Logf("calls of a module looping in _initialize ended after %v; hello answered in %v meanwhile", durations, helloTook)
	for _, d := range durations {
		if d > 5*time.Second {
			t.Errorf("a call looping in _initialize took %v with --timeout 1s", d)
		}
	}
}

// writeWithDescribe writes a variant of adversary_mem with its 708-byte
// describe document replaced by doc, padded with spaces.
func writeWithDescribe(t *testing.T, path string, wasm []byte, doc string) {
	t.Helper()
	i := strings.Index(string(wasm), `{"tools":[{"name":"hold"`)
	if i < 0 || len(doc) > 708 {
		t.Fatal("no describe document of 708 bytes to replace")
	}
	b := append([]byte{}, wasm...)
	copy(b[i:i+708], doc+strings.Repeat(" ", 708-len(doc)))
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}
