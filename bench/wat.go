package main

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"text/template"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host/sandbox/sandboxtest"
)

//go:embed testdata/guest.wat.tmpl
var guestWAT string

var guestTmpl = template.Must(template.New("guest").Parse(guestWAT))

// The documents' places in the guest's first page.
const (
	describeAt = 16
	docsEnd    = 65536 // arguments start here
)

// renderGuest builds a guest module whose describe document lists tools and
// whose every call returns a text block of answer, after spinning a loop
// spin times.
func renderGuest(tools []abi.Tool, answer string, spin int) ([]byte, error) {
	describe, err := json.Marshal(abi.Describe{Tools: tools})
	if err != nil {
		return nil, err
	}
	result, err := json.Marshal(abi.Result{Content: []abi.Content{abi.Text(answer)}})
	if err != nil {
		return nil, err
	}
	resultAt := (describeAt + len(describe) + 15) &^ 15
	if resultAt+len(result) > docsEnd {
		return nil, fmt.Errorf("guest documents of %d bytes do not fit the first page", resultAt+len(result))
	}
	var wat strings.Builder
	err = guestTmpl.Execute(&wat, map[string]any{
		"DescribeAt":     describeAt,
		"Describe":       watString(describe),
		"DescribePacked": int64(abi.Pack(describeAt, uint32(len(describe)))),
		"ResultAt":       resultAt,
		"Result":         watString(result),
		"ResultPacked":   int64(abi.Pack(uint32(resultAt), uint32(len(result)))),
		"Spin":           spin,
	})
	if err != nil {
		return nil, err
	}
	return sandboxtest.Wat2Wasm([]byte(wat.String()))
}

// watString escapes b for a WAT string literal: printable ASCII as is,
// everything else as \hh.
func watString(b []byte) string {
	var s strings.Builder
	for _, c := range b {
		if c >= 0x20 && c < 0x7f && c != '"' && c != '\\' {
			s.WriteByte(c)
		} else {
			fmt.Fprintf(&s, "\\%02x", c)
		}
	}
	return s.String()
}

// scaleAnswer is the text every tool of the scale experiment returns.
const scaleAnswer = "ok"

// scaleTool is tool k of generated module m of the scale experiment. Its
// schema is of the size and kind real tools have, so that compiling the
// schemas of 10,000 tools costs what it would.
func scaleTool(m, k int) abi.Tool {
	return abi.Tool{
		Name:        fmt.Sprintf("m%04d_t%02d", m, k),
		Description: fmt.Sprintf("Tool %d of generated module %d: looks a message up and returns a fixed answer.", k, m),
		InputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"message":{"type":"string","description":"The message.","minLength":1,"maxLength":4096},` +
			`"count":{"type":"integer","description":"How many times.","minimum":1,"maximum":100},` +
			`"mode":{"type":"string","enum":["fast","thorough"],"description":"How hard to look."}},` +
			`"required":["message"],"additionalProperties":false}`),
	}
}
