package watcher

import (
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkLanding measures a change to a plugin file from the moment it is
// made to the moment its batch is received, with the default Settle: a new
// version renamed over the file (it landed complete: the short quiet period)
// against the same version written in place (Settle). Compare the two
// sub-benchmarks of one run:
//
//	go test -run '^$' -bench Landing ./host/watcher/
func BenchmarkLanding(b *testing.B) {
	for _, how := range []string{"rename", "write"} {
		b.Run("how="+how, func(b *testing.B) {
			dir := b.TempDir()
			w, err := New(dir, Options{Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				b.Fatal(err)
			}
			defer w.Close()
			target, tmp := filepath.Join(w.dir, "x.wasm"), filepath.Join(w.dir, ".x.wasm.tmp")
			version := make([]byte, 64<<10)
			for i := 0; b.Loop(); i++ {
				version[0] = byte(i)
				if how == "rename" {
					b.StopTimer() // writing the temporary file is not the change
					if err := os.WriteFile(tmp, version, 0o644); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
					err = os.Rename(tmp, target)
				} else {
					err = os.WriteFile(target, version, 0o644)
				}
				if err != nil {
					b.Fatal(err)
				}
				select {
				case batch := <-w.Events():
					if len(batch) != 1 || batch[0] != (Event{target, Changed}) {
						b.Fatalf("got %v, want one Changed %s", batch, target)
					}
				case <-time.After(deadline):
					b.Fatalf("no events within %v", deadline)
				}
			}
		})
	}
}
