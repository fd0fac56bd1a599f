package host_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wasmcp/wasmcp/host"
)

// TestReloadUnderLoad replaces a module hundreds of times while eight
// goroutines call its tool: every call must be answered by one of the two
// versions, none may fail, and Close must leave no module open and no
// goroutine behind.
func TestReloadUnderLoad(t *testing.T) {
	const (
		callers  = 8
		reloads  = 300
		toolName = "steady"
	)
	before := runtime.NumGoroutine()
	dir := t.TempDir()
	path := filepath.Join(dir, "m.wasm")
	versions := [2][]byte{
		guest(t, guestSpec{Tools: []string{toolName}, Description: "even", Answer: "even"}),
		guest(t, guestSpec{Tools: []string{toolName}, Description: "odd", Answer: "odd"}),
	}
	ctx := context.Background()
	h, err := host.New(ctx, testConfig(t).WithDir(dir).WithLogger(newLogs().logger()))
	if err != nil {
		t.Fatal(err)
	}
	var updates atomic.Int64
	h.Subscribe(func(c host.Change) {
		if len(c.Updated) == 1 && len(c.Added)+len(c.Removed) == 0 {
			updates.Add(1)
		}
	})
	if err := os.WriteFile(path, versions[0], 0o600); err != nil {
		t.Fatal(err)
	}
	if err := h.LoadFile(ctx, path); err != nil {
		t.Fatal(err)
	}

	stop := make(chan struct{})
	var calls, failures atomic.Int64
	var firstFailure atomic.Value
	var wg sync.WaitGroup
	for range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				res, err := h.Call(ctx, host.CallRequest{Tool: toolName})
				calls.Add(1)
				switch {
				case err != nil:
					failures.Add(1)
					firstFailure.CompareAndSwap(nil, err.Error())
				case res.IsError || len(res.Content) != 1 || (res.Content[0].Text != "even" && res.Content[0].Text != "odd"):
					failures.Add(1)
					firstFailure.CompareAndSwap(nil, res)
				}
			}
		}()
	}
	for i := 1; i <= reloads; i++ {
		if err := os.WriteFile(path, versions[i%2], 0o600); err != nil {
			t.Fatal(err)
		}
		if err := h.LoadFile(ctx, path); err != nil {
			t.Fatalf("reload %d: %v", i, err)
		}
	}
	close(stop)
	wg.Wait()

	if f := failures.Load(); f != 0 {
		t.Fatalf("%d of %d calls failed during reloads; first: %v", f, calls.Load(), firstFailure.Load())
	}
	if calls.Load() < callers {
		t.Fatalf("only %d calls made", calls.Load())
	}
	if err := h.Close(ctx); err != nil {
		t.Fatal(err)
	}
	// Every reload was an effective change, and Close waited for delivery
	// in progress; undelivered ones may be dropped, so only bound it.
	if u := updates.Load(); u == 0 || u > reloads {
		t.Fatalf("%d Updated changes for %d reloads", u, reloads)
	}
	if n := host.OpenModules(h); n != 0 {
		t.Fatalf("%d modules still open after Close", n)
	}
	waitGoroutines(t, before)
	t.Logf("%d calls during %d reloads", calls.Load(), reloads)
}

// waitGoroutines waits until no more goroutines run than before: goroutines
// that end asynchronously (a finished call's context watcher, say) get time
// to exit, a leaked one makes the test fail.
func waitGoroutines(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(patience)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines, %d before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}
