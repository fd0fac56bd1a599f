package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ClaimStore persists tool name claims: tool name -> name of the plugin that
// serves it. The registry calls Load once, in New, and Save after every swap
// that changes a claim, with writers serialised.
type ClaimStore interface {
	// Load returns the saved claims; none saved yet is an empty map, not an
	// error.
	Load() (map[string]string, error)
	// Save replaces the saved claims.
	Save(claims map[string]string) error
}

// claimsFile is the JSON document a FileStore writes.
type claimsFile struct {
	// Dir is the plugin directory the claims belong to, kept so that a
	// reader of the cache can tell the files apart, and checked on Load.
	Dir string `json:"dir"`
	// Claims maps tool name to plugin name (file name without ".wasm").
	Claims map[string]string `json:"claims"`
}

// FileStore keeps the claims of one plugin directory in one JSON file,
// replaced atomically (temporary file + rename) on Save.
type FileStore struct {
	path string
	dir  string
}

// NewFileStore returns a store writing path for the plugin directory dir.
// Nothing is created until the first Save.
func NewFileStore(path, dir string) *FileStore { return &FileStore{path: path, dir: dir} }

// Load implements ClaimStore. A missing file is no claims. A file written for
// another directory (a hash collision in the caller's naming) is an error.
func (f *FileStore) Load() (map[string]string, error) {
	raw, err := os.ReadFile(f.path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read claims: %w", err)
	}
	var doc claimsFile
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("read claims %s: %w", f.path, err)
	}
	if doc.Dir != f.dir {
		return nil, fmt.Errorf("read claims %s: written for directory %q, not %q", f.path, doc.Dir, f.dir)
	}
	if doc.Claims == nil {
		doc.Claims = map[string]string{}
	}
	return doc.Claims, nil
}

// Save implements ClaimStore. The file and its directory are private to the
// user (0600, 0700) like the rest of the cache.
func (f *FileStore) Save(claims map[string]string) error {
	raw, err := json.MarshalIndent(claimsFile{Dir: f.dir, Claims: claims}, "", "  ")
	if err != nil {
		return fmt.Errorf("save claims: %w", err)
	}
	if err := writeFileAtomic(f.path, append(raw, '\n')); err != nil {
		return fmt.Errorf("save claims: %w", err)
	}
	return nil
}

// writeFileAtomic writes data to a temporary file beside path and renames it
// over path, so a reader (or a crash) sees the old or the new content, never
// a mix.
func writeFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // fails harmlessly after the rename
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
