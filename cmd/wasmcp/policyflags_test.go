package main

import (
	"bytes"
	"testing"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host"
)

// inspect shows what a module asks for, what it gets and what it does not,
// origins included.
func TestPrintPermissions(t *testing.T) {
	var b bytes.Buffer
	printPermissions(&b, &host.Report{
		Requested: &abi.Permissions{Env: []string{"TZ"}, Net: []string{"*"}},
		Granted:   &abi.Permissions{Net: []string{"https://api.github.com", "https://*.example.com"}},
		Denied:    []string{"env TZ"},
	})
	want := `
permissions:
  requested  env TZ, net *
  granted    net https://api.github.com, net https://*.example.com
  denied     env TZ
`
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}
