package e2e

import (
	"cmp"
	"path/filepath"
	"testing"
)

// TestHotReload watches a served directory from the client's side: a module
// dropped in brings its tool with notifications/tools/list_changed, and
// deleting it takes the tool away again. Both protocol eras are covered: the
// initialize handshake gets the notification on the session, the stateless
// protocol on its subscriptions/listen stream.
func TestHotReload(t *testing.T) {
	for _, protocol := range []string{legacyProtocol, ""} {
		t.Run("protocol="+cmp.Or(protocol, "latest"), func(t *testing.T) {
			s := startServer(t, servedCopy(t, wat("hostile")), serverOptions{protocol: protocol})
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
