package registry

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestFileStoreRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "claims", "abc.json")
	s := NewFileStore(path, "/plugins")
	got, err := s.Load()
	if err != nil || len(got) != 0 {
		t.Fatalf("Load of a missing file = %v, %v; want empty, nil", got, err)
	}
	want := map[string]string{"x": "a", "y": "b"}
	if err := s.Save(want); err != nil {
		t.Fatal(err)
	}
	if got, err = s.Load(); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("Load = %v, %v; want %v", got, err, want)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("claims file mode = %v, %v; want 0600", st.Mode(), err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("temporary files left beside the claims: %v", entries)
	}
	if _, err := NewFileStore(path, "/elsewhere").Load(); err == nil {
		t.Fatal("claims of another directory accepted")
	}
}

func TestUnreadableClaimsAreLoggedAndIgnored(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.json")
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	r := New[*fake](Options{Claims: NewFileStore(path, "/p"), Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	defer r.Close(context.Background())
	if !strings.Contains(logs.String(), "claims unreadable") {
		t.Fatalf("no warning logged: %q", logs.String())
	}
	mustUpdate(t, r, []*fake{newFake("b", 1, tool("x", "")), newFake("a", 1, tool("x", ""))})
	if served(r)["x"] != "a" {
		t.Fatal("without claims, name order must decide")
	}
	// The first swap rewrote the file with valid claims.
	if got, err := NewFileStore(path, "/p").Load(); err != nil || got["x"] != "a" {
		t.Fatalf("claims after swap = %v, %v", got, err)
	}
}

func TestCollisionLogNamesBothFilesAndTool(t *testing.T) {
	var logs bytes.Buffer
	r := New[*fake](Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	defer r.Close(context.Background())
	mustUpdate(t, r, []*fake{newFake("a", 1, tool("x", ""))})
	mustUpdate(t, r, []*fake{newFake("b", 1, tool("x", ""))})
	line := logs.String()
	for _, want := range []string{"tool=x", "file=/plugins/b.wasm", "served_by=/plugins/a.wasm"} {
		if !strings.Contains(line, want) {
			t.Fatalf("collision log %q lacks %q", line, want)
		}
	}
	// The same collision after an unrelated swap is not logged again.
	logs.Reset()
	mustUpdate(t, r, []*fake{newFake("c", 1, tool("y", ""))})
	if strings.Contains(logs.String(), "collision") {
		t.Fatalf("collision logged twice: %q", logs.String())
	}
	// Handing over is logged with both files.
	mustUpdate(t, r, nil, "a")
	if s := logs.String(); !strings.Contains(s, "claim moved") || !strings.Contains(s, "to=/plugins/b.wasm") {
		t.Fatalf("handover log = %q", s)
	}
}

func TestHoldDecidesByNameNotArrival(t *testing.T) {
	store := &memStore{}
	r := newRegistry(t, store)
	release := r.Hold()
	// b finishes loading first; a, which sorts first, arrives later and
	// takes x over, as a single swap of both would have given it to a.
	mustUpdate(t, r, []*fake{newFake("b", 1, tool("x", "b"))})
	if got := served(r)["x"]; got != "b" {
		t.Fatalf("x served by %q, want b while alone", got)
	}
	c := mustUpdate(t, r, []*fake{newFake("a", 1, tool("x", "a"))})
	if got := served(r)["x"]; got != "a" || len(c.Updated) != 1 {
		t.Fatalf("x served by %q (change %+v), want a, updated", got, c)
	}
	if store.saves != 0 {
		t.Fatal("claims saved while held")
	}
	release()
	if got := r.Claims()["x"]; got != "a" || store.saves != 1 {
		t.Fatalf("claim of x = %q after %d saves, want a after one", got, store.saves)
	}
	// Released: the incumbent keeps the name again.
	mustUpdate(t, r, []*fake{newFake("0", 1, tool("x", "0"))})
	if got := served(r)["x"]; got != "a" {
		t.Fatalf("x served by %q after release, want the incumbent a", got)
	}
}
