package host

import (
	"encoding/json"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"github.com/wasmcp/wasmcp/abi"
)

// TestReclaimer checks that memory is reclaimed once per every bytes, one
// reclaim at a time, and never after stop; and that without WithMemoryReturn
// it never is.
func TestReclaimer(t *testing.T) {
	const reclaimEvery = 16 << 20
	freed := make(chan struct{}, 10)
	r := &reclaimer{free: func() { freed <- struct{}{} }, delay: time.Millisecond, every: reclaimEvery}
	r.add(reclaimEvery - 1)
	r.add(1)
	r.add(reclaimEvery) // while the first is pending: counted, and reclaimed after it
	<-freed
	<-freed
	for r.pending() {
		time.Sleep(time.Millisecond)
	}
	r.delay = time.Hour
	r.add(reclaimEvery)
	r.stop()
	r.add(reclaimEvery)
	if r.pending() {
		t.Error("a reclaim is pending after stop")
	}
	select {
	case <-freed:
		t.Error("reclaimed after stop")
	default:
	}
	var none *reclaimer = newReclaimer(0)
	none.add(1 << 40) // a Host without WithMemoryReturn: nothing happens
	none.stop()
}

// A reclaim frees what encoding/json keeps in its pools after encoding a
// large result, as a transport does for every call: buffers grown to the
// result's size, which outlive one collection.
func TestReclaimFreesPooledBuffers(t *testing.T) {
	live := func() uint64 {
		s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		metrics.Read(s)
		return s[0].Value.Uint64()
	}
	runtime.GC()
	runtime.GC()
	before := live()
	const size = 16 << 20
	encoded := func() int {
		b, _ := json.Marshal(map[string]string{"text": strings.Repeat("x", size)})
		return len(b)
	}
	if n := encoded(); n < size {
		t.Fatalf("encoded %d bytes", n)
	}
	reclaim()
	if after := live(); after > before+size/4 {
		t.Errorf("after a reclaim the live heap is %d MiB larger than before encoding %d MiB",
			(after-before)>>20, size>>20)
	}
}

func (r *reclaimer) pending() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.timer != nil
}

func TestResultSize(t *testing.T) {
	text, blob := "abc", "QUJD"
	res := &abi.Result{
		Content: []abi.Content{abi.Text("hello"), {Type: abi.ContentImage, Data: "AAAA"},
			{Type: abi.ContentResource, Resource: &abi.ResourceContents{Text: &text}},
			{Type: abi.ContentResource, Resource: &abi.ResourceContents{Blob: &blob}}},
		StructuredContent: []byte(`{"a":1}`),
	}
	if got, want := resultSize(res), 5+4+3+4+7; got != want {
		t.Errorf("resultSize = %d, want %d", got, want)
	}
}
