package watcher_test

import (
	"fmt"
	"log"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/wasmcp/wasmcp/host/internal/watcher"
)

// Watch first, then load what Scan lists, then apply the batches: nothing
// that changes after New returns can be missed.
func Example() {
	dir, err := os.MkdirTemp("", "plugins")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	module := []byte("\x00asm\x01\x00\x00\x00")
	if err := os.WriteFile(filepath.Join(dir, "echo.wasm"), module, 0o644); err != nil {
		log.Fatal(err)
	}

	w, err := watcher.New(dir, watcher.Options{
		Settle: 50 * time.Millisecond,
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		log.Fatal(err)
	}
	defer w.Close()

	paths, err := watcher.Scan(dir, nil) // same rules as the watcher
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range paths {
		fmt.Println("load", filepath.Base(p))
	}

	// A plugin arrives by an atomic rename and another leaves.
	tmp := filepath.Join(dir, ".hash.wasm.tmp") // not a plugin name: ignored
	if err := os.WriteFile(tmp, module, 0o644); err != nil {
		log.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, "hash.wasm")); err != nil {
		log.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "echo.wasm")); err != nil {
		log.Fatal(err)
	}

	// Both usually arrive in one batch; a stalled machine may split them.
	var got []string
	for len(got) < 2 {
		for _, ev := range <-w.Events() {
			got = append(got, fmt.Sprint(ev.Op, " ", filepath.Base(ev.Path)))
		}
	}
	slices.Sort(got)
	fmt.Println(strings.Join(got, "\n"))
	// Output:
	// load echo.wasm
	// Changed hash.wasm
	// Removed echo.wasm
}
