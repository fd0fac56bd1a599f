package egress_test

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"testing"

	"github.com/wasmcp/wasmcp/abi"
)

// TestBodyNotReadAfterDo checks that the request body, which the sandbox
// passes as a slice of the guest's memory, is not read once Do has
// returned: a server may answer before it has read the body, and the
// guest's memory is unmapped when its instance closes, so a read then
// would crash the host. The race detector sees such a read for certain;
// the content check, only when the transport is slow to give up.
func TestBodyNotReadAfterDo(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	mutated := make(chan struct{})
	sawX := make(chan bool, 1)
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			sawX <- false
			return
		}
		defer conn.Close()
		r := bufio.NewReader(conn)
		if _, err := http.ReadRequest(r); err != nil {
			sawX <- false
			return
		}
		// Answer at once, the body unread.
		io.WriteString(conn, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
		<-mutated
		buf := make([]byte, 64<<10)
		seen := false
		for {
			n, err := r.Read(buf)
			seen = seen || bytes.IndexByte(buf[:n], 'X') >= 0
			if err != nil {
				break
			}
		}
		sawX <- seen
	}()
	origin := "http://" + ln.Addr().String()
	c := client(t, `{"net":["`+origin+`"]}`, nil)
	head := `{"method":"POST","url":"` + origin + `/"}` + "\n"
	doc := append([]byte(head), bytes.Repeat([]byte("a"), abi.MaxHTTPRequestSize-len(head))...)
	r, err := abi.DecodeHTTPRequest(doc) // the body is doc's memory, as the wasmcp dialect reads it
	if err != nil {
		t.Fatal(err)
	}
	if status, reply := guestReply(c.Do(t.Context(), "post", r)); status != abi.StatusOK {
		t.Fatalf("status %v: %s", status, reply)
	}
	// What the guest does with its memory once the call returns.
	for i := len(head); i < len(doc); i++ {
		doc[i] = 'X'
	}
	close(mutated)
	if <-sawX {
		t.Fatal("the body was read after Do returned")
	}
}
