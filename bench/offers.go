package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmcp/wasmcp/abi"
)

// Resources and prompts beside tools (issue 32): what serving them costs
// against serving tools alone.

// offerDocsAt is where a generated offering guest keeps its documents: above
// the arguments of any call the bench makes (they go at 65536, allocCode),
// so that a document may be megabytes.
const offerDocsAt = 1 << 20

// runOffers measures ratios, each against the same thing with tools only:
// a 1 MB resources/read against a tools/call returning the same megabyte;
// the warm start of the scale experiment's modules with a few resources,
// prompts and a template added, and with as many of them as tools; and the
// hot reload of one such module.
func runOffers(ctx context.Context, e *env) ([]row, error) {
	read, err := offersRead(ctx, e)
	if err != nil {
		return []row{read}, err
	}
	rows := []row{read}
	for _, n := range []int{2, 10} {
		start, err := offersStart(ctx, e, n)
		rows = append(rows, start)
		if err != nil {
			return rows, err
		}
	}
	reload, err := offersReload(ctx, e)
	return append(rows, reload), err
}

// offersRead serves a guest whose tool big and resource bench://big give
// the same text, and reads and calls in turn over stdio.
func offersRead(ctx context.Context, e *env) (row, error) {
	n, samples := e.size(1_000_000, 10_000), e.size(20, 2)
	r := row{name: fmt.Sprintf("resources/read of a %s text resource through wasmcp serve (stdio) ÷ tools/call returning the same %s",
		size(n), size(n)), floor: atMost(1.1)}
	text := strings.Repeat("x", n)
	result, err := json.Marshal(abi.Result{Content: []abi.Content{abi.Text(text)}})
	if err != nil {
		return r, err
	}
	contents, err := json.Marshal(abi.ReadResult{Contents: []abi.ResourceContents{{URI: "bench://big", MimeType: "text/plain", Text: &text}}})
	if err != nil {
		return r, err
	}
	wasm, err := generateOfferGuest(abi.Describe{
		Tools:     []abi.Tool{{Name: "big", InputSchema: json.RawMessage(`{"type":"object"}`)}},
		Resources: []abi.Resource{{URI: "bench://big", Name: "big", MimeType: "text/plain"}},
	}, result, contents, nil)
	if err != nil {
		return r, err
	}
	dir, err := e.dir("offers-read")
	if err != nil {
		return r, err
	}
	if err := os.WriteFile(filepath.Join(dir, "big.wasm"), wasm, 0o644); err != nil {
		return r, err
	}
	readBig := func(cs *mcp.ClientSession) error {
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "bench://big"})
		if err != nil {
			return err
		}
		if len(res.Contents) != 1 || len(res.Contents[0].Text) != n {
			return fmt.Errorf("read bench://big: %d contents", len(res.Contents))
		}
		return nil
	}
	callBig := func(cs *mcp.ClientSession) error {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "big", Arguments: map[string]any{}})
		if err != nil {
			return err
		}
		if res.IsError || len(resultText(res)) != n {
			return fmt.Errorf("call big: error %v, %d bytes", res.IsError, len(resultText(res)))
		}
		return nil
	}
	for rep := range e.opts.reps {
		cmd, err := e.wasmcpCmd(fmt.Sprintf("offers-read-%d", rep), "serve", "-dir", dir, "-cache-dir", e.codeCache, "-wait-loaded")
		if err != nil {
			return r, err
		}
		cs, err := connectStdio(ctx, cmd, nil)
		if err != nil {
			return r, err
		}
		d, err := sampleAlternately(samples, [2]func() error{func() error { return readBig(cs) }, func() error { return callBig(cs) }})
		cs.Close()
		if err != nil {
			return r, err
		}
		e.log.Info("offers: read", "rep", rep, "read", d[0], "call", d[1])
		r.add(float64(d[0]), float64(d[1]), ms(d[0]), ms(d[1]))
	}
	return r, nil
}

// offersStart times warm starts of the scale experiment's modules with
// offers, n resources, n prompts and one template each, and without, in
// turn. The measured column adds the server's CPU time, which a busy
// machine does not stretch.
func offersStart(ctx context.Context, e *env, n int) (row, error) {
	mods := e.opts.modules
	if e.opts.quick {
		mods = 3
	}
	tools := mods * scalePerModule
	r := row{name: fmt.Sprintf("%d modules / %d tools, and %d resources, %d templates, %d prompts: warm start, spawn → "+
		"initialize (-wait-loaded) and every tool listed ÷ the same modules with tools only",
		mods, tools, mods*n, mods, mods*n), floor: atMost(1.1)}
	e.log.Info("offers: generating modules", "modules", mods, "offers per module", 2*n+1)
	var dirs, caches [2]string // with offers, tools only
	for i, kind := range []string{"offers", "tools"} {
		var err error
		if dirs[i], err = e.dir(fmt.Sprintf("offers-start-%d-%s", n, kind)); err != nil {
			return r, err
		}
		if caches[i], err = e.dir(fmt.Sprintf("offers-start-cache-%d-%s", n, kind)); err != nil {
			return r, err
		}
	}
	for m := range mods {
		ts := make([]abi.Tool, scalePerModule)
		for k := range ts {
			ts[k] = scaleTool(m, k)
		}
		for i, d := range []abi.Describe{offersDescribe(fmt.Sprintf("m%04d", m), ts, n, 1), {Tools: ts}} {
			wasm, err := generateOfferGuest(d, scaleResult, offerContents, offerMessages)
			if err != nil {
				return r, err
			}
			if err := os.WriteFile(filepath.Join(dirs[i], fmt.Sprintf("m%04d.wasm", m)), wasm, 0o644); err != nil {
				return r, err
			}
		}
	}
	for i := range dirs { // cold, untimed: fills the caches
		if _, _, err := offersStartOnce(ctx, e, fmt.Sprintf("offers-start-%d-prime-%d", n, i), dirs[i], caches[i], tools); err != nil {
			return r, err
		}
	}
	for rep := range e.opts.reps {
		var d, cpu [2]time.Duration
		for j := range 2 {
			i := (rep + j) % 2
			var err error
			if d[i], cpu[i], err = offersStartOnce(ctx, e, fmt.Sprintf("offers-start-%d-%d-%d", n, rep, i), dirs[i], caches[i], tools); err != nil {
				return r, err
			}
		}
		e.log.Info("offers: start", "rep", rep, "with offers", d[0], "its CPU", cpu[0], "tools only", d[1], "their CPU", cpu[1])
		r.add(float64(d[0]), float64(d[1]), fmt.Sprintf("%s (CPU %s)", ms(d[0]), ms(cpu[0])), fmt.Sprintf("%s (CPU %s)", ms(d[1]), ms(cpu[1])))
	}
	return r, nil
}

// offersStartOnce serves dir with -wait-loaded and returns the time from
// spawn to a listing of its tools, which must number tools, and the CPU
// time the server used until it exited.
func offersStartOnce(ctx context.Context, e *env, name, dir, cache string, tools int) (wall, cpu time.Duration, err error) {
	cmd, err := e.wasmcpCmd(name, "serve", "-dir", dir, "-cache-dir", cache, "-wait-loaded")
	if err != nil {
		return 0, 0, err
	}
	start := time.Now()
	cs, err := connectStdio(ctx, cmd, nil)
	if err != nil {
		return 0, 0, err
	}
	n, err := countTools(ctx, cs)
	wall = time.Since(start)
	if err == nil && n != tools {
		err = fmt.Errorf("%s: %d tools listed, want %d", name, n, tools)
	}
	if cerr := cs.Close(); err == nil {
		err = cerr
	}
	if cmd.ProcessState != nil {
		cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	return wall, cpu, err
}

// offersReload times the warm hot reload of a module of the scale
// experiment's kind whose tool echo changes, with resources, templates and
// prompts beside and without, in turn.
func offersReload(ctx context.Context, e *env) (row, error) {
	const resources, templates = 50, 5
	landings := e.size(10, 2)
	ts := []abi.Tool{{Name: "echo", Description: echoDescription, InputSchema: json.RawMessage(`{"type":"object"}`)}}
	for k := 1; k < scalePerModule; k++ {
		ts = append(ts, scaleTool(0, k))
	}
	r := row{name: fmt.Sprintf("hot reload, warm, a generated module of %d tools and %d resources, %d templates, %d prompts: "+
		"file landed → list_changed at a go-sdk client ÷ the same module with tools only", len(ts), resources, templates, resources),
		floor: atMost(1.1)}
	var wasm [2][]byte
	for i, d := range []abi.Describe{offersDescribe("reload", ts, resources, templates), {Tools: ts}} {
		var err error
		if wasm[i], err = generateOfferGuest(d, scaleResult, offerContents, offerMessages); err != nil {
			return r, err
		}
	}
	for rep := range e.opts.reps {
		var d [2]time.Duration
		for j := range 2 {
			i := (rep + j) % 2
			var err error
			if d[i], err = reloadRep(ctx, e, fmt.Sprintf("offers-%d-%d", rep, i), wasm[i], landings); err != nil {
				return r, err
			}
		}
		e.log.Info("offers: reload", "rep", rep, "with offers", d[0], "tools only", d[1])
		r.add(float64(d[0]), float64(d[1]), ms(d[0]), ms(d[1]))
	}
	return r, nil
}

// The documents of the generated offering guests: every call, read and
// prompt answers with these.
var (
	scaleResult, _    = json.Marshal(abi.Result{Content: []abi.Content{abi.Text(scaleAnswer)}})
	offerContents     = []byte(`{"contents":[{"uri":"bench://x","mimeType":"text/plain","text":"ok"}]}`)
	offerMessages     = []byte(`{"messages":[{"role":"user","content":{"type":"text","text":"ok"}}]}`)
	offerPromptSchema = []abi.PromptArgument{{Name: "topic", Description: "What to ask about.", Required: true}, {Name: "tone"}}
)

// offersDescribe is tools with n resources, n prompts and templates
// resource templates of a module named prefix, each described as a real
// one would be.
func offersDescribe(prefix string, tools []abi.Tool, n, templates int) abi.Describe {
	d := abi.Describe{Tools: tools}
	for k := range n {
		size := int64(1000 + k)
		d.Resources = append(d.Resources, abi.Resource{
			URI: fmt.Sprintf("bench://%s/docs/%02d", prefix, k), Name: fmt.Sprintf("%s-doc-%02d", prefix, k),
			Title: fmt.Sprintf("Document %d", k), Description: "A document the module keeps, as text.",
			MimeType: "text/markdown", Size: &size,
		})
		d.Prompts = append(d.Prompts, abi.Prompt{
			Name: fmt.Sprintf("%s_prompt_%02d", prefix, k), Title: fmt.Sprintf("Prompt %d", k),
			Description: "Asks the model about a topic in a tone.", Arguments: offerPromptSchema,
		})
	}
	for k := range templates {
		d.ResourceTemplates = append(d.ResourceTemplates, abi.ResourceTemplate{
			URITemplate: fmt.Sprintf("bench://%s/items%d/{id}", prefix, k), Name: fmt.Sprintf("%s-items-%d", prefix, k),
			Description: "An item by its id.", MimeType: "application/json",
		})
	}
	return d
}

// generateOfferGuest is generateGuest with wasmcp_read and wasmcp_prompt:
// its describe document is d, and every call returns result, every read
// read and every prompt prompt (nil for one that the module lists none
// of). The documents go at offerDocsAt.
func generateOfferGuest(d abi.Describe, result, read, prompt []byte) ([]byte, error) {
	describe, err := json.Marshal(d)
	if err != nil {
		return nil, err
	}
	const (
		i32 = 0x7f
		i64 = 0x7e
	)
	at := uint32(offerDocsAt)
	var data [][]byte
	place := func(doc []byte) []byte {
		packed := abi.Pack(at, uint32(len(doc)))
		data = append(data, dataSegment(at, doc))
		at = (at + uint32(len(doc)) + 15) &^ 15
		return i64Const(packed)
	}
	codes := [][]byte{body(nil, i32Const(abi.Version)), body([]byte{1, i32}, allocCode()),
		body(nil, place(describe)), body(nil, place(result)), body(nil, place(read)), body(nil, place(prompt))}
	types := vec(
		funcType(nil, []byte{i32}),                        // abi_version
		funcType([]byte{i32}, []byte{i32}),                // alloc
		funcType(nil, []byte{i64}),                        // describe
		funcType([]byte{i32, i32, i32, i32}, []byte{i64}), // call, prompt
		funcType([]byte{i32, i32}, []byte{i64}),           // read
	)
	funcs := vec([]byte{0}, []byte{1}, []byte{2}, []byte{3}, []byte{4}, []byte{3})
	memory := vec(cat([]byte{0x00}, uleb(uint64(at+65535)>>16))) // min pages to hold the documents, no max
	exports := vec(
		export(abi.ExportMemory, 0x02, 0),
		export(abi.ExportVersion, 0x00, 0),
		export(abi.ExportAlloc, 0x00, 1),
		export(abi.ExportDescribe, 0x00, 2),
		export(abi.ExportCall, 0x00, 3),
		export(abi.ExportRead, 0x00, 4),
		export(abi.ExportPrompt, 0x00, 5),
	)
	mod := []byte{0x00, 'a', 's', 'm', 0x01, 0x00, 0x00, 0x00}
	for _, s := range []struct {
		id      byte
		content []byte
	}{{1, types}, {3, funcs}, {5, memory}, {7, exports}, {10, vec(codes...)}, {11, vec(data...)}} {
		mod = append(mod, s.id)
		mod = append(mod, uleb(uint64(len(s.content)))...)
		mod = append(mod, s.content...)
	}
	return mod, nil
}
