package e2e

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestShutdownOnSignal stops a serving wasmcp with SIGINT and SIGTERM while
// its client still holds stdin open: it must exit 0 on its own. (Stopping on
// stdin EOF is checked by every other test's cleanup.)
func TestShutdownOnSignal(t *testing.T) {
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			ctx := testContext(t)
			cmd := exec.CommandContext(ctx, binPath, "serve", "--dir", servedCopy(t, wat("hostile")), "--cache-dir", cacheDir)
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			log := &lockedBuffer{}
			cmd.Stderr = log
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Signal only once it serves: before, the default action would
			// kill it, which says nothing about its shutdown.
			for !strings.Contains(log.String(), "serving over stdio") {
				select {
				case <-ctx.Done():
					t.Fatalf("server never started:\n%s", log)
				case <-time.After(20 * time.Millisecond):
				}
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			if err := cmd.Wait(); err != nil {
				t.Fatalf("after %v: %v\n%s", sig, err, log)
			}
			if !strings.Contains(log.String(), "stopping on signal") {
				t.Errorf("log does not say why it stopped:\n%s", log)
			}
		})
	}
}
