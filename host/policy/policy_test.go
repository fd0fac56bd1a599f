package policy_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host/policy"
)

func TestLoadMergesDefaults(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "notes"), 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "policy.json")
	doc := `{
	  "defaults": {"memory": "128MiB", "timeout": "10s", "maxOutput": 1000, "concurrency": 4, "rate": 20, "clock": true},
	  "plugins": {"notes": {"memory": "1GB", "rate": 2.5, "fs": [{"host": "notes", "guest": "/notes", "write": true}], "clock": false}}
	}`
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := policy.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p.Limits("notes"), (policy.Limits{Memory: 1e9, Timeout: 10 * time.Second, MaxOutput: 1000}); got != want {
		t.Errorf("notes limits %+v, want %+v", got, want)
	}
	if got, want := p.Limits("other"), (policy.Limits{Memory: 128 << 20, Timeout: 10 * time.Second, MaxOutput: 1000}); got != want {
		t.Errorf("other limits %+v, want %+v", got, want)
	}
	if got, want := p.Admission("notes"), (policy.Admission{Concurrency: 4, Rate: 2.5}); got != want {
		t.Errorf("notes admission %+v, want %+v", got, want)
	}
	g, denied := p.Grant("notes", &abi.Permissions{FS: []abi.FSPermission{{Path: "/notes", Write: true}}, Clock: true})
	want := []policy.Mount{{HostPath: filepath.Join(dir, "notes"), GuestPath: "/notes", Write: true}}
	if !slices.Equal(g.Mounts, want) || g.Clock {
		t.Errorf("notes grants %+v", g)
	}
	if !slices.Equal(denied, []string{"clock"}) {
		t.Errorf("denied %q", denied)
	}
	if g, denied := p.Grant("other", &abi.Permissions{Clock: true}); !g.Clock || len(denied) != 0 {
		t.Errorf("other: %+v, denied %q", g, denied)
	}
}

func TestNilPolicyDeniesEverything(t *testing.T) {
	var p *policy.Policy
	req := &abi.Permissions{Env: []string{"HOME"}, FS: []abi.FSPermission{{Path: "/"}}, Clock: true, Random: true}
	g, denied := p.Grant("x", req)
	if !g.IsZero() || !slices.Equal(denied, []string{"fs /", "env HOME", "clock", "random"}) {
		t.Errorf("grants %+v, denied %q", g, denied)
	}
	if p.Limits("x") != (policy.Limits{}) || p.Admission("x") != (policy.Admission{}) {
		t.Errorf("a nil policy sets limits")
	}
}

func TestEnv(t *testing.T) {
	t.Setenv("FROM_HOST", "h")
	t.Setenv("OVERRIDDEN", "host value")
	p, err := policy.Parse([]byte(`{"defaults": {"env": ["FROM_HOST", "OVERRIDDEN=literal", "UNSET_ON_HOST", "EMPTY="]}}`), "")
	if err != nil {
		t.Fatal(err)
	}
	g, denied := p.Grant("x", &abi.Permissions{Env: []string{"FROM_HOST", "OVERRIDDEN", "UNSET_ON_HOST", "EMPTY", "PATH"}})
	want := []policy.EnvVar{{Name: "FROM_HOST", Value: "h"}, {Name: "OVERRIDDEN", Value: "literal"}, {Name: "EMPTY", Value: ""}}
	if !slices.Equal(g.Env, want) {
		t.Errorf("env %+v, want %+v", g.Env, want)
	}
	if !slices.Equal(denied, []string{"env UNSET_ON_HOST", "env PATH"}) {
		t.Errorf("denied %q", denied)
	}
}

func TestParseErrors(t *testing.T) {
	dir := t.TempDir()
	for doc, want := range map[string]string{
		`{"defaults": {"memroy": "1MiB"}}`:                              "unknown field",
		`{"defaults": {"memory": "1 lot"}}`:                             "size",
		`{"defaults": {"memory": 100}}`:                                 "64KiB",
		`{"defaults": {"timeout": "soon"}}`:                             "duration",
		`{"defaults": {"timeout": "-1s"}}`:                              "not positive",
		`{"defaults": {"maxOutput": "5GiB"}}`:                           "maxOutput",
		`{"defaults": {"concurrency": -1}}`:                             "concurrency",
		`{"defaults": {"rate": -1}}`:                                    "rate",
		`{"plugins": {"a": {"fs": [{"guest": "/x"}]}}}`:                 "host is missing",
		`{"plugins": {"a": {"fs": [{"host": ".", "guest": "x"}]}}}`:     "absolute",
		`{"plugins": {"a": {"fs": [{"host": "nope", "guest": "/x"}]}}}`: "nope",
		`{"plugins": {"a": {"env": ["=x"]}}}`:                           "environment variable",
		`{} {}`:                                                         "more than one",
	} {
		t.Run(want, func(t *testing.T) {
			_, err := policy.Parse([]byte(doc), dir)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: error %v, want one with %q", doc, err, want)
			}
		})
	}
}

func TestSources(t *testing.T) {
	p, err := policy.Parse([]byte(`{"sources": ["127.0.0.1:5000/team/hello:v1", "ghcr.io/o/r@sha256:0123"]}`), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Sources(); len(got) != 2 || got[0] != "127.0.0.1:5000/team/hello:v1" {
		t.Errorf("sources %q", got)
	}
	if _, err := policy.Parse([]byte(`{"sources": [""]}`), t.TempDir()); err == nil || !strings.Contains(err.Error(), "sources[0]") {
		t.Errorf("empty source: %v", err)
	}
	if (*policy.Policy)(nil).Sources() != nil {
		t.Error("a nil policy has sources")
	}
}

func TestIssuers(t *testing.T) {
	p, err := policy.Parse([]byte(`{"oauth": {"issuers": ["http://127.0.0.1:4444"]}}`), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Issuers(); len(got) != 1 || got[0] != "http://127.0.0.1:4444" {
		t.Errorf("Issuers() = %q", got)
	}
	if _, err := policy.Parse([]byte(`{"oauth": {"issuer": "x"}}`), t.TempDir()); err == nil {
		t.Error("an unknown oauth field parsed")
	}
}

func TestSecrets(t *testing.T) {
	t.Setenv("WASMCP_TEST_SECRET", "s3cret")
	p, err := policy.Parse([]byte(`{"defaults":{"secrets":{"svc/all":"x"}},
		"plugins":{"a":{"secrets":{"svc/me":"${WASMCP_TEST_SECRET}","svc/gone":"${WASMCP_TEST_UNSET}"}}}}`), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	got, missing := p.Secrets("a")
	if len(got) != 1 || got["svc/me"] != "s3cret" || len(missing) != 1 || !strings.Contains(missing[0], "WASMCP_TEST_UNSET") {
		t.Errorf("Secrets(a) = %v, %v", got, missing)
	}
	if got, _ := p.Secrets("b"); got["svc/all"] != "x" {
		t.Errorf("Secrets(b) = %v, want the defaults'", got)
	}
	if _, err := policy.Parse([]byte(`{"defaults":{"secrets":{"nouser":"x"}}}`), t.TempDir()); err == nil {
		t.Error("a key without a user parsed")
	}
}
