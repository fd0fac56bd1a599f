package main

import (
	"os"
	"runtime/debug"
	"testing"
)

// serve sets its own GOGC only when the environment has none.
func TestTuneGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	t.Setenv("GOGC", "100") // restored after the test
	os.Unsetenv("GOGC")
	tuneGC()
	if got := debug.SetGCPercent(100); got != serverGCPercent {
		t.Errorf("without GOGC: GC percent %d, want %d", got, serverGCPercent)
	}

	t.Setenv("GOGC", "150")
	debug.SetGCPercent(150) // as the runtime read it at start-up
	tuneGC()
	if got := debug.SetGCPercent(100); got != 150 {
		t.Errorf("with GOGC=150: GC percent %d, want the operator's 150", got)
	}
}
