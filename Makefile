# wasmcp build and test entry points. On a fresh machine with Go, Node 20+
# and npm, `make run` serves the bundled tools and `make test` runs every
# check CI runs.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := build
.DELETE_ON_ERROR:
MAKEFLAGS += --no-print-directory

GO ?= go
BIN := bin/wasmcp
PLUGINS_DIR := build/plugins
TS_DIR := e2e/ts
# The official MCP conformance suite (e2e/conformance/README.md).
CONFORMANCE_DIR := e2e/conformance

# The Go guests live in modules of their own, apart from the server's, so
# that the server's go.mod lists only what the server links: plugins/ (the
# bundled tools), examples/go/ and the conformance suite's plugin. Every main
# package of the first two is one guest module, build/plugins/<directory
# name>.wasm. -e lists a package that does not compile, so that its build
# fails loudly instead of being left out.
GUEST_MODULES := plugins examples/go
GO_MODULES := abi sdk-guest/go $(GUEST_MODULES) e2e/conformance/plugin
GUEST_DIRS := $(foreach m,$(GUEST_MODULES),$(shell GOOS=wasip1 GOARCH=wasm $(GO) -C $(m) list -e \
	-f '{{if eq .Name "main"}}{{.Dir}}{{end}}' ./... 2>/dev/null))
GUEST_NAMES := $(notdir $(GUEST_DIRS))
GUESTS := $(patsubst %,$(PLUGINS_DIR)/%.wasm,$(GUEST_NAMES))
ifneq ($(words $(GUEST_NAMES)),$(words $(sort $(GUEST_NAMES))))
$(error two guest packages share a directory name, and so a .wasm name: $(sort $(GUEST_NAMES)))
endif

# Guests in other languages (mk/guests.mk: C, Rust, AssemblyScript, WAT) add
# themselves to plugins and deps. Their example modules define the same tools
# as examples/go, so they are built beside the served directory, not in it:
# serving them together would only log a name collision per tool.
GUEST_EXAMPLES_DIR := build/examples
include $(wildcard mk/*.mk)

# Sources each artifact depends on; go build's own cache does the rest.
HOST_SRC := $(shell find . -name '*.go' -not -name '*_test.go' -not -path './e2e/*' -not -path './bench/*' \
	-not -path './plugins/*' -not -path './examples/*' -not -path './sdk-guest/*' -not -path '*/node_modules/*') go.mod go.sum \
	$(shell find cmd/wasmcp/templates -type f 2>/dev/null)
# A guest's sources include what it embeds with //go:embed, such as a view's
# HTML (mk/views.mk).
GUEST_SRC := $(shell find abi sdk-guest plugins examples/go -not -path '*/node_modules/*' \
	\( -name '*.go' -not -name '*_test.go' -o -name '*.html' \) 2>/dev/null) \
	$(wildcard $(patsubst %,%/go.mod,$(GO_MODULES)) $(patsubst %,%/go.sum,$(GO_MODULES)))

# The end-to-end tests use these artifacts rather than building their own.
E2E_ENV := WASMCP_BIN=$(abspath $(BIN)) WASMCP_PLUGINS=$(abspath $(PLUGINS_DIR)) \
	WASMCP_EXAMPLES=$(abspath $(GUEST_EXAMPLES_DIR)) WASMCP_EXTISM=$(abspath $(EXTISM_DIR)) \
	WASMCP_CORPUS=$(CORPUS_DIRS) WASMCP_TEST_OUT=$(abspath build/test-output)
# CI reruns every test rather than trusting the test cache of the machine.
TEST_FLAGS ?= $(if $(filter true,$(CI)),-count=1)

.PHONY: all build plugins run run-stdio deps tools test vet clean help fuzz-smoke bench bench-smoke soak conformance testdata-check deploy-test

all: build plugins

help:
	@echo "make build    build $(BIN)"
	@echo "make plugins  build every guest module (Go: plugins/, examples/go/; others: mk/*.mk) into $(PLUGINS_DIR)/"
	@echo "make corpus   the modules the compile-cost estimate is tested against (mk/test-corpus.mk; part of make test)"
	@echo "             (and the Extism plugins of examples/extism into $(EXTISM_DIR)/)"
	@echo "make run      build both and serve $(PLUGINS_DIR) over Streamable HTTP at http://$(RUN_ADDR)/mcp"
	@echo "             (RUN_CONFIG=policy.json: with that policy, e.g. the origins fetch may reach)"
	@echo "make run-stdio  the same over stdio, for a client that starts the server itself"
	@echo "make deps     install what the tests need (wabt's wat2wasm, docker-registry, haproxy, chromium, the e2e npm packages:"
	@echo "             TypeScript SDK, Inspector, oidc-provider as the OAuth tests' authorization server)"
	@echo "make views    rebuild the MCP Apps views of the bundled plugins (plugins/jq/playground.html; needs npm)"
	@echo "make screenshot  the browser test, keeping its picture of the jq playground as docs/jq-playground.png"
	@echo "make test     deps, build, plugins, vet, race tests, end-to-end tests, conformance suite"
	@echo "make conformance  the official MCP conformance suite's tool scenarios against wasmcp serve --http"
	@echo "make fuzz-smoke  run every fuzz target for FUZZTIME (default 5s)"
	@echo "make bench    the benchmark table of BENCHMARKS.md (a few minutes; BENCH_FLAGS=\"-exp stdio -reps 5\")"
	@echo "make bench-smoke  the benchmark on token workloads and the short soak (part of make test)"
	@echo "make deploy-test  the Containerfile's build stage and the manifests of deploy/kubernetes (part of make test)"
	@echo "make soak     10,000 hostile tool calls; goroutines, heap and RSS before and after"
	@echo "make clean    remove bin/ and build/"

build: $(BIN)

$(BIN): $(HOST_SRC)
	@echo "  build    $@"
	@$(GO) build -o $@ ./cmd/wasmcp

plugins: $(GUESTS)
	@# Drop modules of guests that no longer exist, so that serve does not load them.
	@mkdir -p $(PLUGINS_DIR)
	@for f in $(PLUGINS_DIR)/*.wasm; do \
		[ -e "$$f" ] || continue; \
		case " $(GUESTS) " in *" $$f "*) ;; *) echo "  remove   $$f"; rm -f "$$f";; esac; \
	done

# module_of is the guest module holding the package directory $(1).
module_of = $(firstword $(foreach m,$(GUEST_MODULES),$(if $(filter $(abspath $(m))/%,$(1)),$(m))))

define guest_rule
$(PLUGINS_DIR)/$(notdir $(1)).wasm: $(GUEST_SRC)
	@mkdir -p $(PLUGINS_DIR)
	@echo "  wasm     $$@"
	@GOOS=wasip1 GOARCH=wasm $(GO) -C $(call module_of,$(1)) build -buildmode=c-shared -o $$(abspath $$@) $(1)
endef
$(foreach d,$(GUEST_DIRS),$(eval $(call guest_rule,$(d))))

# make run listens on loopback only, where serve needs no token; set RUN_ADDR
# to move it (a non-loopback address needs --token-file or --token-env).
RUN_ADDR ?= 127.0.0.1:8931
# RUN_CONFIG names a policy file for make run and run-stdio (README, "Network
# access"): without one, fetch reaches nothing.
RUN_CONFIG ?=
RUN_FLAGS := $(if $(RUN_CONFIG),--config $(RUN_CONFIG))

# The bundled modules' compiled code goes to the compilation cache (the user
# cache directory, as serve's default) once per build of a module, so that
# the servers of make run and of clients started by hand have it at once.
PRIMED := build/.primed
$(PRIMED): $(BIN) $(GUESTS)
	@echo "  cache    compiling $(PLUGINS_DIR) for the compilation cache"
	@for f in $(PLUGINS_DIR)/*.wasm; do $(BIN) inspect "$$f" >/dev/null || exit 1; done
	@touch $@

run: build plugins $(PRIMED)
	@echo "serving $(PLUGINS_DIR) at http://$(RUN_ADDR)/mcp (Streamable HTTP, this machine only; Ctrl-C stops)" >&2
	@echo "try it with the MCP Inspector 2.x (it needs Node 22.19+; README.md says how to get one from npm):" >&2
	@echo "  npx @modelcontextprotocol/inspector@2 --cli http://$(RUN_ADDR)/mcp --transport http --method tools/list" >&2
	@echo "  npx @modelcontextprotocol/inspector@2 --cli http://$(RUN_ADDR)/mcp --transport http --method tools/call --tool-name get-sum --tool-arg a=7 b=5" >&2
	@$(BIN) serve --dir $(PLUGINS_DIR) --http $(RUN_ADDR) $(RUN_FLAGS)

run-stdio: build plugins $(PRIMED)
	@echo "serving $(PLUGINS_DIR) over stdio: connect an MCP client to this process (Ctrl-C stops)" >&2
	@$(BIN) serve --dir $(PLUGINS_DIR) $(RUN_FLAGS)

deps: tools $(TS_DIR)/node_modules/.package-lock.json $(CONFORMANCE_DIR)/node_modules/.package-lock.json

# The Debian tools of the tests, as COMMAND:PACKAGE: wat2wasm assembles the
# WAT test guests; docker-registry is the CNCF distribution server
# (registry:2) the OCI tests push to and pull from on a loopback port;
# haproxy is the load balancer of the replica test (e2e/replicas_test.go),
# run with deploy/haproxy/haproxy.cfg; chromium is the headless browser the
# MCP Apps test (e2e/ts/app.test.mjs) renders the jq playground in.
TEST_TOOLS := wat2wasm:wabt docker-registry:docker-registry haproxy:haproxy chromium:chromium

# As root on Debian the missing ones are installed, with one apt-get update;
# anyone else is told what to install.
tools:
	@missing=""; \
	for t in $(TEST_TOOLS); do \
		command -v $${t%%:*} >/dev/null 2>&1 || missing="$$missing $${t#*:}"; \
	done; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
			echo "  install $$missing with apt-get (the tests' tools)"; \
			export DEBIAN_FRONTEND=noninteractive; \
			timeout 10m apt-get update -qq >/dev/null && timeout 15m apt-get install -y -qq $$missing >/dev/null; \
		else \
			echo "Missing the tests' tools. Install them, e.g. 'sudo apt-get install$$missing' on Debian/Ubuntu, then run make again." >&2; \
			exit 1; \
		fi; \
	fi
	@if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then \
		echo "node and npm not found. Install Node.js 20 or later with npm, then run make again." >&2; \
		exit 1; \
	fi

# npm ci installs exactly package-lock.json; node_modules/.package-lock.json is
# the stamp it leaves.
$(TS_DIR)/node_modules/.package-lock.json: $(TS_DIR)/package.json $(TS_DIR)/package-lock.json
	@echo "  npm ci   $(TS_DIR)"
	@cd $(TS_DIR) && timeout 10m npm ci --no-audit --no-fund --loglevel=error >/dev/null
	@touch $@

# The official MCP conformance suite's tool scenarios against wasmcp serve
# --http with the conformance plugin; npm ci brings the suite and, on Linux
# x64, the Node 22 it needs.
$(CONFORMANCE_DIR)/node_modules/.package-lock.json: $(CONFORMANCE_DIR)/package.json $(CONFORMANCE_DIR)/package-lock.json
	@echo "  npm ci   $(CONFORMANCE_DIR)"
	@cd $(CONFORMANCE_DIR) && timeout 10m npm ci --no-audit --no-fund --loglevel=error >/dev/null
	@touch $@

conformance: build $(CONFORMANCE_DIR)/node_modules/.package-lock.json
	@echo "  test     MCP conformance suite, tool scenarios"
	@WASMCP_BIN=$(abspath $(BIN)) GO=$(GO) $(CONFORMANCE_DIR)/run.sh

vet:
	@echo "  vet"
	@$(GO) vet ./...
	@GOOS=wasip1 GOARCH=wasm $(GO) vet ./sdk-guest/...
	@for m in $(GO_MODULES); do $(GO) -C $$m vet ./... && GOOS=wasip1 GOARCH=wasm $(GO) -C $$m vet ./... || exit 1; done

# Every stage of make test has a time limit of its own, well inside CI's,
# so that a hang fails naming its stage rather than the whole run; the
# limits leave room for a busy 2-core machine.
GO_TEST_TIMEOUT ?= 20m
STAGE_TIMEOUT ?= 15m
# timed LIMIT,NAME,COMMAND runs COMMAND under LIMIT and says so if it ran out.
timed = timeout --kill-after=30s $(1) $(3) || { rc=$$?; if [ $$rc -ge 124 ]; then \
	echo "make: $(2) ran out of its $(1) time limit" >&2; fi; exit $$rc; }

# The modules of the tests' testdata directories are committed beside their
# .wat, so that go test needs nothing but Go; go generate rebuilds them, and
# a module that is not the one its .wat gives fails the check.
testdata-check: tools
	@echo "  check    committed test modules match their .wat"
	@$(GO) generate ./host/... ./internal/...
	@if git rev-parse --is-inside-work-tree >/dev/null 2>&1 && \
		! { git diff --quiet -- '*.wasm' && [ -z "$$(git ls-files --others --exclude-standard -- '*.wasm')" ]; }; then \
		git status --short -- '*.wasm' >&2; \
		echo "committed test modules are stale or missing: run go generate ./host/... ./internal/... and commit them" >&2; exit 1; \
	fi

test: deps build plugins vet testdata-check views-check
	@echo "  test     go test -race ./..."
	@$(E2E_ENV) $(GO) test -race $(TEST_FLAGS) -timeout $(GO_TEST_TIMEOUT) ./...
	@for m in $(GO_MODULES); do \
		echo "  test     go test -race ./... in $$m"; \
		$(E2E_ENV) $(GO) -C $$m test -race $(TEST_FLAGS) -timeout $(STAGE_TIMEOUT) ./... || exit 1; \
	done
	@echo "  test     TypeScript SDK client, Inspector CLI, MCP Apps in Chromium (node --test)"
	@cd $(TS_DIR) && $(E2E_ENV) $(call timed,$(STAGE_TIMEOUT),the TypeScript tests,node --test --test-timeout=300000 --test-reporter=spec)
	@$(MAKE) bench-smoke
	@$(MAKE) deploy-test
	@$(call timed,$(STAGE_TIMEOUT),the conformance suite,$(MAKE) conformance)
	@$(call timed,$(STAGE_TIMEOUT),the fuzz smoke,$(MAKE) fuzz-smoke)

# Every fuzz target mutates its committed corpus for FUZZTIME (the corpus
# itself already ran with the unit tests). Longer: make fuzz-smoke FUZZTIME=5m.
FUZZTIME ?= 5s
fuzz-smoke:
	@FUZZTIME=$(FUZZTIME) GO=$(GO) scripts/fuzz-smoke.sh

# bench/ is its own module (bench/go.mod), so the root's go vet and go test
# leave it out. make test runs it only as a smoke: every experiment on a token
# workload (it checks the harness, not speed) and the soak's short version,
# each with an explicit -timeout; the smoke's own deadline comes a minute
# earlier, so that a hang fails with the bench's progress log.
BENCH_TIMEOUT ?= 5m
bench-smoke: build plugins
	@echo "  test     bench smoke and short soak (bench module)"
	@cd bench && $(GO) vet ./...
	@cd bench && $(E2E_ENV) $(GO) test $(TEST_FLAGS) -timeout $(BENCH_TIMEOUT) .
	@cd bench && $(GO) test -race $(TEST_FLAGS) -timeout $(BENCH_TIMEOUT) ./soak

# deploy/ is a module of its own too (deploy/go.mod), so that the product
# module carries no Kubernetes types. Its tests run the Containerfile's build
# stage on this machine's Go (no container runtime needed) and decode the
# manifests of deploy/kubernetes strictly, checking them against the binary.
# The first run compiles the static binary from scratch.
DEPLOY_TIMEOUT ?= 10m
deploy-test:
	@echo "  test     Containerfile build stage and Kubernetes manifests (deploy module)"
	@cd deploy && $(GO) vet ./...
	@cd deploy && $(GO) test $(TEST_FLAGS) -timeout $(DEPLOY_TIMEOUT) ./...

# The full benchmark: the table of BENCHMARKS.md on stdout, progress on
# stderr. BENCH_FLAGS passes flags, e.g. BENCH_FLAGS="-exp stdio,http -reps 5".
BENCH_FLAGS ?=
bench: build plugins
	@cd bench && $(E2E_ENV) $(GO) run . $(BENCH_FLAGS)

# The soak's short version (300 calls) runs in make bench-smoke as a unit test
# of bench/soak; this is the full run, with its figures printed.
soak:
	@cd bench && $(GO) run ./soak -n 10000

clean:
	@rm -rf bin build
