package sandbox

// The host functions of ExtismUserModule, "extism:host/user" (ABI.md
// section 9): those hyper-mcp adds to Extism's for its plugins, with its
// names and signatures, mapped onto the call's client (CallHooks), the
// plugin's lists, and the policy's secrets.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/wasmcp/wasmcp/abi"
)

// ExtismUserModule is the module of hyper-mcp's own host functions.
const ExtismUserModule = "extism:host/user"

// List kinds a plugin may say changed (Options.ListChanged).
const (
	ListTools     = "tools"
	ListPrompts   = "prompts"
	ListResources = "resources"
)

// instantiateExtismUser instantiates ExtismUserModule in a runtime.
func instantiateExtismUser(ctx context.Context, rt wazero.Runtime) (api.Module, error) {
	b := rt.NewHostModuleBuilder(ExtismUserModule)
	for _, f := range extismUserFunctions() {
		fn, name := f.fn, f.name
		b = b.NewFunctionBuilder().
			WithGoModuleFunction(api.GoModuleFunc(func(ctx context.Context, _ api.Module, stack []uint64) {
				in := instanceFrom(ctx)
				if in == nil || in.ext == nil {
					panic(fmt.Errorf("%s.%s called outside a call of an Extism plugin", ExtismUserModule, name))
				}
				fn(in, ctx, stack)
			}), f.params, f.results).
			Export(f.name)
	}
	return b.Instantiate(ctx)
}

func extismUserFunctions() []extismFunction {
	one := []api.ValueType{i64}
	notify := func(list string) func(*instance, context.Context, []uint64) {
		return func(in *instance, _ context.Context, _ []uint64) {
			if f := in.module.opts.ListChanged; f != nil {
				f(list)
			}
		}
	}
	return []extismFunction{
		{"create_elicitation", one, one, (*instance).userElicit},
		{"create_message", one, one, (*instance).userSample},
		{"list_roots", nil, one, (*instance).userRoots},
		{"get_access_token", one, one, func(in *instance, _ context.Context, s []uint64) {
			in.userJSON("get_access_token", s[0])
			in.userFail("get_access_token", "wasmcp gets no OAuth tokens for plugins: give the plugin its credentials "+
				"through the policy (headers for its net origins, or secrets for get_keyring_secret)")
		}},
		{"get_keyring_secret", one, one, (*instance).userSecret},
		{"notify_logging_message", one, nil, (*instance).userLog},
		{"notify_progress", one, nil, (*instance).userProgress},
		{"notify_tool_list_changed", nil, nil, notify(ListTools)},
		{"notify_prompt_list_changed", nil, nil, notify(ListPrompts)},
		{"notify_resource_list_changed", nil, nil, notify(ListResources)},
		{"notify_resource_updated", one, nil, func(in *instance, _ context.Context, s []uint64) {
			// wasmcp offers no resource subscriptions: nobody to tell.
			in.userJSON("notify_resource_updated", s[0])
		}},
		{"notify_url_elicitation_completed", one, nil, func(in *instance, _ context.Context, s []uint64) {
			params := in.userJSON("notify_url_elicitation_completed", s[0])
			st := in.call()
			if st == nil || st.hooks == nil || st.hooks.Notify == nil {
				return
			}
			// Counted with the call's log lines: a guest in a loop must not
			// flood its client.
			if ok, first := in.state.logs.allow(len(params)); !ok {
				if first {
					in.module.opts.Logger.Warn("guest notifications dropped: over the limit of one call",
						"plugin", in.module.name, "tool", in.state.tool, "max_lines", MaxLogLines, "max_bytes", MaxLogBytes)
				}
				return
			}
			in.outside(func() { st.hooks.Notify("notifications/elicitation/complete", params) })
		}},
	}
}

// userFn is the name of the function fn of ExtismUserModule, for the
// kernel's errors.
func userFn(fn string) string { return ExtismUserModule + "." + fn }

// userFail fails the run, as hyper-mcp's host functions do by returning an
// error: the client reads msg, naming the function.
func (in *instance) userFail(fn, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	panic(&callError{ErrHostFunction, nil, userFn(fn) + ": " + msg})
}

// userJSON returns the JSON object in the block at p, freed, or fails the
// run. An argument longer than the plugin's output may be (maxOutput) is
// refused unread: what it carries goes to the client, or into a log line,
// and a plugin may fill its whole memory limit with it.
func (in *instance) userJSON(fn string, p uint64) []byte {
	b := in.kblock(userFn(fn), "the argument", p)
	if limit := uint64(in.module.opts.Limits.MaxOutput); uint64(len(b)) > limit {
		in.userFail(fn, "the argument of %s is over the limit of %s (the plugin's maxOutput)",
			formatBytes(uint64(len(b))), formatBytes(limit))
	}
	b = bytes.Clone(b)
	if t := bytes.TrimLeft(b, " \t\r\n"); len(t) == 0 || t[0] != '{' || !json.Valid(b) {
		in.userFail(fn, "the argument is not a JSON object")
	}
	return b
}

// userAsk sends the guest's request through the hook hookOf picks and
// returns the client's answer in a block. When the client does not answer
// (it lacks the capability, refuses, fails, or the call's client timeout
// runs out) the plugin gets declined(why) instead, as hyper-mcp answers
// its plugins rather than fail their call: a plugin written for it
// handles that answer.
func (in *instance) userAsk(ctx context.Context, fn, feature string, params []byte, hookOf func(*CallHooks) RequestFunc, declined func(why string) any) uint64 {
	st := in.call()
	if st == nil {
		in.userFail(fn, "not available outside a tools/call")
	}
	var hook RequestFunc
	if st.hooks != nil {
		hook = hookOf(st.hooks)
	}
	status, reply := in.module.ask(ctx, st, feature, hook, params)
	if status != abi.StatusOK {
		in.module.opts.Logger.DebugContext(ctx, "plugin's request not answered by the client: the plugin gets hyper-mcp's answer for that",
			"plugin", in.module.name, "tool", st.tool, "function", userFn(fn), "reason", string(reply))
		reply, _ = json.Marshal(declined(string(reply)))
	}
	return in.kbytes(ctx, userFn(fn), reply)
}

// text is an MCP text content block.
type text struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// userSample is create_message. A request the client does not answer gets
// an assistant's message that says why, with the stop reason "error".
func (in *instance) userSample(ctx context.Context, s []uint64) {
	params := in.userJSON("create_message", s[0])
	s[0] = in.userAsk(ctx, "create_message", "sampling", params, func(h *CallHooks) RequestFunc { return h.Sample },
		func(why string) any {
			return struct {
				Role       string `json:"role"`
				Content    text   `json:"content"`
				Model      string `json:"model"`
				StopReason string `json:"stopReason"`
			}{"assistant", text{"text", why}, "", "error"}
		})
}

// userElicit is create_elicitation. hyper-mcp's request may carry a
// "timeout" in seconds beside the ElicitRequest's params: it bounds the
// wait, within the call's client timeout, and is not sent. A request the
// client does not answer is declined, the content saying why.
func (in *instance) userElicit(ctx context.Context, s []uint64) {
	params := in.userJSON("create_elicitation", s[0])
	var req map[string]json.RawMessage
	_ = json.Unmarshal(params, &req) // valid, checked above
	if raw, ok := req["timeout"]; ok {
		delete(req, "timeout")
		params, _ = json.Marshal(req)
		var secs float64
		if json.Unmarshal(raw, &secs) == nil && secs > 0 && !math.IsInf(secs, 0) {
			if st := in.call(); st != nil {
				limit := time.Duration(min(secs, math.MaxInt64/float64(time.Second)) * float64(time.Second))
				if limit < st.waitLeft {
					rest := st.waitLeft - limit
					st.waitLeft = limit
					defer func() { st.waitLeft += rest }()
				}
			}
		}
	}
	s[0] = in.userAsk(ctx, "create_elicitation", "elicitation", params, func(h *CallHooks) RequestFunc { return h.Elicit },
		func(why string) any {
			return struct {
				Action  string            `json:"action"`
				Content map[string]string `json:"content"`
			}{"decline", map[string]string{"error": why}}
		})
}

// userRoots is list_roots: the client's roots, none when it does not
// answer.
func (in *instance) userRoots(ctx context.Context, s []uint64) {
	s[0] = in.userAsk(ctx, "list_roots", "roots", []byte(`{}`), func(h *CallHooks) RequestFunc { return h.Roots },
		func(string) any { return json.RawMessage(`{"roots":[]}`) })
}

// userSecret is get_keyring_secret: the value the policy holds for the
// plugin under "service/user", never the host's keyring; an empty block
// for one it does not hold, as hyper-mcp gives for one not allowed.
func (in *instance) userSecret(ctx context.Context, s []uint64) {
	var id struct {
		Service string `json:"service"`
		User    string `json:"user"`
	}
	if err := json.Unmarshal(in.userJSON("get_keyring_secret", s[0]), &id); err != nil {
		in.userFail("get_keyring_secret", "the argument is not a keyring entry {\"service\", \"user\"}: %v", err)
	}
	v, ok := in.module.opts.Secrets[id.Service+"/"+id.User]
	if !ok {
		in.module.opts.Logger.WarnContext(ctx, "plugin asked for a secret its policy section does not hold",
			"plugin", in.module.name, "secret", id.Service+"/"+id.User)
		s[0] = in.kbytes(ctx, userFn("get_keyring_secret"), []byte{})
		return
	}
	s[0] = in.kbytes(ctx, userFn("get_keyring_secret"), []byte(v))
}

// mcpLevels are MCP's logging levels, in the order of abi.LogLevel.
var mcpLevels = map[string]abi.LogLevel{"debug": abi.LogDebug, "info": abi.LogInfo, "notice": abi.LogNotice,
	"warning": abi.LogWarning, "error": abi.LogError, "critical": abi.LogCritical, "alert": abi.LogAlert, "emergency": abi.LogEmergency}

// userLog is notify_logging_message: the params of an MCP
// notifications/message become a log line like log_*'s, its data as text.
func (in *instance) userLog(ctx context.Context, s []uint64) {
	var msg struct {
		Level  string          `json:"level"`
		Logger string          `json:"logger"`
		Data   json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(in.userJSON("notify_logging_message", s[0]), &msg); err != nil {
		in.userFail("notify_logging_message", "the argument is not a logging message: %v", err)
	}
	level, ok := mcpLevels[msg.Level]
	if !ok {
		level = abi.LogInfo
	}
	text := msg.Data
	var str string
	if json.Unmarshal(msg.Data, &str) == nil {
		text = []byte(str)
	}
	if msg.Logger != "" {
		text = append([]byte(msg.Logger+": "), text...)
	}
	in.module.emit(ctx, level, text)
}

// userProgress is notify_progress: a progress report of the call, under
// the rules of wasmcp.progress (increasing, finite). The token the plugin
// gives is the one wasmcp passed in its request's _meta, for this call.
func (in *instance) userProgress(_ context.Context, s []uint64) {
	var p struct {
		Progress float64  `json:"progress"`
		Total    *float64 `json:"total"`
		Message  string   `json:"message"`
	}
	if err := json.Unmarshal(in.userJSON("notify_progress", s[0]), &p); err != nil {
		in.userFail("notify_progress", "the argument is not a progress notification: %v", err)
	}
	total := -1.0
	if p.Total != nil {
		total = *p.Total
	}
	in.report(p.Progress, total, p.Message)
}
