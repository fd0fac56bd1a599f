package wasmcp

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"

	"github.com/wasmcp/wasmcp/abi"
)

// TestWasmDirectivesMatchABI keeps the string literals of the wasip1 glue's
// //go:wasmexport and //go:wasmimport directives (which cannot name a
// constant) equal to package abi, with the signatures ABI.md gives. It parses
// the source, so it runs natively, without building a module.
func TestWasmDirectivesMatchABI(t *testing.T) {
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range []string{"guest_wasip1.go", "http_wasip1.go"} {
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	// Wasm signatures from ABI.md sections 2 and 5.
	wantExports := map[string]string{
		abi.ExportVersion:  "() -> (i32)",
		abi.ExportAlloc:    "(i32) -> (i32)",
		abi.ExportDescribe: "() -> (i64)",
		abi.ExportCall:     "(i32, i32, i32, i32) -> (i64)",
		abi.ExportRead:     "(i32, i32) -> (i64)",
		abi.ExportPrompt:   "(i32, i32, i32, i32) -> (i64)",
		abi.ExportComplete: "(i32, i32) -> (i64)",
	}
	wantImports := map[string]string{
		abi.ImportModule + "." + abi.ImportLog:         "(i32, i32, i32) -> ()",
		abi.ImportModule + "." + abi.ImportProgress:    "(f64, f64, i32, i32) -> ()",
		abi.ImportModule + "." + abi.ImportCancelled:   "() -> (i32)",
		abi.ImportModule + "." + abi.ImportSample:      "(i32, i32) -> (i64)",
		abi.ImportModule + "." + abi.ImportElicit:      "(i32, i32) -> (i64)",
		abi.ImportModule + "." + abi.ImportReadReply:   "(i32, i32) -> (i32)",
		abi.ImportModule + "." + abi.ImportHTTPRequest: "(i32, i32) -> (i64)",
	}
	gotExports := map[string]string{}
	gotImports := map[string]string{}
	var decls []ast.Decl
	for _, f := range files {
		decls = append(decls, f.Decls...)
	}
	for _, decl := range decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Doc == nil {
			continue
		}
		for _, c := range fn.Doc.List {
			fields := strings.Fields(c.Text)
			switch {
			case len(fields) == 2 && fields[0] == "//go:wasmexport":
				gotExports[fields[1]] = wasmSignature(t, fn.Type)
			case len(fields) == 3 && fields[0] == "//go:wasmimport":
				gotImports[fields[1]+"."+fields[2]] = wasmSignature(t, fn.Type)
			case strings.HasPrefix(c.Text, "//go:wasm"):
				t.Errorf("malformed directive %q", c.Text)
			}
		}
	}
	compare(t, "export", gotExports, wantExports)
	compare(t, "import", gotImports, wantImports)
}

func compare(t *testing.T, kind string, got, want map[string]string) {
	t.Helper()
	for name, sig := range want {
		if got[name] != sig {
			t.Errorf("%s %s: signature %q, want %q", kind, name, got[name], sig)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%s %s is not in ABI.md", kind, name)
		}
	}
}

// wasmSignature translates a Go function type to wasm value types with the
// table of cmd/compile's documentation.
func wasmSignature(t *testing.T, ft *ast.FuncType) string {
	t.Helper()
	list := func(fl *ast.FieldList) string {
		var types []string
		if fl != nil {
			for _, field := range fl.List {
				n := max(len(field.Names), 1)
				for range n {
					types = append(types, wasmTypes(t, field.Type)...)
				}
			}
		}
		return "(" + strings.Join(types, ", ") + ")"
	}
	return list(ft.Params) + " -> " + list(ft.Results)
}

func wasmTypes(t *testing.T, expr ast.Expr) []string {
	t.Helper()
	if sel, ok := expr.(*ast.SelectorExpr); ok && sel.Sel.Name == "Pointer" {
		return []string{"i32"} // unsafe.Pointer
	}
	id, ok := expr.(*ast.Ident)
	if !ok {
		t.Fatalf("unexpected parameter type %T", expr)
	}
	switch id.Name {
	case "int32", "uint32", "bool":
		return []string{"i32"}
	case "int64", "uint64":
		return []string{"i64"}
	case "float64":
		return []string{"f64"}
	case "string":
		return []string{"i32", "i32"}
	}
	t.Fatalf("type %s cannot cross the wasm boundary", id.Name)
	return nil
}
