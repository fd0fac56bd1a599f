package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/itchyny/gojq"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmcp/wasmcp/plugins/text/diff"
)

// jqFilter is the filter of the jq row: a select over every object and a
// small result, so that the row measures reading the input and running the
// filter rather than writing a large answer.
const jqFilter = `[.[] | select(.n % 3 == 0) | {id, name}] | length`

// A nativeWork is one call of a bundled plugin's tool and the same work done
// natively, in this process: from the same arguments JSON to the result
// document the tool's module returns.
type nativeWork struct {
	module, tool string
	args         []byte
	native       func(args []byte) ([]byte, error)
	floor        float64
}

// runNative measures real work through wasmcp against native Go: jq over a
// 1 MB document and unified_diff of two 100 KB texts, each an MCP round
// trip to `wasmcp serve` over stdio (warm: compiled, instance pooled) ÷ the
// same code compiled natively doing the same work in this process, its JSON
// included (gojq at the version plugins/jq uses; package diff of
// plugins/text). The calls take turns, as in the deadline experiment.
func runNative(ctx context.Context, e *env) ([]row, error) {
	samples := e.size(10, 2)
	works := []nativeWork{
		{"jq", "jq", jqDocArgs(e.size(7000, 30)), nativeJQ, 8},
		{"text", "unified_diff", diffTexts(e.size(1700, 60)), nativeDiff, 6},
	}
	dir, err := e.pluginDir("native", "jq", "text")
	if err != nil {
		return nil, err
	}
	rows := make([]row, len(works))
	for i, w := range works {
		rows[i] = row{name: fmt.Sprintf("%s of %s through wasmcp serve (stdio, warm, Go guest) ÷ native Go in process, JSON included",
			w.tool, size(len(w.args))), floor: atMost(w.floor)}
	}
	for rep := range e.opts.reps {
		cmd, err := e.wasmcpCmd(fmt.Sprintf("native-%d", rep), "serve", "-dir", dir, "-cache-dir", e.codeCache)
		if err != nil {
			return rows, err
		}
		cs, err := connectStdio(ctx, cmd, nil)
		if err != nil {
			return rows, err
		}
		for i, w := range works {
			// The first call also checks that both give the same result.
			want, err := w.native(w.args)
			if err == nil {
				err = callCompare(ctx, cs, w.tool, w.args, want)
			}
			if err != nil {
				cs.Close()
				return rows, fmt.Errorf("%s: %w", w.tool, err)
			}
			d, err := sampleAlternately(samples, [2]func() error{
				func() error { return callTool(ctx, cs, w.tool, w.args) },
				func() error { _, err := w.native(w.args); return err },
			})
			if err != nil {
				cs.Close()
				return rows, fmt.Errorf("%s: %w", w.tool, err)
			}
			e.log.Info("native", "tool", w.tool, "rep", rep, "wasmcp", d[0], "native", d[1])
			rows[i].add(float64(d[0]), float64(d[1]), ms(d[0]), ms(d[1]))
		}
		cs.Close()
	}
	return rows, nil
}

// callTool calls tool with the arguments JSON args and checks that it
// succeeded.
func callTool(ctx context.Context, cs *mcp.ClientSession, tool string, args []byte) error {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
	if err == nil && res.IsError {
		err = fmt.Errorf("tool error: %.300s", resultText(res))
	}
	return err
}

// callCompare calls tool with the arguments JSON args and checks that its
// structured content is that of the result document want, as JSON values.
func callCompare(ctx context.Context, cs *mcp.ClientSession, tool string, args, want []byte) error {
	var doc struct {
		StructuredContent json.RawMessage `json:"structuredContent"`
	}
	if err := json.Unmarshal(want, &doc); err != nil {
		return err
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
	if err != nil {
		return err
	}
	if res.IsError {
		return fmt.Errorf("tool error: %.300s", resultText(res))
	}
	got, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return err
	}
	if !sameJSON(got, doc.StructuredContent) {
		return fmt.Errorf("structured content %.200s, want %.200s", got, doc.StructuredContent)
	}
	return nil
}

func resultText(res *mcp.CallToolResult) string {
	var texts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			texts = append(texts, t.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// sameJSON reports whether a and b encode the same value.
func sameJSON(a, b []byte) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	ca, _ := json.Marshal(va)
	cb, _ := json.Marshal(vb)
	return bytes.Equal(ca, cb)
}

// jqDocArgs are the jq tool's arguments: jqFilter over an array of count
// objects of about 150 bytes each (7,000 make 1 MB).
func jqDocArgs(count int) []byte {
	type item struct {
		ID    int      `json:"id"`
		Name  string   `json:"name"`
		N     int      `json:"n"`
		Price float64  `json:"price"`
		Tags  []string `json:"tags"`
		Note  string   `json:"note"`
	}
	items := make([]item, count)
	for i := range items {
		items[i] = item{ID: i, Name: fmt.Sprintf("item-%05d", i), N: i * 7919 % 10007, Price: float64(i%997) / 4,
			Tags: []string{"alpha", "beta"}, Note: "the quick brown fox jumps over the lazy dog, twice over"}
	}
	return mustJSON(map[string]any{"filter": jqFilter, "input": items})
}

// nativeJQ does what the jq tool does with its arguments, natively: decode
// them with numbers kept as text, compile and run the filter, and encode
// the results as the tool's result document.
func nativeJQ(args []byte) ([]byte, error) {
	var in struct {
		Filter string `json:"filter"`
		Input  any    `json:"input"`
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	if err := dec.Decode(&in); err != nil {
		return nil, err
	}
	q, err := gojq.Parse(in.Filter)
	if err != nil {
		return nil, err
	}
	code, err := gojq.Compile(q)
	if err != nil {
		return nil, err
	}
	var results []json.RawMessage
	for iter := code.Run(in.Input); ; {
		v, ok := iter.Next()
		if !ok {
			break
		}
		if err, ok := v.(error); ok {
			return nil, err
		}
		b, err := gojq.Marshal(v)
		if err != nil {
			return nil, err
		}
		results = append(results, b)
	}
	return json.Marshal(map[string]any{
		"content":           []any{},
		"structuredContent": map[string]any{"results": results, "truncated": false},
	})
}

// diffTexts are unified_diff's arguments: two texts of about lines lines of
// 60 bytes (1,700 make 100 KB each) with one change in 50 lines, in turn a
// changed, a dropped and an added line.
func diffTexts(lines int) []byte {
	var a, b strings.Builder
	for i := range lines {
		line := fmt.Sprintf("%5d: the quick brown fox jumps over the lazy dog, %04d\n", i, i*7919%10000)
		a.WriteString(line)
		if i%50 != 17 {
			b.WriteString(line)
			continue
		}
		switch i / 50 % 3 {
		case 0:
			fmt.Fprintf(&b, "%5d: changed\n", i)
		case 1: // dropped from the new text
		case 2:
			b.WriteString(line)
			fmt.Fprintf(&b, "%5d: added\n", i)
		}
	}
	return mustJSON(map[string]any{"a": a.String(), "b": b.String()})
}

// nativeDiff does what unified_diff does with its arguments, natively:
// decode them, diff, and encode the result document (the diff as a text
// block and as structured content).
func nativeDiff(args []byte) ([]byte, error) {
	var in struct {
		A string `json:"a"`
		B string `json:"b"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return nil, err
	}
	d := diff.Unified(in.A, in.B, 3, "a", "b")
	out := map[string]any{"diff": d.Text, "identical": d.Hunks == 0, "hunks": d.Hunks,
		"added": d.Added, "removed": d.Removed, "minimal": d.Minimal}
	return json.Marshal(map[string]any{
		"content":           []map[string]any{{"type": "text", "text": d.Text}},
		"structuredContent": out,
	})
}

// size formats n bytes as KB or MB (powers of ten, as the workloads are
// named).
func size(n int) string {
	if n >= 1e6 {
		return fmt.Sprintf("%.3g MB", float64(n)/1e6)
	}
	return fmt.Sprintf("%.3g KB", float64(n)/1e3)
}
