package wasmcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/wasmcp/wasmcp/abi"
)

// TestHTTPModule builds testdata/httpguest, whose tool uses net/http's
// default client, and runs it under wazero with a stand-in for the host's
// http_request: the module asks for the network, imports http_request, and
// its requests and responses cross the ABI whole.
func TestHTTPModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module of several megabytes")
	}
	var got []abi.HTTPRequest
	answer := func(req abi.HTTPRequest) (abi.ReplyStatus, any) {
		got = append(got, req)
		if strings.Contains(req.URL, "forbidden") {
			return abi.StatusDenied, "https://forbidden.example is not in plugin httpguest's net policy"
		}
		return abi.StatusOK, abi.HTTPResponse{Status: 201, URL: req.URL + "#final",
			Headers: []abi.HTTPHeader{{Name: "Content-Type", Value: "text/plain"}}, Body: append([]byte("made:"), req.Body...)}
	}
	g := newHTTPGuest(t, buildModule(t, "./testdata/httpguest"), answer)

	var d abi.Describe
	if err := json.Unmarshal(g.read(t, g.call(t, abi.ExportDescribe)[0]), &d); err != nil {
		t.Fatal(err)
	}
	if d.Permissions == nil || strings.Join(d.Permissions.Net, ",") != "*" {
		t.Errorf("permissions %+v", d.Permissions)
	}

	res := g.tool(t, "get", `{"url":"https://api.example/items","method":"POST","body":"x=1"}`)
	if res.IsError || string(res.StructuredContent) != `{"status":201,"url":"https://api.example/items#final","contentType":"text/plain","body":"made:x=1"}` {
		t.Errorf("result %s %+v", res.StructuredContent, res.Content)
	}
	// Line feeds and NULs cross in both directions as they are.
	res = g.tool(t, "get", `{"url":"https://api.example/items","method":"PUT","body":"a\u0000\nb\n"}`)
	if res.IsError || !strings.Contains(string(res.StructuredContent), `"body":"made:a\u0000\nb\n"`) {
		t.Errorf("binary body: result %s %+v", res.StructuredContent, res.Content)
	}
	if len(got) != 2 || got[0].Method != "POST" || got[0].URL != "https://api.example/items" || string(got[0].Body) != "x=1" ||
		!strings.Contains(strings.Join(headerLines(got[0].Headers), ","), "X-Guest: httpguest") {
		t.Errorf("requests %+v", got)
	}

	res = g.tool(t, "get", `{"url":"https://forbidden.example/"}`)
	if !res.IsError || !strings.Contains(res.Content[0].Text, "not in plugin httpguest's net policy") {
		t.Errorf("denied request: %+v", res.Content)
	}
}

func headerLines(hs []abi.HTTPHeader) []string {
	var out []string
	for _, h := range hs {
		out = append(out, h.Name+": "+h.Value)
	}
	return out
}

// newHTTPGuest instantiates wasm with the host functions it imports: log,
// and http_request and read_reply answered by answer (an abi.HTTPResponse,
// or a message).
func newHTTPGuest(t *testing.T, wasm []byte, answer func(abi.HTTPRequest) (abi.ReplyStatus, any)) *guestModule {
	ctx := context.Background()
	r := wazero.NewRuntime(ctx)
	t.Cleanup(func() { r.Close(ctx) })
	wasi_snapshot_preview1.MustInstantiate(ctx, r)
	g := &guestModule{funcs: map[string]api.Function{}}
	var reply []byte
	_, err := r.NewHostModuleBuilder(abi.ImportModule).
		NewFunctionBuilder().WithFunc(func(_ context.Context, m api.Module, level, ptr, n uint32) {
		msg, _ := m.Memory().Read(ptr, n)
		g.logs = append(g.logs, abi.LogLevel(level).String()+": "+string(msg))
	}).Export(abi.ImportLog).
		NewFunctionBuilder().WithFunc(func(_ context.Context, m api.Module, ptr, n uint32) uint64 {
		doc, _ := m.Memory().Read(ptr, n)
		req, err := abi.DecodeHTTPRequest(doc)
		if err != nil {
			reply = []byte(err.Error())
			return abi.PackReply(abi.StatusInvalid, uint32(len(reply)))
		}
		status, v := answer(req)
		if msg, ok := v.(string); ok {
			reply = []byte(msg)
		} else {
			reply = abi.EncodeHTTPResponse(v.(abi.HTTPResponse))
		}
		return abi.PackReply(status, uint32(len(reply)))
	}).Export(abi.ImportHTTPRequest).
		NewFunctionBuilder().WithFunc(func(_ context.Context, m api.Module, ptr, n uint32) uint32 {
		n = min(n, uint32(len(reply)))
		m.Memory().Write(ptr, reply[:n])
		return n
	}).Export(abi.ImportReadReply).
		Instantiate(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if g.compiled, err = r.CompileModule(ctx, wasm); err != nil {
		t.Fatal(err)
	}
	g.mod, err = r.InstantiateModule(ctx, g.compiled, wazero.NewModuleConfig().WithStartFunctions(abi.ExportInitialize))
	if err != nil {
		t.Fatal(err)
	}
	return g
}
