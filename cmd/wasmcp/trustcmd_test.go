package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmcp/wasmcp/host/trust"
)

// TestLockKeygenSign writes a lock file, a key pair and a signature with the
// CLI and checks them with package trust, as serve -lock -trusted-keys would.
func TestLockKeygenSign(t *testing.T) {
	dir := t.TempDir()
	mod := filepath.Join(dir, "a.wasm")
	wasm := []byte("\x00asm\x01\x00\x00\x00")
	if err := os.WriteFile(mod, wasm, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI("lock", dir)
	if code != 0 || out != trust.LockLine("a.wasm", wasm) {
		t.Fatalf("lock: exit %d, out %q, err %s", code, out, errOut)
	}
	lockFile := filepath.Join(t.TempDir(), "wasmcp.lock")
	if code, _, errOut := runCLI("lock", "-o", lockFile, dir); code != 0 {
		t.Fatalf("lock -o: %s", errOut)
	}

	keyFile := filepath.Join(t.TempDir(), "key.pem")
	code, keyLine, errOut := runCLI("keygen", "-o", keyFile, "-label", "ci")
	if code != 0 || !strings.Contains(keyLine, "ci") {
		t.Fatalf("keygen: exit %d, %q, %s", code, keyLine, errOut)
	}
	if fi, err := os.Stat(keyFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v, %v", fi, err)
	}
	if code, _, _ := runCLI("keygen", "-o", keyFile); code == 0 {
		t.Errorf("keygen overwrote an existing key file")
	}
	if code, _, errOut := runCLI("sign", "-key", keyFile, mod); code != 0 {
		t.Fatalf("sign: %s", errOut)
	}

	lock, err := trust.LoadLock(lockFile)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := trust.ParseKeys([]byte(keyLine))
	if err != nil {
		t.Fatal(err)
	}
	p := &trust.Verifier{Lock: lock, Keys: keys}
	if _, err := p.ReadModule(mod); err != nil {
		t.Errorf("the signed, pinned module is refused: %v", err)
	}
	if err := os.WriteFile(mod, append(wasm, 0), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := p.ReadModule(mod); err == nil {
		t.Errorf("a changed module is allowed")
	}
}

func TestPolicyFlagErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "policy.json")
	if err := os.WriteFile(bad, []byte(`{"defaults": {"memroy": 1}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for i, args := range [][]string{
		{"serve", "--dir", dir, "--config", bad},
		{"serve", "--dir", dir, "--lock", filepath.Join(dir, "missing.lock")},
		{"inspect", "--config", bad, "x.wasm"},
	} {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			code, _, errOut := runCLI(args...)
			if code != 1 || errOut == "" {
				t.Errorf("wasmcp %q: exit %d, %s", args, code, errOut)
			}
		})
	}
}
