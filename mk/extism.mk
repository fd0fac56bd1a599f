# mk/extism.mk: the Extism plugins of examples/extism, written with Extism's
# public PDKs as hyper-mcp plugins, knowing nothing of wasmcp.
#
# Included by the top-level Makefile. It hooks into `plugins` and `deps` and
# defines:
#
#   extism-plugins  $(EXTISM_DIR)/extism-as.wasm  hyper-mcp v1, @extism/as-pdk
#                   $(EXTISM_DIR)/extism-go.wasm  hyper-mcp v2, github.com/extism/go-pdk
#
# They go to a directory of their own, named to the tests by WASMCP_EXTISM:
# not the served one (the end-to-end tests serve them with the policy they
# need: config, net), nor the examples one, whose every module the sandbox's
# tests load as a wasmcp module. bench/extism_test.go checks them under the
# Extism Go SDK's own host.

EXTISM_AS := examples/extism/as
EXTISM_AS_STAMP := $(EXTISM_AS)/node_modules/.package-lock.json
EXTISM_GO := examples/extism/go
EXTISM_DIR := build/extism
EXTISM_PLUGINS := $(addprefix $(EXTISM_DIR)/,extism-as.wasm extism-go.wasm)

plugins: $(EXTISM_PLUGINS)
deps: $(EXTISM_AS_STAMP)

.PHONY: extism-plugins
extism-plugins: $(EXTISM_PLUGINS)

# abort=plugin/abort routes AssemblyScript's abort to the plugin's own, so
# that the module imports nothing but extism:host/env.
$(EXTISM_DIR)/extism-as.wasm: $(EXTISM_AS)/plugin.ts $(EXTISM_AS_STAMP)
	@mkdir -p $(@D)
	@echo "  wasm     $@"
	@cd $(EXTISM_AS) && timeout 5m node_modules/.bin/asc plugin.ts --use abort=plugin/abort \
		--runtime incremental --optimizeLevel 3 --shrinkLevel 1 -o $(abspath $@) || { \
		echo "make: building the Extism AssemblyScript plugin ($(EXTISM_AS)) failed" >&2; exit 1; }

# The PDK comes from the Go module proxy on the first build (go.sum pins it).
$(EXTISM_DIR)/extism-go.wasm: $(EXTISM_GO)/main.go $(EXTISM_GO)/go.mod $(EXTISM_GO)/go.sum
	@mkdir -p $(@D)
	@echo "  wasm     $@"
	@cd $(EXTISM_GO) && GOOS=wasip1 GOARCH=wasm timeout 10m $(GO) build -buildmode=c-shared -o $(abspath $@) . || { \
		echo "make: building the Extism Go plugin ($(EXTISM_GO)) failed; it needs github.com/extism/go-pdk from the Go module proxy" >&2; exit 1; }

# npm ci installs exactly package-lock.json; node_modules/.package-lock.json
# is the stamp it leaves.
$(EXTISM_AS_STAMP): $(EXTISM_AS)/package.json $(EXTISM_AS)/package-lock.json
	@if ! command -v npm >/dev/null 2>&1; then \
		echo "npm not found. Install Node.js 20 or later with npm, then run make again." >&2; exit 1; \
	fi
	@echo "  npm ci   $(EXTISM_AS)"
	@cd $(EXTISM_AS) && timeout 10m npm ci --no-audit --no-fund --loglevel=error >/dev/null || { \
		echo "make: npm ci in $(EXTISM_AS) failed (it needs @extism/as-pdk and assemblyscript from npm)" >&2; exit 1; }
	@touch $@

# The Go plugin is a module of its own, which the root's go vet leaves out.
vet: extism-vet
.PHONY: extism-vet
extism-vet:
	@cd $(EXTISM_GO) && GOOS=wasip1 GOARCH=wasm $(GO) vet .
