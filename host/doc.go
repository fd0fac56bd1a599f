// Package host is the wasmcp engine: it loads WebAssembly tool modules from
// a directory, lists their tools, calls them in a sandbox, and reloads them
// when their files change. It knows nothing of MCP or JSON-RPC; the MCP
// adapter maps a Host onto a protocol server.
//
// A Host is made from an immutable Config:
//
//	h, err := host.New(ctx, host.NewConfig().WithDir("plugins"))
//	...
//	h.Subscribe(func(c host.Change) { ... }) // the tools served now, then every change
//	go h.Watch(ctx)               // load every *.wasm, then reload as files change
//	<-h.Loaded()                  // optional: tools are served as their modules load
//	res, err := h.Call(ctx, host.CallRequest{Tool: "echo", Arguments: args})
//	...
//	h.Close(ctx)
//
// LoadDir loads the directory once, without watching it. Both serve each
// module as soon as it has loaded, so that a server can answer its clients
// while large modules still compile; a module that fails to load is logged
// once and not tried again until its file changes.
//
// # Hot reload
//
// Watch reports a file once it has stopped changing. A file whose content
// (SHA-256) is that of the version loaded is ignored. Otherwise the new
// version is loaded completely (compiled, instantiated, described, its
// definitions and schemas validated) before anything changes; if that fails
// the previous version keeps serving and the log names the file and the
// reason.
//
// A file read while still being written (a cp that paused for longer than
// the watcher's settle time) fails to load and is logged; its writer's next
// write is reported again and loads the whole file, so no retry loop is
// needed. To avoid even that log line, deploy by writing under a name that
// is not a plugin file (".x.wasm.tmp") and renaming it into place.
//
// The swap is atomic: calls already running finish on the old version,
// later calls go to the new one, and the old version is closed once its
// calls have drained. A call that picked the old version just before the
// swap and reached it after it closed is retried on the new one, so a tool
// present in both versions never fails because of a reload. A deleted
// file's tools disappear.
//
// Subscribers receive the tools served when they subscribe, then one Change
// per effective change of the tool set, in order, before the load that made
// it goes on. A reload that leaves every tool definition byte-identical
// (after canonicalising its JSON) produces no Change; Call's Result names
// the module version that ran (Result.Module), so that a reload of code
// alone is still visible where it matters, in an audit line.
//
// # Tool name collisions
//
// Tool names are global, so two modules may define the same name. The rule:
// a module loaded later never takes over a tool name another module already
// serves. The module serving it (the owner) keeps it; the newcomer's
// colliding tools are refused, its other tools are served, and a log line
// names the tool and both files. Refused lists the refusals.
//
// While a directory loads module by module, a contested name may change
// owner as later modules arrive; when the load is over, the owner is the one
// these rules give the whole set, whatever order the modules loaded in.
//
// Ownership is recorded as a claim (tool name -> plugin name). Claims are
// kept in the cache directory, in claims/<first 16 hex digits of the
// SHA-256 of the absolute plugin directory>.json, so a restart gives every
// tool to the same module whatever order the files load in. At start, a
// claimed tool goes to its claimant if the claimant loads and still defines
// it; otherwise, and for unclaimed collisions, to the first defining module
// in plugin name order (the file name without ".wasm"). A new version of a
// file keeps its claims. When the owner is deleted, or a new version of it
// no longer defines the tool, the claim is released and the next module
// defining it, in plugin name order, takes it (logged). With no cache
// directory, claims live in memory only, and after a restart collisions are
// decided by plugin name order again.
//
// # Files
//
// Plugin files are the regular files directly in the directory whose names
// end in ".wasm" and do not start with '.', '#' or '~' (see
// PluginFiles); the initial load and hot reload use the same
// rule. A plugin's name is its file name without ".wasm"; LoadFile of a file
// elsewhere with the name of a loaded plugin replaces that plugin.
package host
