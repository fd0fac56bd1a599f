package main

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"text/template"

	"github.com/wasmcp/wasmcp/abi"
)

var newCmd = command{
	name:    "new",
	summary: "--lang go|c|rust|assemblyscript|extism-go|extism-as [--dir PARENT] [--sdk DIR] NAME",
	doc:     helpText("new"),
	setup: func(flags *flag.FlagSet, std streams) func(context.Context, []string) error {
		var lang, parent, sdk string
		flags.StringVar(&lang, "lang", "", "the project's `language`: "+strings.Join(languageNames(), ", "))
		flags.StringVar(&parent, "dir", ".", "the directory in which to create the project, `PARENT`/NAME")
		flags.StringVar(&sdk, "sdk", "", "the wasmcp source tree `DIR`, which holds sdk-guest/ (default: $WASMCP_SDK, else the tree wasmcp was built from)")
		return func(_ context.Context, args []string) error {
			if len(args) != 1 {
				return usageErrorf("want one NAME, got %d arguments", len(args))
			}
			name := args[0]
			if lang == "" {
				return usageErrorf("-lang is required: one of %s", strings.Join(languageNames(), ", "))
			}
			l, ok := lookupLanguage(lang)
			if !ok {
				return usageErrorf("unknown language %q: want one of %s", lang, strings.Join(languageNames(), ", "))
			}
			if err := checkProjectName(name); err != nil {
				return usageError{err.Error()}
			}
			from := "--sdk"
			if sdk == "" {
				sdk, from = os.Getenv("WASMCP_SDK"), "WASMCP_SDK"
			}
			src, err := sourceTree(sdk, from)
			if err != nil {
				return err
			}
			dir := filepath.Join(parent, name)
			if err := scaffold(l, src, name, dir); err != nil {
				return err
			}
			kind := "a tool module"
			if l.extism {
				kind = "an Extism plugin"
			}
			fmt.Fprintf(std.out, "created %s: %s in %s, with the tool %q\n\n", dir, kind, l.title, name)
			fmt.Fprintf(std.out, "\tcd %s\n\tmake          # build %s.wasm\n\tmake test     # run it through wasmcp call\n", dir, name)
			return nil
		}
	},
}

// modulePath is the module of the wasmcp source tree, which holds the guest
// SDKs. The Go SDK is a module of its own within it, goSDKPath, which a Go
// project requires; it requires the contract, abiPath, a module of its own
// too, which it shares with the server.
const (
	modulePath = "github.com/wasmcp/wasmcp"
	goSDKPath  = modulePath + "/sdk-guest/go"
	abiPath    = modulePath + "/abi"
)

// language is what a project in one language is made of: the templates
// under templates/<name>, plus files taken from its SDK.
type language struct {
	name  string // the -lang value, and the directory of the templates
	title string // the language's name in messages
	sdk   string // the SDK's directory in the source tree
	// vendor lists the SDK files copied into the project.
	vendor []vendored
	// prepare reads what the templates need from the SDK and adds files
	// derived from it; it may be nil.
	prepare func(p *project, sdkDir string, files map[string][]byte) error
	// extism marks an Extism plugin (hyper-mcp's protocol), with the tool
	// NAME only.
	extism bool
}

// vendored is a glob of files in an SDK directory and the project directory
// that receives them.
type vendored struct{ glob, to string }

var languages = []language{
	{name: "go", title: "Go", sdk: "sdk-guest/go", prepare: prepareGo},
	{name: "c", title: "C", sdk: "sdk-guest/c", vendor: []vendored{{"*.h", "wasmcp"}, {"*.c", "wasmcp"}}},
	{
		name: "rust", title: "Rust", sdk: "sdk-guest/rust", prepare: prepareRust,
		vendor: []vendored{{"Cargo.toml", "wasmcp-guest"}, {"src/*.rs", "wasmcp-guest/src"}},
	},
	{
		name: "assemblyscript", title: "AssemblyScript", sdk: "sdk-guest/assemblyscript", prepare: prepareAssemblyScript,
		vendor: []vendored{{"assembly/*.ts", "wasmcp/assembly"}, {"lib/*.ts", "wasmcp/lib"}},
	},
	// The Extism plugins take what they need from the tree's own: the Go
	// version of its go.mod, the npm packages of examples/extism/as.
	{name: "extism-go", title: "Go", extism: true, prepare: prepareExtismGo},
	{name: "extism-as", title: "AssemblyScript", sdk: "examples/extism/as", extism: true, prepare: prepareExtismAS},
}

// extismGoPDK is the version of Extism's Go PDK an extism-go project
// requires.
const extismGoPDK = "v1.1.3"

func languageNames() []string {
	names := make([]string, len(languages))
	for i, l := range languages {
		names[i] = l.name
	}
	return names
}

func lookupLanguage(name string) (language, bool) {
	for _, l := range languages {
		if l.name == name {
			return l, true
		}
	}
	return language{}, false
}

// sample is the call every project's test makes, and the counts it must
// find in the result.
type sample struct {
	Text                     string
	Args                     string // the tool's arguments, {"text": Text} as JSON
	Words, Lines, Characters int
}

var projectSample = func() sample {
	const text = "Hello, wörld!\nSecond line here."
	args, _ := json.Marshal(map[string]string{"text": text}) // a map of strings always encodes
	return sample{Text: text, Args: string(args), Words: 5, Lines: 2, Characters: 31}
}()

// toolDescription is the tool's description in every language.
const toolDescription = "Counts the words, lines and characters of a text, as wc does. " +
	"Words are runs of characters between white space (space, tab, newline, vertical tab, form feed, " +
	"carriage return); a last line without a newline counts as a line; characters are Unicode code points."

// project is what the templates are executed with.
type project struct {
	Name        string
	Description string
	GoSDKModule string // goSDKPath
	ABIModule   string // abiPath
	Source      string // the absolute path of the wasmcp source tree
	SDK         string // the absolute path of the language's SDK in it
	ABI         string // the absolute path of the contract's module in it
	ABIVersion  int
	Sample      sample

	GoVersion       string // the go directive of the Go SDK's go.mod
	Crate, CrateLib string // Rust: the package name, and the file name cargo gives the cdylib
	Package         string // AssemblyScript: the npm package name
	DevDependencies string // AssemblyScript: the SDK's devDependencies, JSON
	ExtismGoPDK     string // extism-go: the version of github.com/extism/go-pdk
}

// statusTool is the name of every project's second tool, which shows an
// HTTP request: a project of that name would define it twice.
const statusTool = "status"

// checkProjectName accepts names that are tool names and also safe as a
// directory, a Go module path, a Rust package name (with '.' replaced) and
// an npm package name (lowercased).
func checkProjectName(name string) error {
	switch {
	case !abi.ValidToolName(name):
		return fmt.Errorf("NAME %q is not a tool name: 1 to %d letters, digits, '_', '-' and '.'", name, abi.MaxToolNameLen)
	case !('a' <= name[0] && name[0] <= 'z' || 'A' <= name[0] && name[0] <= 'Z'):
		return fmt.Errorf("NAME %q must start with a letter", name)
	case strings.HasSuffix(name, "."):
		return fmt.Errorf("NAME %q must not end with '.'", name)
	case name == statusTool:
		return fmt.Errorf("NAME %q is the name of the project's second tool, which makes an HTTP request", name)
	}
	return nil
}

// sourceTree returns the absolute path of the wasmcp source tree: dir when
// given (by from, for messages), else the tree this binary was built from.
func sourceTree(dir, from string) (string, error) {
	if dir != "" {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return "", err
		}
		if err := checkSourceTree(abs); err != nil {
			return "", fmt.Errorf("%s %s: %w", from, dir, err)
		}
		return abs, nil
	}
	// A build records the absolute paths of its source files unless it
	// was made with -trimpath; then they start with the module path.
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		tree := filepath.Dir(filepath.Dir(filepath.Dir(file))) // <tree>/cmd/wasmcp/new.go
		if checkSourceTree(tree) == nil {
			return tree, nil
		}
	}
	return "", errors.New("cannot find the wasmcp source tree, which holds the guest SDKs " +
		"(this binary was not built from a checkout that still exists): pass --sdk DIR or set WASMCP_SDK")
}

// checkSourceTree tells whether dir holds the wasmcp module.
func checkSourceTree(dir string) error {
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return fmt.Errorf("not a wasmcp source tree: %w", err)
	}
	if goModDirective(gomod, "module") != modulePath {
		return fmt.Errorf("not a wasmcp source tree: its go.mod is not module %s", modulePath)
	}
	return nil
}

// goModDirective returns the argument of the first one-line directive verb
// of a go.mod file ("module", "go"), or "".
func goModDirective(gomod []byte, verb string) string {
	for _, line := range strings.Split(string(gomod), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), verb+" "); ok {
			arg, _, _ := strings.Cut(rest, "//")
			return strings.Trim(strings.TrimSpace(arg), `"`)
		}
	}
	return ""
}

// scaffold creates dir, the project of language l with the SDK from the
// source tree src. The project is assembled in a temporary directory beside
// dir and renamed into place, so that a failure leaves nothing behind.
func scaffold(l language, src, name, dir string) error {
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return fmt.Errorf("%s already exists and is not empty", dir)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %w", dir, err)
	}
	files, err := render(l, src, name)
	if err != nil {
		return err
	}
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".new-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp) // after the rename, there is nothing left to remove
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	for rel, data := range files {
		p := filepath.Join(tmp, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return err
		}
	}
	// An empty directory may stand where the project goes; rename does
	// not replace one on every system.
	if err := os.Remove(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %w", dir, err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	return nil
}

//go:embed all:templates
var templates embed.FS

var templateFuncs = template.FuncMap{
	// quote writes an ASCII string as a literal valid in Go, C, Rust and
	// TypeScript.
	"quote": strconv.Quote,
	// modpath writes a file path for a go.mod replace directive.
	"modpath": func(p string) string {
		if strings.ContainsAny(p, " \t\"'`\\") {
			return strconv.Quote(p)
		}
		return p
	},
}

// render returns the project's files by their slash-separated paths: the
// executed templates, then the SDK's files.
func render(l language, src, name string) (map[string][]byte, error) {
	sdkDir := filepath.Join(src, filepath.FromSlash(l.sdk))
	p := &project{
		Name: name, Description: toolDescription, GoSDKModule: goSDKPath, ABIModule: abiPath,
		Source: src, SDK: sdkDir, ABI: filepath.Join(src, "abi"), ABIVersion: abi.Version, Sample: projectSample,
	}

	files := map[string][]byte{}
	if l.prepare != nil {
		if err := l.prepare(p, sdkDir, files); err != nil {
			return nil, fmt.Errorf("%s SDK in %s: %w", l.name, sdkDir, err)
		}
	}
	for _, v := range l.vendor {
		matches, err := filepath.Glob(filepath.Join(sdkDir, filepath.FromSlash(v.glob)))
		if err != nil || len(matches) == 0 {
			return nil, fmt.Errorf("%s SDK in %s has no %s", l.name, sdkDir, v.glob)
		}
		for _, m := range matches {
			data, err := os.ReadFile(m)
			if err != nil {
				return nil, err
			}
			files[path.Join(v.to, filepath.Base(m))] = data
		}
	}

	shared, err := template.New("shared").Funcs(templateFuncs).ParseFS(templates, "templates/shared/*.tmpl")
	if err != nil {
		return nil, err
	}
	root := "templates/" + l.name
	err = fs.WalkDir(templates, root, func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		text, err := templates.ReadFile(name)
		if err != nil {
			return err
		}
		t, err := shared.Clone()
		if err == nil {
			t, err = t.New(name).Option("missingkey=error").Parse(string(text))
		}
		var out bytes.Buffer
		if err == nil {
			err = t.Execute(&out, p)
		}
		if err != nil {
			return fmt.Errorf("template %s: %w", name, err)
		}
		files[strings.TrimSuffix(strings.TrimPrefix(name, root+"/"), ".tmpl")] = out.Bytes()
		return nil
	})
	return files, err
}

// prepareGo reads the go directive of the SDK's module, which the project's
// go.mod repeats: requiring the SDK needs at least its Go version.
func prepareGo(p *project, sdkDir string, _ map[string][]byte) error {
	gomod, err := os.ReadFile(filepath.Join(sdkDir, "go.mod"))
	if err != nil {
		return err
	}
	if goModDirective(gomod, "module") != goSDKPath {
		return fmt.Errorf("go.mod is not module %s", goSDKPath)
	}
	if p.GoVersion = goModDirective(gomod, "go"); p.GoVersion == "" {
		return errors.New("go.mod has no go directive")
	}
	return nil
}

// prepareRust names the crate: cargo accepts letters, digits, '-' and '_',
// and rustc warns about a crate name that is not snake case.
func prepareRust(p *project, _ string, _ map[string][]byte) error {
	p.Crate = strings.ReplaceAll(strings.ToLower(p.Name), ".", "_")
	p.CrateLib = strings.ReplaceAll(p.Crate, "-", "_")
	return nil
}

// prepareAssemblyScript takes the compiler and WASI shim versions from the
// SDK's package.json, and writes asconfig.json from the SDK's: the same
// options, with the SDK's library directory moved to where the project's
// copy of the SDK is.
func prepareAssemblyScript(p *project, sdkDir string, files map[string][]byte) error {
	if err := readDevDependencies(p, sdkDir); err != nil {
		return err
	}
	var config map[string]any
	if err := readJSON(filepath.Join(sdkDir, "asconfig.json"), &config); err != nil {
		return err
	}
	options, _ := config["options"].(map[string]any)
	libs, _ := options["lib"].([]any)
	for i, lib := range libs {
		s, ok := lib.(string)
		if !ok {
			return fmt.Errorf("asconfig.json: options.lib[%d] is not a string", i)
		}
		// The project has its own node_modules; everything else is SDK.
		if clean := path.Clean(s); !strings.HasPrefix(clean, "node_modules/") {
			libs[i] = "./" + path.Join("wasmcp", clean)
		}
	}
	out, err := json.MarshalIndent(config, "", "  ")
	if err != nil {
		return err
	}
	files["asconfig.json"] = append(out, '\n')
	return nil
}

// readDevDependencies names the npm package after the project and takes
// its devDependencies from the package.json in dir.
func readDevDependencies(p *project, dir string) error {
	p.Package = strings.ToLower(p.Name)
	var pkg struct {
		DevDependencies map[string]string `json:"devDependencies"`
	}
	if err := readJSON(filepath.Join(dir, "package.json"), &pkg); err != nil {
		return err
	}
	if len(pkg.DevDependencies) == 0 {
		return errors.New("package.json has no devDependencies")
	}
	deps, err := json.MarshalIndent(pkg.DevDependencies, "  ", "  ")
	if err != nil {
		return err
	}
	p.DevDependencies = string(deps)
	return nil
}

// prepareExtismGo takes the Go version of the source tree's go.mod (dir):
// the wasmexport directive needs Go 1.24, which every wasmcp tree exceeds.
func prepareExtismGo(p *project, dir string, _ map[string][]byte) error {
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return err
	}
	if p.GoVersion = goModDirective(gomod, "go"); p.GoVersion == "" {
		return errors.New("go.mod has no go directive")
	}
	p.ExtismGoPDK = extismGoPDK
	return nil
}

// prepareExtismAS takes the versions of @extism/as-pdk, the compiler and
// the JSON parser from the example plugin's package.json, which the
// tree's tests build.
func prepareExtismAS(p *project, dir string, _ map[string][]byte) error {
	return readDevDependencies(p, dir)
}

func readJSON(name string, v any) error {
	data, err := os.ReadFile(name)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", filepath.Base(name), err)
	}
	return nil
}
