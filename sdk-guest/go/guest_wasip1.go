//go:build wasip1

package wasmcp

import (
	"encoding/json"
	"runtime"
	"unsafe"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/sdk-guest/go/internal/guest"
)

// The WebAssembly side of the SDK: the exports and imports of ABI.md. It only
// moves bytes between linear memory and package guest. Export names must be
// string literals; guest_abi_test.go checks each one against package abi.

//go:wasmimport wasmcp log
func hostLog(level uint32, msg string)

//go:wasmimport wasmcp progress
func hostProgress(progress, total float64, msg string)

//go:wasmimport wasmcp cancelled
func hostCancelled() uint32

//go:wasmimport wasmcp sample
func hostSample(req string) uint64

//go:wasmimport wasmcp elicit
func hostElicit(req string) uint64

//go:wasmimport wasmcp read_reply
func hostReadReply(dst unsafe.Pointer, n uint32) uint32

func init() {
	guest.LogSink = func(level abi.LogLevel, msg string) { hostLog(uint32(level), msg) }
	guest.Client = hostClient{}
}

// hostClient reaches the client features through the host's imports.
type hostClient struct{}

func (hostClient) Progress(progress, total float64, msg string) { hostProgress(progress, total, msg) }

func (hostClient) Cancelled() bool { return hostCancelled() != 0 }

func (hostClient) Request(elicit bool, params []byte) (abi.ReplyStatus, []byte) {
	// The host copies the request before it returns, so a string view of
	// params is safe.
	req := unsafe.String(unsafe.SliceData(params), len(params))
	var v uint64
	if elicit {
		v = hostElicit(req)
	} else {
		v = hostSample(req)
	}
	status, n := abi.UnpackReply(v)
	reply := make([]byte, n)
	if n > 0 {
		reply = reply[:hostReadReply(unsafe.Pointer(unsafe.SliceData(reply)), n)]
	}
	return status, reply
}

const (
	// keepBuffer is the largest argument buffer kept for reuse by the next
	// call. Larger ones are dropped after their call so that one big call
	// does not pin its memory for the instance's lifetime.
	keepBuffer = 64 << 10
	// gcEvery is how many bytes may cross the boundary (arguments plus
	// results) between forced collections. See the package documentation.
	gcEvery = 4 << 20
	// maxAlloc is the largest argument buffer wasmcp_alloc attempts; beyond
	// it returns 0 (the host reports the call as failed) rather than letting
	// the Go runtime abort on an impossible allocation.
	maxAlloc = 1 << 30
)

var (
	input   []byte // the region of the last wasmcp_alloc, read by the export called next
	output  []byte // the last returned document, reachable until the host copied it
	traffic int    // bytes crossed since the last forced collection
)

//go:wasmexport wasmcp_abi_version
func exportVersion() int32 { return abi.Version }

//go:wasmexport wasmcp_alloc
func exportAlloc(size uint32) uint32 {
	output = nil // the host copies a document out before it calls again
	if size > maxAlloc {
		return 0
	}
	if cap(input) < int(size) || cap(input) == 0 {
		input = make([]byte, max(size, 1))
	}
	input = input[:size]
	return address(input[:cap(input)])
}

//go:wasmexport wasmcp_describe
func exportDescribe() uint64 {
	doc, err := guest.Describe()
	if err != nil {
		guest.Log(abi.LogCritical, "wasmcp_describe: "+err.Error())
		return 0
	}
	output = doc
	return abi.Pack(address(doc), uint32(len(doc)))
}

//go:wasmexport wasmcp_call
func exportCall(namePtr, nameLen, argsPtr, argsLen uint32) uint64 {
	if !received(namePtr, uint64(nameLen)+uint64(argsLen)) || argsPtr != namePtr+nameLen {
		doc, _ := json.Marshal(guest.ErrorResult("wasmcp_call: " + notReceived))
		return reply(doc)
	}
	return reply(guest.Call(string(input[:nameLen]), input[nameLen:nameLen+argsLen]))
}

//go:wasmexport wasmcp_read
func exportRead(uriPtr, uriLen uint32) uint64 {
	if !received(uriPtr, uint64(uriLen)) {
		return reply(guest.ErrorDocument(abi.CodeInternalError, "wasmcp_read: "+notReceived))
	}
	return reply(guest.Read(string(input[:uriLen])))
}

//go:wasmexport wasmcp_prompt
func exportPrompt(namePtr, nameLen, argsPtr, argsLen uint32) uint64 {
	if !received(namePtr, uint64(nameLen)+uint64(argsLen)) || argsPtr != namePtr+nameLen {
		return reply(guest.ErrorDocument(abi.CodeInternalError, "wasmcp_prompt: "+notReceived))
	}
	return reply(guest.GetPrompt(string(input[:nameLen]), input[nameLen:nameLen+argsLen]))
}

//go:wasmexport wasmcp_complete
func exportComplete(reqPtr, reqLen uint32) uint64 {
	if !received(reqPtr, uint64(reqLen)) {
		return reply(guest.ErrorDocument(abi.CodeInternalError, "wasmcp_complete: "+notReceived))
	}
	return reply(guest.Complete(input[:reqLen]))
}

const notReceived = "the input is not in the region wasmcp_alloc returned"

// received reports whether the n bytes at ptr are the region of the last
// wasmcp_alloc: only that region is known to be ours (ABI.md §3).
func received(ptr uint32, n uint64) bool {
	return cap(input) > 0 && ptr == address(input[:cap(input)]) && n <= uint64(len(input))
}

// reply hands doc to the host: it stays referenced until the host has
// copied it, the input buffer is dropped when large, and the collector gets
// its turn.
func reply(doc []byte) uint64 {
	traffic += len(input) + len(doc)
	if cap(input) > keepBuffer {
		input = nil
	}
	output = doc
	settle()
	return abi.Pack(address(doc), uint32(len(doc)))
}

// settle lets the garbage collector keep up; see "Memory" in the package
// documentation. Go on WebAssembly has no threads and no preemption, and in
// a reactor Go runs only while an export runs, so the runtime's background
// goroutines (the GC's mark workers and the sweeper) run only when the
// calling goroutine yields. Without that, a collection started by an
// allocation stalls and the heap grows with every call (measured: 200 calls
// with 1 MiB arguments grew memory to 125 MiB, 300 calls allocating 16 MiB
// each ran out of 4 GiB). Yielding once per call lets a started collection
// finish; after heavy boundary traffic a full collection returns the large
// buffers at once, before the next big call.
func settle() {
	runtime.Gosched()
	if traffic >= gcEvery {
		traffic = 0
		runtime.GC()
	}
}

// address is the linear-memory address of b's first byte. Linear memory is
// 32-bit, so the conversion loses nothing.
func address(b []byte) uint32 {
	if len(b) == 0 {
		return 0
	}
	return uint32(uintptr(unsafe.Pointer(unsafe.SliceData(b))))
}
