package vmem

import (
	"bytes"
	"math"
	"testing"
)

// A region keeps its bytes and its place as it grows, and reads as zero
// where nothing was written.
func TestGrow(t *testing.T) {
	for _, tt := range []struct {
		name  string
		limit uint64
	}{
		{"reserved", 1 << 20},
		{"moving", math.MaxUint64}, // more than can be reserved
	} {
		t.Run(tt.name, func(t *testing.T) {
			var r Region
			defer r.Free()
			a, ok := r.Grow(100<<10, tt.limit)
			if !ok || len(a) != 100<<10 {
				t.Fatalf("Grow = %d bytes, %v", len(a), ok)
			}
			copy(a[1000:], "kept")
			b, ok := r.Grow(300<<10, tt.limit)
			if !ok || len(b) != 300<<10 || string(b[1000:1004]) != "kept" {
				t.Fatalf("Grow lost the bytes: %v", ok)
			}
			if !bytes.Equal(b[100<<10:], make([]byte, 200<<10)) {
				t.Error("the new bytes are not zero")
			}
			if moved := &a[0] != &b[0]; moved != r.moves {
				t.Errorf("the region moved: %v, moves: %v", moved, r.moves)
			}
		})
	}
}

// Release zeroes the bytes from its offset on and keeps those before it;
// the region grows again after Free.
func TestReleaseAndFree(t *testing.T) {
	var r Region
	defer r.Free()
	b, _ := r.Grow(200<<10, 1<<20)
	for i := range b {
		b[i] = 1
	}
	const from = 5000 // within a page
	if !r.Release(from) {
		t.Skip("this platform cannot release pages")
	}
	if !bytes.Equal(b[from:], make([]byte, len(b)-from)) || b[from-1] != 1 {
		t.Error("Release did not zero exactly the bytes from its offset on")
	}
	r.Free()
	if b, ok := r.Grow(10, 1<<20); !ok || !bytes.Equal(b, make([]byte, 10)) {
		t.Error("the region does not grow again after Free")
	}
}
