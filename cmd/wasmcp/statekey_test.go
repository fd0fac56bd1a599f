package main

import (
	"bytes"
	"encoding/base64"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmcp/wasmcp/internal/seal"
)

// The key file is read at start and again on SIGHUP; a file that cannot be
// read then leaves the keys in force.
func TestStateKeyFile(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	path := filepath.Join(t.TempDir(), "state.key")
	oldKey, newKey := seal.NewKey(), seal.NewKey()
	write := func(text string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	line := func(k []byte) string { return base64.StdEncoding.EncodeToString(k) + "\n" }
	write(line(oldKey))
	k := stateKeyFlags{file: path}
	s, err := k.load(log)
	if err != nil {
		t.Fatal(err)
	}
	ad := []byte("ad")
	before := s.Seal([]byte("p"), ad)

	write(line(newKey) + line(oldKey)) // rotated: the new key seals
	k.reload(log)
	after := s.Seal([]byte("p"), ad)
	onlyOld, _ := seal.New(time.Hour, oldKey)
	if _, err := onlyOld.Open(after, ad); !errors.Is(err, seal.ErrUnknownKey) {
		t.Errorf("after the reload the old key still seals: %v", err)
	}
	if _, err := s.Open(before, ad); err != nil {
		t.Errorf("the previous key no longer opens: %v", err)
	}

	write("not a key\n")
	k.reload(log)
	if _, err := s.Open(after, ad); err != nil || !strings.Contains(logs.String(), "state keys not reloaded") {
		t.Errorf("a bad file changed the keys (%v), or was not logged:\n%s", err, &logs)
	}

	if _, err := (&stateKeyFlags{file: path + ".missing"}).load(log); err == nil {
		t.Error("a missing key file: no error")
	}
	if s, err := (&stateKeyFlags{}).load(log); err != nil || s == nil {
		t.Errorf("without a file: %v", err)
	}
}
