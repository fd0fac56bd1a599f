package mcpadapter

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host"
)

// serveStdio runs a.Serve on pipes until ctx is done or the client side
// closes, and returns the client's side as a transport. served receives
// what Serve returned.
func serveStdio(ctx context.Context, a *Adapter) (client mcp.Transport, served <-chan error) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- a.Serve(ctx, inR, outW)
		// The client may be waiting for a line that will not come.
		outW.Close()
	}()
	return &mcp.IOTransport{Reader: outR, Writer: inW}, done
}

// rawClient speaks JSON-RPC lines to Serve.
type rawClient struct {
	t      *testing.T
	in     *io.PipeWriter
	out    *bufio.Reader
	served <-chan error
}

// rawServe starts a.Serve with maxInput (Options.MaxInput) and a raw client.
func rawServe(t *testing.T, h Host, maxInput int) *rawClient {
	t.Helper()
	a := New(h, Options{MaxInput: maxInput})
	t.Cleanup(a.Close)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- a.Serve(testContext(t), inR, outW)
		outW.Close()
	}()
	c := &rawClient{t: t, in: inW, out: bufio.NewReaderSize(outR, 1<<20), served: served}
	t.Cleanup(func() {
		inW.Close()
		go io.Copy(io.Discard, outR)
		if err := <-served; err != nil {
			t.Errorf("Serve = %v, want nil after EOF", err)
		}
	})
	return c
}

// send writes lines as they are, each ended with "\n".
func (c *rawClient) send(lines ...string) {
	c.t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(c.in, l+"\n"); err != nil {
			c.t.Fatalf("write %.80s: %v", l, err)
		}
	}
}

// next reads the next line the server writes.
func (c *rawClient) next() string {
	c.t.Helper()
	line, err := c.out.ReadString('\n')
	if err != nil {
		c.t.Fatalf("read: %v (got %q)", err, line)
	}
	return strings.TrimSuffix(line, "\n")
}

// expect reads the next line and compares it, as JSON, with want.
func (c *rawClient) expect(want string) {
	c.t.Helper()
	assertJSON(c.t, "line", json.RawMessage(c.next()), want)
}

// initialize does the handshake at protocol version.
func (c *rawClient) initialize(version string) {
	c.t.Helper()
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`, version))
	var resp struct {
		Result struct{ ProtocolVersion string }
	}
	if line := c.next(); json.Unmarshal([]byte(line), &resp) != nil || resp.Result.ProtocolVersion != version {
		c.t.Fatalf("initialize answered %s, want protocol %s", line, version)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

const pong = `{"jsonrpc":"2.0","id":%d,"result":{}}`

// Blank lines and Windows line ends are nothing to answer. (The other
// malformed lines are in testdata/transcripts.)
func TestStdioBlankLinesAndCRLF(t *testing.T) {
	c := rawServe(t, &fakeHost{}, 0)
	c.send("", "  \t", `{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\r")
	c.expect(fmt.Sprintf(pong, 2))
}

func TestStdioLargeMessages(t *testing.T) {
	h := &fakeHost{tools: []host.Tool{tool("echo", `{"type":"object"}`)}}
	h.call = func(_ context.Context, req host.CallRequest) (*host.Result, error) {
		return &host.Result{Result: abi.Result{Content: []abi.Content{abi.Text(fmt.Sprint(len(req.Arguments)))}, StructuredContent: req.Arguments}}, nil
	}
	// The line limit is MaxInput plus 1 MiB, or go-sdk's 16 MiB.
	c := rawServe(t, h, 0)
	c.initialize(legacy)
	call := func(id int, size int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"s":"%s"}}}`, id, strings.Repeat("x", size))
	}
	const size = 2 << 20 // more than the read buffer, and a pipe's
	c.send(call(1, size))
	var resp struct {
		ID     int
		Result struct {
			Content           []struct{ Text string }
			StructuredContent struct{ S string }
		}
	}
	if err := json.Unmarshal([]byte(c.next()), &resp); err != nil {
		t.Fatal(err)
	}
	if resp.ID != 1 || len(resp.Result.StructuredContent.S) != size || resp.Result.Content[0].Text != fmt.Sprint(size+8) {
		t.Errorf("answer to a 2 MiB call: id %d, %s bytes in, %d echoed", resp.ID, resp.Result.Content[0].Text, len(resp.Result.StructuredContent.S))
	}
	// Over the limit: refused, with the id, and the session goes on.
	c.send(call(2, mcp.DefaultMaxLineLength))
	c.expect(`{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"message longer than 16777216 bytes"}}`)
	c.send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	c.expect(fmt.Sprintf(pong, 3))
}

// A call the client cancels gets no response.
func TestStdioCancelledCallNotAnswered(t *testing.T) {
	h := &fakeHost{tools: []host.Tool{tool("wait", `{"type":"object"}`)}}
	started, returned := make(chan struct{}), make(chan struct{})
	h.call = func(ctx context.Context, req host.CallRequest) (*host.Result, error) {
		close(started)
		<-ctx.Done()
		defer close(returned)
		return &host.Result{Result: abi.Result{Content: []abi.Content{abi.Text("canceled")}, IsError: true}}, nil
	}
	c := rawServe(t, h, 0)
	c.initialize(legacy)
	c.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"wait","arguments":{}}}`)
	<-started
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"x"}}`)
	<-returned
	// The SDK writes a handler's answer as soon as it returns: an answer to
	// 7 would come before these.
	for id := 8; id <= 9; id++ {
		c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id))
		c.expect(fmt.Sprintf(pong, id))
	}
}

// Both protocol eras over stdio with go-sdk's client: the handshake, or
// none, and a call. (Every test that connects a client runs over stdio;
// TestChangesReachClient has list_changed in both eras.)
func TestStdioBothEras(t *testing.T) {
	for _, version := range []string{legacy, ""} {
		t.Run("protocol="+cmp.Or(version, "latest"), func(t *testing.T) {
			h := &fakeHost{tools: []host.Tool{tool("echo", `{"type":"object"}`)}}
			h.call = func(_ context.Context, req host.CallRequest) (*host.Result, error) {
				return &host.Result{Result: abi.Result{Content: []abi.Content{abi.Text("echo " + string(req.Arguments))}}}, nil
			}
			a := New(h, Options{})
			defer a.Close()
			c := connect(t, a, version)
			if want := cmp.Or(version, "2026-07-28"); c.InitializeResult().ProtocolVersion != want {
				t.Fatalf("negotiated %s, want %s", c.InitializeResult().ProtocolVersion, want)
			}
			res, err := c.CallTool(testContext(t), &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"a":1}`)})
			if err != nil || textOf(res) != `echo {"a":1}` {
				t.Fatalf("call = %v, %v", res, err)
			}
		})
	}
}

// A client pipelining calls is not read past MaxInFlight unanswered ones.
func TestStdioBackPressure(t *testing.T) {
	h := &fakeHost{tools: []host.Tool{tool("wait", `{"type":"object"}`)}}
	started, release := make(chan struct{}, 10), make(chan struct{})
	h.call = func(ctx context.Context, req host.CallRequest) (*host.Result, error) {
		started <- struct{}{}
		<-release
		return &host.Result{Result: abi.Result{Content: []abi.Content{abi.Text("done")}}}, nil
	}
	a := New(h, Options{MaxInFlight: 2})
	defer a.Close()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go a.Serve(testContext(t), inR, outW)
	defer inW.Close()
	out := make(chan string, 10)
	go func() {
		dec := json.NewDecoder(outR)
		for {
			var m json.RawMessage
			if dec.Decode(&m) != nil {
				return
			}
			out <- string(m)
		}
	}()
	write := func(s string) { io.WriteString(inW, s+"\n") }
	write(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`)
	<-out
	write(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for id := 1; id <= 2; id++ {
		write(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"wait"}}`, id))
		<-started
	}
	// The third line is not read while two calls are in flight: its write
	// on the pipe does not return.
	written := make(chan struct{})
	go func() { write(`{"jsonrpc":"2.0","id":3,"method":"ping"}`); close(written) }()
	select {
	case <-written:
		t.Fatal("a third request was read with two calls in flight and a cap of two")
	case <-time.After(200 * time.Millisecond):
	}
	release <- struct{}{}
	<-written
	for range 2 {
		<-out // the first call's answer and the ping's, in some order
	}
	close(release)
	<-out
}

// When the client closes its input, the calls in flight are answered before
// Serve returns; a guest waiting on the client for sampling is told at once
// that no answer will come.
func TestStdioDrainsOnEOF(t *testing.T) {
	h := &fakeHost{tools: []host.Tool{tool("slow", `{"type":"object"}`), tool("ask", `{"type":"object"}`)}}
	started, release := make(chan struct{}, 2), make(chan struct{})
	h.call = func(ctx context.Context, req host.CallRequest) (*host.Result, error) {
		started <- struct{}{}
		if req.Tool == "ask" {
			_, err := req.Sample(ctx, json.RawMessage(`{"messages":[],"maxTokens":1}`))
			return &host.Result{Result: abi.Result{Content: []abi.Content{abi.Text(fmt.Sprint("sample: ", err))}}}, nil
		}
		<-release
		return &host.Result{Result: abi.Result{Content: []abi.Content{abi.Text("slow done")}}}, nil
	}
	a := New(h, Options{})
	defer a.Close()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- a.Serve(testContext(t), inR, outW); outW.Close() }()
	lines := make(chan string, 10)
	go func() {
		all, _ := io.ReadAll(outR)
		for _, l := range strings.Split(strings.TrimSpace(string(all)), "\n") {
			lines <- l
		}
		close(lines)
	}()
	write := func(s string) { io.WriteString(inW, s+"\n") }
	write(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{}},"clientInfo":{"name":"x","version":"1"}}}`)
	write(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	write(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}`)
	write(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask"}}`)
	<-started
	<-started
	inW.Close() // EOF with two calls in flight, one of them waiting on us
	close(release)
	if err := <-served; err != nil {
		t.Fatalf("Serve = %v", err)
	}
	var got []string
	for l := range lines {
		got = append(got, l)
	}
	all := strings.Join(got, "\n")
	if !strings.Contains(all, `"id":1,"result"`) || !strings.Contains(all, "slow done") ||
		!strings.Contains(all, `"id":2,"result"`) || !strings.Contains(all, "closed its input") {
		t.Errorf("output after EOF:\n%s\nwant the answers to calls 1 and 2, the sample told the client left", all)
	}
}
