// Package policy reads the operator's policy file: per-plugin limits and the
// capabilities each plugin may be granted beyond the closed sandbox.
//
// # Format
//
// One JSON file (the standard library parses it, and an operator can check
// it with any JSON tool). Unknown fields are errors, so that a misspelt
// setting is not silently ignored.
//
//	{
//	  "defaults": {
//	    "memory": "128MiB",
//	    "timeout": "10s",
//	    "maxOutput": "1MiB",
//	    "concurrency": 4,
//	    "rate": 20
//	  },
//	  "plugins": {
//	    "notes": {
//	      "memory": "256MiB",
//	      "fs": [
//	        {"host": "/srv/notes", "guest": "/notes", "write": true},
//	        {"host": "templates", "guest": "/templates"}
//	      ],
//	      "env": ["TZ", "NOTES_MODE=readonly"],
//	      "clock": true,
//	      "random": true
//	    },
//	    "fetch": {
//	      "net": ["https://api.github.com", "https://*.example.com", "http://127.0.0.1:8080"],
//	      "headers": {"https://api.github.com": {"Authorization": "Bearer ${GITHUB_TOKEN}"}},
//	      "maxResponse": "8MiB"
//	    }
//	  }
//	}
//
// "defaults" applies to every plugin; "plugins" is keyed by plugin name, the
// module's file name without ".wasm", and each setting given there replaces
// the default's (a list replaces the whole list). A setting given nowhere
// keeps the command line's value (memory, timeout, maxOutput: -memory,
// -timeout, -max-output; concurrency: -concurrency) or, for a capability,
// denies it. Memory, timeout and maxOutput are enforced by the sandbox, for
// every command. Concurrency and rate are admission limits that the host
// enforces before each call (see host.Admission; it reads them with
// Policy.Admission): concurrency replaces -concurrency as the plugin's cap,
// its queue keeping -queue and -queue-timeout; rate is one token bucket for
// the plugin (bursts of one second's worth), checked after the -rate and
// -tool-rate buckets, all of which a call must pass. A call refused by
// either is a tool error that names the plugin and the limit.
//
//	memory       memory limit of one instance: bytes, or a string such as "64MiB", "1GB"
//	timeout      deadline of one call: a Go duration such as "500ms", "10s"
//	maxOutput    largest result document: bytes or a size string
//	concurrency  calls the plugin may run at once (0: the command line's -concurrency)
//	rate         calls per second the plugin may serve, all its tools and sessions
//	             together (0: no limit of its own; -rate and -tool-rate still apply)
//	fs           directories: "host" (relative paths are relative to the policy
//	             file), "guest" (an absolute path), "write" (default false: read-only)
//	env          environment variables: "NAME" passes wasmcp's own value of NAME
//	             (read at each load; unset means not passed), "NAME=value" a literal
//	clock        true: the host's real clocks and sleeps (default: deterministic)
//	random       true: crypto/rand (default: a deterministic source)
//	net          origins wasmcp.http_request may reach: "https://api.github.com"
//	             (scheme, host, port; the port defaults to the scheme's),
//	             "https://*.example.com" (subdomains, not example.com itself),
//	             "http://127.0.0.1:8080" (an address), "*" (any origin whose
//	             addresses are public)
//	privateNetwork  true: connections to every address, not only public ones
//	             and those the net list names (default false)
//	headers      per origin, headers the host sets on every request to it,
//	             replacing the guest's of the same name; "${NAME}" in a value is
//	             wasmcp's environment variable NAME, read at each load
//	caFile       a PEM file of certificates trusted besides the system's
//	             (relative to the policy file)
//	proxy        "http://host:port": every request goes through it; without it
//	             the proxy environment variables are ignored
//	maxResponse  largest response body: bytes or a size string (default 4MiB)
//	maxRequests  requests the plugin may have in flight, all calls together
//	             (default 4)
//	config       an Extism plugin's config_get values: string keys to string
//	             values (a plugin's object replaces the defaults' whole)
//
// # Deny by default
//
// A capability reaches a module only when the policy grants it and the module
// asks for it in the permissions of its describe document (ABI.md section
// 4): the grant is the intersection of the two. A directory is granted when
// the policy mounts one at the guest path the module asks for, writable only
// when both say "write"; a variable when the policy lists its name. What is
// asked and not granted is reported by Grant and logged by the host at each
// load, so a new version of a module that asks for more gets no more and
// says so in the log. Without a policy file nothing is granted.
//
// An Extism plugin (ABI.md section 9) cannot ask: the policy stands for its
// manifest, and it is granted everything the policy offers it (Offer), as
// if it had asked for all of it; any wasmcp module could ask the same.
//
// An origin is granted when a policy entry and a requested entry both match
// it: a request for "*" gets every origin the policy lists, a request for
// "https://api.github.com" gets it from a policy allowing it, its wildcard
// or "*". Whatever the origin, a connection's address must be public,
// unless the grant holds that address as an origin or the policy sets
// privateNetwork: so a name that resolves to 127.0.0.1 or 169.254.169.254
// is refused (see SECURITY.md, "The network").
//
// A Policy is immutable. To change it, parse the file again and hand the
// new one to Host.Reconfigure (wasmcp serve does on SIGHUP): every module
// is loaded again under it, and calls in flight finish under the old one.
package policy
