package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"

	"github.com/wasmcp/wasmcp/abi"
)

// The host functions of ExtismModule beyond the kernel: config, variables,
// logs and HTTP, mapped onto wasmcp's policy, logging and egress.

// extismLogLevels map Extism's log functions onto MCP's levels, in
// Extism's order: get_log_level returns the index of the lowest level
// wanted. MCP has no trace: trace lines are debug lines.
var extismLogLevels = []struct {
	name  string
	level abi.LogLevel
}{{"trace", abi.LogDebug}, {"debug", abi.LogDebug}, {"info", abi.LogInfo}, {"warn", abi.LogWarning}, {"error", abi.LogError}}

// extismLogOff is what get_log_level returns when no line is wanted.
const extismLogOff = math.MaxInt32

// varStore holds the Extism variables of one Module: shared by its
// instances, and gone with it when the plugin is reloaded.
type varStore struct {
	mu    sync.Mutex
	vals  map[string][]byte // guarded by mu
	bytes int               // guarded by mu
}

func (v *varStore) get(key string) ([]byte, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	val, ok := v.vals[key]
	return val, ok
}

// varOverhead is what each variable counts against MaxVarBytes beyond its
// key and value: the host's map entry, string and slice. Without it a
// plugin keeping many one-byte variables held dozens of times the limit.
const varOverhead = 64

// varSize is what a variable counts against MaxVarBytes.
func varSize(key string, val []byte) int { return len(key) + len(val) + varOverhead }

// set sets or, for a nil value, deletes key; it fails when the store would
// exceed MaxVarBytes.
func (v *varStore) set(key string, val []byte) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	old, had := v.vals[key]
	size := v.bytes
	if had {
		size -= varSize(key, old)
	}
	if val == nil {
		delete(v.vals, key)
		v.bytes = size
		return nil
	}
	size += varSize(key, val)
	if size > MaxVarBytes {
		return fmt.Errorf("the plugin's variables would take %d bytes, over the limit of %s", size, formatBytes(MaxVarBytes))
	}
	if v.vals == nil {
		v.vals = map[string][]byte{}
	}
	v.vals[key], v.bytes = val, size
	return nil
}

func (in *instance) configGet(ctx context.Context, s []uint64) {
	key := in.kblock("config_get", "the key", s[0])
	v, ok := in.module.opts.Config[string(key)]
	s[0] = 0
	if ok {
		s[0] = in.kbytes(ctx, "config_get", []byte(v))
	}
}

func (in *instance) varGet(ctx context.Context, s []uint64) {
	key := in.kblock("var_get", "the key", s[0])
	v, _ := in.module.vars.get(string(key))
	s[0] = in.kbytes(ctx, "var_get", v)
}

func (in *instance) varSet(_ context.Context, s []uint64) {
	key := string(in.kblock("var_set", "the key", s[0]))
	var val []byte
	if s[1] != 0 {
		// A copy: the block's memory is the call's. Never empty, as
		// alloc(0) gives no block.
		val = bytes.Clone(in.kblock("var_set", "the value", s[1]))
	}
	in.kcheck("var_set", in.module.vars.set(key, val))
}

// extismLog implements log_*: the message block goes out as a log line of
// the plugin, like one of wasmcp.log.
func (in *instance) extismLog(ctx context.Context, fn string, level abi.LogLevel, p uint64) {
	msg := in.kblock(fn, "the message", p)
	in.module.emit(ctx, level, msg)
}

// extismLogLevel is the lowest Extism level anyone would see: trace (0)
// when the call has a client to send lines to, which filters them by the
// level it chose, or when the logger wants debug lines; else the logger's.
func (in *instance) extismLogLevel(ctx context.Context) int32 {
	if st := in.call(); st != nil {
		if st.hooks != nil && st.hooks.Log != nil {
			return 0
		}
		if st.budget != nil {
			ctx = st.budget.caller()
		}
	}
	logger := in.module.opts.Logger
	for i, l := range extismLogLevels {
		if logger.Enabled(ctx, slogLevel(l.level)) {
			return int32(i)
		}
	}
	return extismLogOff
}

// extismRequest is the request document of Extism's http_request.
type extismRequest struct {
	URL     string            `json:"url"`
	Method  string            `json:"method"`
	Headers map[string]string `json:"headers"`
}

// extismHTTP implements http_request: (request, body) -> response body.
// The request goes through the instance's egress client, like one of
// wasmcp.http_request, within the plugin's net grant. Any outcome but a
// response ends the call with ErrNet, naming the URL and the reason, as
// Extism's runtime does for a host it does not allow.
func (in *instance) extismHTTP(ctx context.Context, s []uint64) {
	const fn = "http_request"
	head := in.kblock(fn, "the request", s[0])
	var body []byte
	if s[1] != 0 {
		body = in.kblock(fn, "the body", s[1])
	}
	var req extismRequest
	if err := json.Unmarshal(head, &req); err != nil {
		in.fault(fn, fmt.Errorf("the request is not an HTTP request object: %w", err))
	}
	in.ext.httpStatus, in.ext.httpHeaders = 0, nil
	method := strings.ToUpper(req.Method)
	if method == "" {
		method = "GET"
	}
	st := in.call()
	if st == nil || st.budget == nil {
		panic(&callError{ErrNet, nil, fmt.Sprintf("%s %s %s: denied: no request is allowed outside a tool call", fn, method, req.URL)})
	}
	r := abi.HTTPRequest{Method: method, URL: req.URL, Body: body}
	names := make([]string, 0, len(req.Headers))
	for name := range req.Headers {
		names = append(names, name)
	}
	sort.Strings(names) // a map has no order; the wire gets a stable one
	for _, name := range names {
		r.Headers = append(r.Headers, abi.HTTPHeader{Name: name, Value: req.Headers[name]})
	}
	doc, err := abi.EncodeHTTPRequest(r)
	if err != nil {
		in.fault(fn, err)
	}
	var status abi.ReplyStatus
	var reply []byte
	rctx := st.budget.caller()
	in.outside(func() { status, reply = in.net.Do(rctx, st.tool, doc) })
	if status == abi.StatusTimeout && ctx.Err() != nil {
		panic(ctx.Err()) // the call's deadline: classify says so
	}
	if status != abi.StatusOK {
		panic(&callError{ErrNet, nil, fmt.Sprintf("%s %s %s: %s: %s", fn, method, req.URL, status, reply)})
	}
	resp, err := abi.DecodeHTTPResponse(reply)
	if err != nil {
		in.fault(fn, err)
	}
	in.ext.httpStatus = int32(resp.Status)
	headers := map[string]string{}
	for _, h := range resp.Headers {
		name := strings.ToLower(h.Name) // as Extism's runtime gives them
		if v, ok := headers[name]; ok {
			headers[name] = v + ", " + h.Value
		} else {
			headers[name] = h.Value
		}
	}
	in.ext.httpHeaders, _ = json.Marshal(headers)
	if len(resp.Body) == 0 {
		s[0] = 0
		return
	}
	s[0] = in.kbytes(ctx, fn, resp.Body)
}
