# mk/extism.mk: the Extism plugins of examples/extism, written with Extism's
# public PDKs as hyper-mcp plugins, knowing nothing of wasmcp.
#
# Included by the top-level Makefile. It hooks into `plugins` and `deps` and
# defines:
#
#   extism-plugins  $(EXTISM_DIR)/extism-as.wasm       hyper-mcp v1, @extism/as-pdk
#                   $(EXTISM_DIR)/extism-go.wasm       hyper-mcp v2, github.com/extism/go-pdk
#                   $(EXTISM_DIR)/extism-user-as.wasm  hyper-mcp v2, @extism/as-pdk, calling
#                   $(EXTISM_DIR)/extism-user-go.wasm  hyper-mcp v2, github.com/extism/go-pdk, calling
#                       every host function of hyper-mcp's own (extism:host/user)
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
EXTISM_PLUGINS := $(addprefix $(EXTISM_DIR)/,extism-as.wasm extism-go.wasm extism-user-as.wasm extism-user-go.wasm)

plugins: $(EXTISM_PLUGINS)
deps: $(EXTISM_AS_STAMP)

.PHONY: extism-plugins
extism-plugins: $(EXTISM_PLUGINS)

# extism_as NAME builds the AssemblyScript plugin NAME.ts. abort=common/abort
# routes AssemblyScript's abort to the plugins' own, so that a module
# imports nothing but the host functions it declares.
define extism_as
	@mkdir -p $(@D)
	@echo "  wasm     $@"
	@cd $(EXTISM_AS) && timeout 5m node_modules/.bin/asc $(1).ts --use abort=common/abort \
		--runtime incremental --optimizeLevel 3 --shrinkLevel 1 -o $(abspath $@) || { \
		echo "make: building the Extism AssemblyScript plugin $(EXTISM_AS)/$(1).ts failed" >&2; exit 1; }
endef

$(EXTISM_DIR)/extism-as.wasm: $(EXTISM_AS)/plugin.ts $(EXTISM_AS)/common.ts $(EXTISM_AS_STAMP)
	$(call extism_as,plugin)

$(EXTISM_DIR)/extism-user-as.wasm: $(EXTISM_AS)/user.ts $(EXTISM_AS)/common.ts $(EXTISM_AS_STAMP)
	$(call extism_as,user)

# extism_go PACKAGE builds the Go plugin of the package directory PACKAGE of
# $(EXTISM_GO). The PDK comes from the Go module proxy on the first build
# (go.sum pins it).
define extism_go
	@mkdir -p $(@D)
	@echo "  wasm     $@"
	@cd $(EXTISM_GO) && GOOS=wasip1 GOARCH=wasm timeout 10m $(GO) build -buildmode=c-shared -o $(abspath $@) $(1) || { \
		echo "make: building the Extism Go plugin $(EXTISM_GO)/$(1) failed; it needs github.com/extism/go-pdk from the Go module proxy" >&2; exit 1; }
endef

$(EXTISM_DIR)/extism-go.wasm: $(EXTISM_GO)/main.go $(EXTISM_GO)/go.mod $(EXTISM_GO)/go.sum
	$(call extism_go,.)

$(EXTISM_DIR)/extism-user-go.wasm: $(wildcard $(EXTISM_GO)/user/*.go) $(EXTISM_GO)/go.mod $(EXTISM_GO)/go.sum
	$(call extism_go,./user)

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
	@cd $(EXTISM_GO) && GOOS=wasip1 GOARCH=wasm $(GO) vet ./...
