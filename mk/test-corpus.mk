# mk/test-corpus.mk: the modules the compile-cost estimate is checked against
# (TestCompileCostOfCorpus in host/internal/sandbox/internal/bounds),
# beside the guests of build/plugins, build/examples and build/extism:
#
#   $(CORPUS_DIR)   the C examples at -O0 and -O2, the Rust examples'
#                   debug build, and tree-sitter's JavaScript parser (C from
#                   npm: a lexer of one switch of thousands of cases) at -O0
#                   and -O2
#   $(CORPUS_NPM)   third-party modules published on npm, as their authors'
#                   toolchains built them (e2e/corpus/package.json)
#
# Included after guests.mk, whose toolchain and sources it uses. It hooks
# into `deps` (npm ci) and `test`, and defines `corpus`.

CORPUS_DIR := build/corpus
CORPUS_NPM := e2e/corpus
CORPUS_NPM_STAMP := $(CORPUS_NPM)/node_modules/.package-lock.json
TREE_SITTER_JS := $(CORPUS_NPM)/node_modules/tree-sitter-javascript/src
CORPUS := $(addprefix $(CORPUS_DIR)/,examples-c-O0.wasm examples-c-O2.wasm examples-rust-debug.wasm \
	tree-sitter-javascript-O0.wasm tree-sitter-javascript-O2.wasm)
# The directories the test reads, the guests' included.
CORPUS_DIRS = $(abspath $(CORPUS_DIR)):$(abspath $(CORPUS_NPM)/node_modules):$(abspath $(PLUGINS_DIR)):$(abspath \
	$(GUEST_EXAMPLES_DIR)):$(abspath $(EXTISM_DIR))
CORPUS_C_FLAGS := --target=wasm32-wasi -mexec-model=reactor --sysroot=$(WASI_SYSROOT) -Wl,--strip-all

deps: $(CORPUS_NPM_STAMP)
test: corpus

.PHONY: corpus
corpus: $(CORPUS) $(CORPUS_NPM_STAMP)

$(CORPUS_DIR)/examples-c-%.wasm: examples/c/examples.c $(C_SDK_SRC) $(C_SDK)/wasmcp.h $(C_SDK)/internal.h | guest-toolchains
	@mkdir -p $(@D)
	@echo "  wasm     $@"
	@$(CLANG) $(CORPUS_C_FLAGS) -$* -std=c11 -I$(C_SDK) -o $@ examples/c/examples.c $(C_SDK_SRC)

$(CORPUS_DIR)/tree-sitter-javascript-%.wasm: $(CORPUS_NPM_STAMP) | guest-toolchains
	@mkdir -p $(@D)
	@echo "  wasm     $@"
	@$(CLANG) $(CORPUS_C_FLAGS) -$* -I$(TREE_SITTER_JS) -Wl,--export=tree_sitter_javascript -o $@ \
		$(TREE_SITTER_JS)/parser.c $(TREE_SITTER_JS)/scanner.c

# The debug profile, as `cargo build` leaves it, debug information included.
$(CORPUS_DIR)/examples-rust-debug.wasm: $(RUST_SRC) | guest-toolchains
	@mkdir -p $(@D)
	@echo "  wasm     $@"
	@cd examples/rust && $(RUST_ENV) $(GUEST_CARGO) build --offline --locked --quiet --target wasm32-wasi
	@cp $(RUST_TARGET_DIR)/wasm32-wasi/debug/wasmcp_examples.wasm $@

# npm ci installs exactly package-lock.json; node_modules/.package-lock.json
# is the stamp it leaves. The tree-sitter grammars' install scripts build
# Node bindings the corpus does not need.
$(CORPUS_NPM_STAMP): $(CORPUS_NPM)/package.json $(CORPUS_NPM)/package-lock.json
	@echo "  npm ci   $(CORPUS_NPM)"
	@cd $(CORPUS_NPM) && timeout 10m npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null
	@touch $@
