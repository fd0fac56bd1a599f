package sandboxtest

import (
	"os"
	"path/filepath"
	"testing"
)

// MountTree makes root/outside.txt (a secret) and root/data/{in.txt,sub/,
// links to outside}, and returns root.
func MountTree(t testing.TB) string {
	root := t.TempDir()
	data := filepath.Join(root, "data")
	mustDo(t, os.MkdirAll(filepath.Join(data, "sub"), 0o755))
	mustDo(t, os.WriteFile(filepath.Join(root, "outside.txt"), []byte("secret"), 0o644))
	mustDo(t, os.WriteFile(filepath.Join(data, "in.txt"), []byte("hello"), 0o644))
	mustDo(t, os.Symlink("../outside.txt", filepath.Join(data, "rel-escape")))
	mustDo(t, os.Symlink(filepath.Join(root, "outside.txt"), filepath.Join(data, "abs-escape")))
	mustDo(t, os.Symlink("..", filepath.Join(data, "sub", "up")))
	mustDo(t, os.Symlink("in.txt", filepath.Join(data, "inside-link")))
	return root
}

func mustDo(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
