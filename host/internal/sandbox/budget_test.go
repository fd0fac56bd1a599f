package sandbox

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A call waiting for its turn on the processors waits on Done: it must
// close when the running time is up, with no one asking Err.
func TestBudgetDoneAtItsEnd(t *testing.T) {
	b := newBudget(t.Context(), 20*time.Millisecond)
	defer b.release()
	<-b.Done()
	if !errors.Is(b.Err(), context.DeadlineExceeded) {
		t.Fatalf("Err = %v, want DeadlineExceeded", b.Err())
	}
}

// While paused, the clock stops for Done too.
func TestBudgetDoneWaitsOutAPause(t *testing.T) {
	b := newBudget(t.Context(), 200*time.Millisecond)
	defer b.release()
	done := b.Done()
	b.pause()
	select {
	case <-done:
		t.Fatal("Done closed while the clock was stopped")
	case <-time.After(300 * time.Millisecond):
	}
	b.resume()
	<-done
	if !errors.Is(b.Err(), context.DeadlineExceeded) {
		t.Fatalf("Err = %v, want DeadlineExceeded", b.Err())
	}
}

func TestBudgetDoneWithItsParent(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	b := newBudget(ctx, time.Hour)
	defer b.release()
	done := b.Done()
	cancel()
	<-done
	if !errors.Is(b.Err(), context.Canceled) {
		t.Fatalf("Err = %v, want Canceled", b.Err())
	}
}
