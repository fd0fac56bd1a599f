package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The plugins of examples/extism that call hyper-mcp's own host functions
// (extism:host/user), declared as hyper-mcp's plugin templates declare
// them: extism-user-as (the AssemblyScript PDK) and extism-user-go (the Go
// PDK), both of hyper-mcp's protocol v2, with the same tools. What these
// tests hold wasmcp to (ABI.md section 9), with a client of each protocol
// era:
//   - notify_progress reaches the client under the call's progress token,
//     which the plugin read from its input's context;
//   - notify_logging_message is a notifications/message;
//   - create_message and create_elicitation are answered by the client, in
//     the middle of the call (2025-11-25) or in a rerun of it (2026-07-28);
//   - list_roots gives the client's roots, asked like sampling;
//   - notify_url_elicitation_completed reaches a 2025-11-25 session;
//   - get_keyring_secret reads the policy's secrets, and nothing else;
//   - get_access_token fails the call, saying why;
//   - after notify_tool/prompt/resource_list_changed the plugin's lists are
//     read again, and the client told of the tool its variables added.

// userPluginNames are the plugins' names, as make plugins builds them into
// $WASMCP_EXTISM.
var userPluginNames = []string{"extism-user-as", "extism-user-go"}

// userSecret is the secret the policy gives the plugins, from the server's
// environment.
const userSecret = "correct horse battery staple"

// userClient serves the plugin at path, with the policy section settings
// (a JSON object) under its name and userSecret in the environment, beside
// the modules others, and connects a go-sdk client with opts and the root
// file:///e2e/work, speaking protocol, to it over stdio.
func userClient(t *testing.T, path, settings, protocol string, opts *mcp.ClientOptions, others ...string) (*mcp.ClientSession, *exec.Cmd, *lockedBuffer) {
	t.Helper()
	dir := servedCopy(t, append([]string{path}, others...)...)
	name := strings.TrimSuffix(filepath.Base(path), ".wasm")
	config := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(config, []byte(`{"plugins":{"`+name+`":`+settings+`}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binPath, "serve", "--dir", dir, "--cache-dir", cacheDir, "--log-level", "debug", "--wait-loaded", "--config", config)
	cmd.Env = append(os.Environ(), "WASMCP_E2E_SECRET="+userSecret)
	client := mcp.NewClient(&mcp.Implementation{Name: "wasmcp-e2e", Version: "1"}, opts)
	client.AddRoots(&mcp.Root{URI: "file:///e2e/work", Name: "work"})
	cs, stderr := connectClient(t, cmd, client, protocol)
	return cs, cmd, stderr
}

// userPolicy gives the plugins the secret e2e/ada.
const userPolicy = `{"secrets":{"e2e/ada":"${WASMCP_E2E_SECRET}"}}`

func TestExtismUserFunctionsWithTheGoClient(t *testing.T) {
	for i, path := range extismPluginPaths(t, userPluginNames...) {
		plugin := userPluginNames[i]
		t.Run(plugin, func(t *testing.T) {
			bothEras(t, func(t *testing.T, protocol string) {
				modern := protocol != legacyProtocol
				c := newUserClientLog()
				opts := c.options()
				cs, _, stderr := userClient(t, path, userPolicy, protocol, opts)
				call := func(tool string, args map[string]any, meta mcp.Meta) *mcp.CallToolResult {
					t.Helper()
					res, err := cs.CallTool(testContext(t), &mcp.CallToolParams{Name: tool, Arguments: args, Meta: meta})
					if err != nil {
						t.Fatalf("call %s: %v\nserver log:\n%s", tool, err, stderr)
					}
					return res
				}
				wantText := func(res *mcp.CallToolResult, want string) {
					t.Helper()
					wantOK(t, res)
					if got := text(res); got != want {
						t.Errorf("text %q, want %q", got, want)
					}
				}

				t.Run("progress", func(t *testing.T) {
					wantText(call("progress", nil, mcp.Meta{"progressToken": "tok-7"}), "reported 3 steps")
					c.wait(t, "progress", 3)
					for i, p := range c.takeProgress() {
						want := mcp.ProgressNotificationParams{ProgressToken: "tok-7", Progress: float64(i + 1), Total: 3,
							Message: "step " + string(rune('1'+i)) + " of 3"}
						if p.ProgressToken != want.ProgressToken || p.Progress != want.Progress || p.Total != want.Total || p.Message != want.Message {
							t.Errorf("progress %d: %+v, want %+v", i, p, want)
						}
					}
					wantText(call("progress", nil, nil), "no progress token")
				})

				t.Run("log", func(t *testing.T) {
					// A 2025-11-25 client sets its level for the session, a
					// 2026-07-28 one in each request.
					var meta mcp.Meta
					if modern {
						meta = mcp.Meta{mcp.MetaKeyLogLevel: "debug"}
					} else if err := cs.SetLoggingLevel(testContext(t), &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
						t.Fatal(err)
					}
					wantText(call("log", map[string]any{"level": "warning", "message": "careful"}, meta), "sent")
					// The plugin's logger leads the text: the message's
					// logger is the plugin, as for log_* lines.
					logger := strings.TrimPrefix(plugin, "extism-")
					logs := c.waitLog(t, logger+": careful")
					if logs.Level != "warning" || logs.Logger != plugin {
						t.Errorf("log %+v, want level warning from %s", logs, plugin)
					}
				})

				t.Run("sampling", func(t *testing.T) {
					wantText(call("sample", map[string]any{"prompt": "2+2?"}, nil), "e2e-model said: Four.")
					if got := c.asked("sampling"); !slices.Equal(got, []string{"2+2?"}) {
						t.Errorf("the client was asked %q", got)
					}
				})

				t.Run("elicitation", func(t *testing.T) {
					wantText(call("elicit", nil, nil), "accept Ada")
					if got := c.asked("elicitation"); !slices.Equal(got, []string{"form What is your name?"}) {
						t.Errorf("the client was asked %q", got)
					}
				})

				t.Run("roots", func(t *testing.T) {
					wantText(call("roots", nil, nil), "file:///e2e/work")
				})

				t.Run("url elicitation complete", func(t *testing.T) {
					wantText(call("url_done", map[string]any{"id": "el-1"}, nil), "sent")
					if !modern {
						c.wait(t, "elicitation complete el-1", 1)
					}
				})

				t.Run("resource updated", func(t *testing.T) {
					wantText(call("resource_updated", map[string]any{"uri": "file:///e2e/r"}, nil), "sent")
				})

				t.Run("keyring secret", func(t *testing.T) {
					wantText(call("secret", map[string]any{"service": "e2e", "user": "ada"}, nil), userSecret)
					wantText(call("secret", map[string]any{"service": "e2e", "user": "bob"}, nil), "no secret")
				})

				t.Run("access token", func(t *testing.T) {
					wantToolError(t, call("token", nil, nil), "extism:host/user.get_access_token", "wasmcp gets no OAuth tokens")
				})

				t.Run("list changed", func(t *testing.T) {
					for i, list := range []string{"tools", "prompts", "resources"} {
						n := string(rune('1' + i))
						wantText(call("grow", map[string]any{"list": list}, nil), n+" extra tools")
						c.wait(t, "tools changed", i+1)
						tools := map[string]bool{}
						for tool, err := range cs.Tools(testContext(t), nil) {
							if err != nil {
								t.Fatal(err)
							}
							tools[tool.Name] = true
						}
						if !tools["extra_"+n] {
							t.Fatalf("after grow(%s), extra_%s is not listed: %v", list, n, tools)
						}
						wantText(call("extra_"+n, nil, nil), "extra_"+n+" was added by grow")
					}
				})
			})
		})
	}
}

// userClientLog records what a client of the user plugins was sent, and
// answers their sampling and elicitation requests.
type userClientLog struct {
	mu       sync.Mutex
	events   map[string][]string // by kind: what came, in order
	progress []*mcp.ProgressNotificationParams
	logs     []*mcp.LoggingMessageParams
	changed  chan struct{}
}

func newUserClientLog() *userClientLog {
	return &userClientLog{events: map[string][]string{}, changed: make(chan struct{}, 1)}
}

func (c *userClientLog) add(kind, what string, f func()) {
	c.mu.Lock()
	c.events[kind] = append(c.events[kind], what)
	if f != nil {
		f()
	}
	c.mu.Unlock()
	select {
	case c.changed <- struct{}{}:
	default:
	}
}

// options are the client's: roots, and handlers that record and answer.
func (c *userClientLog) options() *mcp.ClientOptions {
	return &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			c.add("progress", "", func() { c.progress = append(c.progress, r.Params) })
		},
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			c.add("log", "", func() { c.logs = append(c.logs, r.Params) })
		},
		CreateMessageHandler: func(_ context.Context, r *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			prompt := ""
			if len(r.Params.Messages) > 0 {
				if tc, ok := r.Params.Messages[0].Content.(*mcp.TextContent); ok {
					prompt = tc.Text
				}
			}
			c.add("sampling", prompt, nil)
			return &mcp.CreateMessageResult{Role: "assistant", Model: "e2e-model", Content: &mcp.TextContent{Text: "Four."}}, nil
		},
		ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			c.add("elicitation", r.Params.Mode+" "+r.Params.Message, nil)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		},
		ElicitationCompleteHandler: func(_ context.Context, r *mcp.ElicitationCompleteNotificationRequest) {
			c.add("elicitation complete "+r.Params.ElicitationID, "", nil)
		},
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			c.add("tools changed", "", nil)
		},
	}
}

// asked returns and forgets the requests of kind the client answered.
func (c *userClientLog) asked(kind string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	got := c.events[kind]
	delete(c.events, kind)
	return got
}

// takeProgress returns and forgets the progress notifications that came.
func (c *userClientLog) takeProgress() []*mcp.ProgressNotificationParams {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.progress
	c.progress, c.events["progress"] = nil, nil
	return p
}

// wait waits until at least n events of kind came.
func (c *userClientLog) wait(t *testing.T, kind string, n int) {
	t.Helper()
	ctx := testContext(t)
	for {
		c.mu.Lock()
		got := len(c.events[kind])
		c.mu.Unlock()
		if got >= n {
			return
		}
		select {
		case <-c.changed:
		case <-ctx.Done():
			t.Fatalf("%d of %d %s notifications came", got, n, kind)
		}
	}
}

// waitLog waits for the logging message whose data is data.
func (c *userClientLog) waitLog(t *testing.T, data string) *mcp.LoggingMessageParams {
	t.Helper()
	ctx := testContext(t)
	for {
		c.mu.Lock()
		for _, l := range c.logs {
			if s, _ := l.Data.(string); s == data {
				c.mu.Unlock()
				return l
			}
		}
		c.mu.Unlock()
		select {
		case <-c.changed:
		case <-ctx.Done():
			t.Fatalf("no logging message %q", data)
		}
	}
}

// userAttackPlugin is host/testdata/extism_user_attack.wasm, a plugin that
// abuses hyper-mcp's host functions (its .wat says how).
func userAttackPlugin(t *testing.T) string {
	t.Helper()
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, "host", "testdata", "extism_user_attack.wasm")
}

// A plugin calling hyper-mcp's host functions with offsets that are no
// blocks, 100 MiB of arguments, a create_message flood and 10,000
// list-changed notifications a second, served beside another plugin to a
// client that answers every sampling request at once: each ends with a
// clear error or goes unheard, the server's memory stays bounded, and both
// plugins serve on.
func TestExtismUserBadInputWithTheGoClient(t *testing.T) {
	needProc(t)
	var sampled, changed atomic.Int64
	cs, cmd, stderr := userClient(t, userAttackPlugin(t), `{}`, legacyProtocol, &mcp.ClientOptions{
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			sampled.Add(1)
			return &mcp.CreateMessageResult{Role: "assistant", Model: "m", Content: &mcp.TextContent{Text: "hi"}}, nil
		},
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed.Add(1) },
	}, wat("hello"))
	pid := cmd.Process.Pid
	call := func(tool string) *mcp.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(testContext(t), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}})
		if err != nil {
			t.Fatalf("call %s: %v", tool, err)
		}
		return res
	}
	servesOn := func() {
		t.Helper()
		wantOK(t, call("ok"))
		if got := text(call("hello")); got != "hello from a hot-loaded module" {
			t.Errorf("hello = %q", got)
		}
	}
	servesOn()
	baseline := status(t, pid, "VmRSS")

	t.Run("offsets that are no blocks", func(t *testing.T) {
		for i, fn := range []string{"create_elicitation", "create_message", "get_access_token", "get_keyring_secret",
			"notify_logging_message", "notify_progress", "notify_resource_updated", "notify_url_elicitation_completed"} {
			wantToolError(t, call(fmt.Sprintf("p%d", i+1)), "extism:host/user."+fn, "is not an allocated block")
		}
		wantToolError(t, call("fr"), "extism:host/user.notify_progress", "is not an allocated block")
		servesOn()
	})

	t.Run("100 MiB of arguments", func(t *testing.T) {
		start := time.Now()
		wantToolError(t, call("b2"), "extism:host/user.create_message: the argument of 100 MiB is over the limit of 4 MiB")
		peak := status(t, pid, "VmHWM")
		t.Logf("a 100 MiB argument refused in %v; resident memory %d MiB before, peak %d MiB",
			time.Since(start).Round(time.Millisecond), baseline/mib, peak/mib)
		// The block counts against the plugin's memory limit (256 MiB),
		// which bounds what the call may hold; the host copies none of it.
		if bound := baseline + 256*mib; peak > bound {
			t.Errorf("peak resident memory %d MiB, over %d MiB", peak/mib, bound/mib)
		}
		if n := sampled.Load(); n != 0 {
			t.Errorf("the client was asked %d times", n)
		}
		servesOn()
	})

	t.Run("create_message flood", func(t *testing.T) {
		start := time.Now()
		wantToolError(t, call("fl"), "sampling request not sent: the call already made 1000 requests of its client")
		t.Logf("the flood ended after %d sampling requests in %v", sampled.Load(), time.Since(start).Round(time.Millisecond))
		if n := sampled.Load(); n != 1000 {
			t.Errorf("the client was asked %d times, want 1000", n)
		}
		servesOn()
	})

	t.Run("10,000 list-changed notifications a second", func(t *testing.T) {
		start := time.Now()
		n := 0
		for time.Since(start) < time.Second {
			wantOK(t, call("li"))
			n++
			servesOn()
		}
		elapsed := time.Since(start)
		time.Sleep(300 * time.Millisecond) // the last reading
		// The lists are read at most every 100 ms; they never change, so
		// the client is told nothing.
		reads := strings.Count(stderr.String(), "plugin's lists read again")
		t.Logf("%d notifications in %v: %d readings, %d list_changed to the client", n*10_000, elapsed.Round(time.Millisecond),
			reads, changed.Load())
		if limit := int(elapsed/(100*time.Millisecond)) + 2; reads > limit {
			t.Errorf("%d readings in %v, want at most %d", reads, elapsed, limit)
		}
		if c := changed.Load(); c != 0 {
			t.Errorf("%d list_changed for a list that did not change", c)
		}
		servesOn()
	})
}
