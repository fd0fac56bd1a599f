package main

import (
	"bytes"
	"context"
	"testing"
	"time"
)

// TestSoakShort is the soak at a size make test can afford: 300 calls. The
// full run is `make soak` (10,000 calls). The deadline is generous so that
// healthy calls answer even under the race detector on a loaded machine;
// it is what the endless loops run for.
func TestSoakShort(t *testing.T) {
	var out bytes.Buffer
	f, err := Soak(context.Background(), Options{Calls: 300, Workers: 4, Timeout: 15 * time.Second}, &out)
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + out.String())
	if err := f.Flat(); err != nil {
		t.Error(err)
	}
	total := 0
	for _, n := range f.ByTool {
		total += n
	}
	if total != 300 {
		t.Errorf("%d calls made, want 300", total)
	}
}
