package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmcp/wasmcp/e2e/internal/hyperimages"
	"github.com/wasmcp/wasmcp/internal/ocitest"
)

// rstime is hyper-mcp's published rstime plugin.
func rstime(t *testing.T) []byte {
	t.Helper()
	wasm, err := os.ReadFile(filepath.Join("..", "host", "testdata", "thirdparty", "rstime.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	return wasm
}

// publishImages starts a registry and publishes rstime's images to it as
// hyper-mcp publishes its plugins; the Sigstore policy is written into
// dir.
func publishImages(t *testing.T, dir string) hyperimages.Refs {
	t.Helper()
	dockerConfig(t)
	reg := ocitest.Start(t, ocitest.Options{})
	refs, err := hyperimages.Publish(context.Background(), reg.Host, dir, rstime(t))
	if err != nil {
		t.Fatal(err)
	}
	return refs
}

// hyper-mcp's plugin images, signed with cosign as its release workflow
// does, served by reference under a Sigstore policy of the workflow's
// identity: the signed one serves and runs, with its clock granted by the
// policy file; one signed by someone else, one signed as cosign 2 did by
// the wrong issuer, and an unsigned one are each one log line naming the
// reference and why. With -trusted-keys too, the Sigstore signature
// stands in for an Ed25519 one; with -lock, the lock holds as well.
func TestServeSignedImages(t *testing.T) {
	dir := t.TempDir()
	refs := publishImages(t, dir)
	signed, stranger, issuer, unsigned := refs.Signed, refs.Stranger, refs.WrongIssuer, refs.Unsigned
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	config := write("policy.json", `{"sources": ["`+signed+`", "`+stranger+`", "`+issuer+`", "`+unsigned+`"], "plugins": {"time-plugin": {"clock": true}}}`)
	args := []string{"--log-format", "json", "--config", config, "--sigstore", refs.Sigstore}

	srv := startServer(t, t.TempDir(), serverOptions{protocol: legacyProtocol, args: args})
	if _, ok := srv.tools(t)["get_time"]; !ok {
		t.Fatalf("get_time not served\nlog:\n%s", srv.stderr)
	}
	if res := srv.call(t, "get_time", `{"timezone":"UTC"}`); res.IsError || text(res) == "" || strings.Contains(text(res), "2022") {
		t.Errorf("get_time = %s", text(res))
	}
	srv.waitLog(t, 0, "plugin not loaded", logField("ref", stranger), "no valid signature", "mallory")
	srv.waitLog(t, 0, "plugin not loaded", logField("ref", issuer), "no valid signature", "https://accounts.example.com")
	srv.waitLog(t, 0, "plugin not loaded", logField("ref", unsigned), "not signed", "no Sigstore signature")
	srv.waitLog(t, 0, "plugin from registry", logField("ref", signed))

	// With trusted Ed25519 keys too: the Sigstore signature is enough.
	keyDir := t.TempDir()
	trusted := wasmcpOK(t, "keygen", "-o", filepath.Join(keyDir, "key.pem"))
	keys := write("wasmcp.keys", trusted)
	srv = startServer(t, t.TempDir(), serverOptions{protocol: legacyProtocol, args: append(args, "--trusted-keys", keys)})
	if _, ok := srv.tools(t)["get_time"]; !ok {
		t.Fatalf("get_time not served with -trusted-keys\nlog:\n%s", srv.stderr)
	}
	srv.waitLog(t, 0, "plugin not loaded", logField("ref", unsigned), "not signed", "nor by Sigstore")

	// And the lock holds: a signed module it does not pin is refused.
	lock := write("wasmcp.lock", wasmcpOK(t, "lock", stranger))
	srv = startServer(t, t.TempDir(), serverOptions{protocol: legacyProtocol, args: append(args, "--lock", lock)})
	srv.waitLog(t, 0, "plugin not loaded", logField("ref", signed), "not pinned")
	if _, ok := srv.tools(t)["get_time"]; ok {
		t.Error("get_time served though the lock does not pin it")
	}
}

// hyper-mcp's image layouts by reference: its Docker image, an index of
// the image and its build attestation as buildx pushes it, and ORAS's
// artifact of the module alone (signed, as its publishers sign it) serve
// the plugin; a component image is one log line saying what it is.
func TestServeImageLayouts(t *testing.T) {
	refs := publishImages(t, t.TempDir())
	buildx, component, docker := refs.Index, refs.Component, refs.Unsigned

	srv := startServer(t, t.TempDir(), serverOptions{protocol: legacyProtocol,
		args: []string{"--log-format", "json", "--plugin", buildx, "--plugin", component}})
	if _, ok := srv.tools(t)["parse_time"]; !ok {
		t.Fatalf("rstime not served from buildx's index\nlog:\n%s", srv.stderr)
	}
	if res := srv.call(t, "parse_time", `{"time":"Tue, 1 Jul 2003 10:52:37 +0200"}`); res.IsError || !strings.Contains(text(res), "1057049557") {
		t.Errorf("parse_time = %s", text(res))
	}
	srv.waitLog(t, 0, "plugin not loaded", logField("ref", component), "a WebAssembly component, not a core module")

	srv = startServer(t, t.TempDir(), serverOptions{protocol: legacyProtocol, args: []string{"--plugin", docker}})
	if _, ok := srv.tools(t)["get_time"]; !ok {
		t.Fatalf("rstime not served from its Docker image\nlog:\n%s", srv.stderr)
	}

	// ORAS's artifact, as Monty's plugin is published, signed by its
	// workflow: served under the policy's regular expression.
	srv = startServer(t, t.TempDir(), serverOptions{protocol: legacyProtocol, args: []string{"--plugin", refs.ORAS, "--sigstore", refs.Sigstore}})
	if res := srv.call(t, "parse_time", `{"time":"Tue, 1 Jul 2003 10:52:37 +0200"}`); res.IsError || !strings.Contains(text(res), "1057049557") {
		t.Errorf("parse_time from the ORAS artifact = %s\nlog:\n%s", text(res), srv.stderr)
	}
}
