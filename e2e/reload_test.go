package e2e

import (
	"cmp"
	"path/filepath"
	"testing"
)

// TestHotReload watches a served directory from the client's side: a module
// dropped in brings its tool with notifications/tools/list_changed, and
// deleting it takes the tool away again. Both protocol eras are covered, over
// stdio and over Streamable HTTP: the initialize handshake gets the
// notification on the session (over HTTP, its GET event stream), the
// stateless protocol on its subscriptions/listen stream.
func TestHotReload(t *testing.T) {
	for _, tc := range []struct {
		protocol string
		http     bool
	}{{legacyProtocol, false}, {"", false}, {legacyProtocol, true}, {"", true}} {
		name := "stdio"
		if tc.http {
			name = "http"
		}
		t.Run(name+"/protocol="+cmp.Or(tc.protocol, "latest"), func(t *testing.T) {
			s := startServer(t, servedCopy(t, wat("hostile")), serverOptions{protocol: tc.protocol, http: tc.http})
			if want := cmp.Or(tc.protocol, "2026-07-28"); s.InitializeResult().ProtocolVersion != want {
				t.Fatalf("negotiated %s, want %s", s.InitializeResult().ProtocolVersion, want)
			}
			if _, ok := s.tools(t)["hello"]; ok {
				t.Fatal("hello served before its module was added")
			}

			added := filepath.Join(s.dir, "hello.wasm")
			copyFile(t, wat("hello"), added)
			s.waitToolsChanged(t)
			tool, ok := s.tools(t)["hello"]
			if !ok {
				t.Fatal("hello not listed after list_changed")
			}
			if tool.Description == "" {
				t.Error("hello listed without its description")
			}
			if res := s.call(t, "hello", `{}`); text(res) != "hello from a hot-loaded module" {
				t.Errorf("hello = %q", text(res))
			}

			removeFile(t, added)
			s.waitToolsChanged(t)
			if _, ok := s.tools(t)["hello"]; ok {
				t.Error("hello still listed after its module was deleted")
			}
			_, err := s.callErr(t, "hello", `{}`)
			wantInvalidParams(t, err)
			// The module that stayed is untouched.
			if res := s.call(t, "ping", `{}`); text(res) != "pong" {
				t.Errorf("ping = %q, want pong", text(res))
			}
		})
	}
}
