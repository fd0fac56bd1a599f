package watcher

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// The real go build -o writing a wasip1 module straight into the directory,
// first creating it and then replacing it: one Changed each time, with a
// complete module.
func TestGoBuild(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to build the test module: %v", err)
	}
	t.Parallel()
	src := t.TempDir()
	writeFile(t, filepath.Join(src, "go.mod"), "module probe\n\ngo 1.21\n")
	h := start(t, newDir(t), safe)
	out := h.path("tool.wasm")

	for _, msg := range []string{"first", "second"} {
		writeFile(t, filepath.Join(src, "main.go"), "package main\n\nfunc main() { println(\""+msg+"\") }\n")
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		cmd := exec.CommandContext(ctx, gobin, "build", "-o", out, ".")
		cmd.Dir = src
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "GOWORK=off", "GOFLAGS=", "GOTOOLCHAIN=local")
		output, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			t.Fatalf("go build: %v\n%s", err, output)
		}
		h.expect(map[string]Op{"tool.wasm": Changed})
		wasm, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(wasm, []byte("\x00asm")) || !bytes.Contains(wasm, []byte(msg)) {
			t.Fatalf("%s build: tool.wasm is not the module just built", msg)
		}
	}
}
