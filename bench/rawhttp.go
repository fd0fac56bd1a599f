package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
)

// rawHTTPClient is the HTTP counterpart of rawClient: one MCP session over
// Streamable HTTP driven by hand, with pre-built request bodies and no
// decoding beyond finding the answer, so that the client costs the server
// under test as little of the shared machine as possible.
type rawHTTPClient struct {
	url, session, protocol string
	client                 *http.Client
	next                   int64
	buf                    []byte
}

// dialRawHTTP performs the initialize handshake and returns the session.
func dialRawHTTP(ctx context.Context, client *http.Client, url, protocol string) (*rawHTTPClient, error) {
	c := &rawHTTPClient{url: url, protocol: protocol, client: client}
	init := fmt.Sprintf(`{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"wasmcp-bench-raw","version":"0"}}`, protocol)
	resp, err := c.post(ctx, "initialize", init, true)
	if err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	c.session = resp.Header.Get("Mcp-Session-Id")
	if _, err := c.post(ctx, "notifications/initialized", "", false); err != nil {
		return nil, fmt.Errorf("initialized: %w", err)
	}
	return c, nil
}

// call calls echo and checks the answer.
func (c *rawHTTPClient) call(ctx context.Context, params string) error {
	_, err := c.post(ctx, "tools/call", params, true)
	return err
}

// post sends one request (with an id when call is set; a notification
// otherwise) and reads the whole answer, JSON or an event stream, which the
// server ends once it has answered.
func (c *rawHTTPClient) post(ctx context.Context, method, params string, call bool) (*http.Response, error) {
	c.buf = append(c.buf[:0], `{"jsonrpc":"2.0"`...)
	if call {
		c.next++
		c.buf = append(c.buf, `,"id":`...)
		c.buf = strconv.AppendInt(c.buf, c.next, 10)
	}
	c.buf = append(c.buf, `,"method":"`...)
	c.buf = append(c.buf, method...)
	c.buf = append(c.buf, '"')
	if params != "" {
		c.buf = append(c.buf, `,"params":`...)
		c.buf = append(c.buf, params...)
	}
	c.buf = append(c.buf, '}')
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(c.buf))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
		req.Header.Set("Mcp-Protocol-Version", c.protocol)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	switch {
	case resp.StatusCode/100 != 2:
		return nil, fmt.Errorf("%s: %s: %.300s", method, resp.Status, body)
	case call && !bytes.Contains(body, []byte(`"result"`)):
		return nil, fmt.Errorf("%s: no result in %.300s", method, body)
	case call && bytes.Contains(body, []byte(`"isError":true`)):
		return nil, fmt.Errorf("%s: tool error: %.300s", method, body)
	}
	return resp, nil
}

// close ends the session.
func (c *rawHTTPClient) close() {
	req, err := http.NewRequest(http.MethodDelete, c.url, nil)
	if err != nil || c.session == "" {
		return
	}
	req.Header.Set("Mcp-Session-Id", c.session)
	req.Header.Set("Mcp-Protocol-Version", c.protocol)
	if resp, err := c.client.Do(req); err == nil {
		resp.Body.Close()
	}
}
