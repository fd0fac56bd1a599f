# mk/guests.mk: guest SDKs and examples in C, Rust, AssemblyScript and WAT.
#
# Included by the top-level Makefile after PLUGINS_DIR and GUESTS are defined.
# It hooks into the top-level targets:
#
#   plugins           also builds the four example modules below
#   deps              also runs guest-toolchains (go test ./sdk-guest/... needs them)
#
# and defines:
#
#   guest-examples    $(GUEST_EXAMPLES_DIR)/examples-{c,rust,as,wat}.wasm
#   guest-toolchains  install the missing toolchains (as root: apt-get, npm ci),
#                     or stop with the list of packages to install
#   guest-test        each SDK's own tests, run directly (go test runs them too)

PLUGINS_DIR ?= build/plugins
# Where the example modules go. They define the same tools as
# examples/go/everything, so a server of PLUGINS_DIR serves those and logs a
# name collision for each of the others; examples/crosslang_test.go reads
# them from WASMCP_EXAMPLES (default: WASMCP_PLUGINS).
GUEST_EXAMPLES_DIR ?= $(PLUGINS_DIR)

CLANG ?= clang
WASI_SYSROOT ?= /usr
# Debian's rustc has the wasm32-wasi standard library; a rustup toolchain
# first in PATH usually does not, so these are called by path.
GUEST_CARGO ?= /usr/bin/cargo
GUEST_RUSTC ?= /usr/bin/rustc
WAT2WASM ?= wat2wasm
CARGO_REGISTRY := /usr/share/cargo/registry

C_SDK := sdk-guest/c
C_SDK_SRC := $(addprefix $(C_SDK)/,wasmcp.c read.c write.c http.c resources.c prompts.c uritemplate.c)
C_FLAGS := --target=wasm32-wasi -mexec-model=reactor --sysroot=$(WASI_SYSROOT) -Os -std=c11 \
	-Wall -Wextra -Werror -Wl,--strip-all

RUST_SDK := sdk-guest/rust
RUST_TARGET_DIR := $(abspath build/cargo)
RUST_ENV := RUSTC=$(GUEST_RUSTC) RUSTDOC=$(dir $(GUEST_RUSTC))rustdoc CARGO_TARGET_DIR=$(RUST_TARGET_DIR)

AS_SDK := sdk-guest/assemblyscript
AS_STAMP := $(AS_SDK)/node_modules/.package-lock.json
ASC := $(AS_SDK)/node_modules/.bin/asc

GUEST_EXAMPLES := $(addprefix $(GUEST_EXAMPLES_DIR)/examples-,c.wasm rust.wasm as.wasm wat.wasm)

# `make plugins` keeps only the modules listed in GUESTS.
ifeq ($(GUEST_EXAMPLES_DIR),$(PLUGINS_DIR))
GUESTS += $(GUEST_EXAMPLES)
endif
plugins: $(GUEST_EXAMPLES)
deps: guest-toolchains

.PHONY: guest-examples guest-toolchains guest-packages guest-test

guest-examples: $(GUEST_EXAMPLES)

$(GUEST_EXAMPLES_DIR)/examples-c.wasm: examples/c/examples.c $(C_SDK_SRC) $(C_SDK)/wasmcp.h $(C_SDK)/internal.h | guest-toolchains
	@mkdir -p $(@D)
	@echo "  wasm     $@"
	@$(CLANG) $(C_FLAGS) -I$(C_SDK) -o $@ examples/c/examples.c $(C_SDK_SRC)

RUST_SRC := $(wildcard $(RUST_SDK)/src/*.rs examples/rust/src/*.rs) \
	$(RUST_SDK)/Cargo.toml examples/rust/Cargo.toml examples/rust/Cargo.lock examples/rust/.cargo/config.toml

# The crate is a cdylib named wasmcp-examples, so cargo writes wasmcp_examples.wasm.
$(GUEST_EXAMPLES_DIR)/examples-rust.wasm: $(RUST_SRC) | guest-toolchains
	@mkdir -p $(@D)
	@echo "  wasm     $@"
	@cd examples/rust && $(RUST_ENV) $(GUEST_CARGO) build --release --offline --locked --quiet --target wasm32-wasi
	@cp $(RUST_TARGET_DIR)/wasm32-wasi/release/wasmcp_examples.wasm $@

$(GUEST_EXAMPLES_DIR)/examples-as.wasm: examples/assemblyscript/examples.ts $(wildcard $(AS_SDK)/assembly/*.ts $(AS_SDK)/lib/*.ts) \
		$(AS_SDK)/asconfig.json $(AS_STAMP) | guest-toolchains
	@mkdir -p $(@D)
	@echo "  wasm     $@"
	@$(ASC) $< --config $(AS_SDK)/asconfig.json -o $@

$(GUEST_EXAMPLES_DIR)/examples-wat.wasm: examples/wat/examples.wat | guest-toolchains
	@mkdir -p $(@D)
	@echo "  wasm     $@"
	@$(WAT2WASM) $< -o $@

# npm ci installs exactly package-lock.json; node_modules/.package-lock.json
# is the stamp it leaves.
$(AS_STAMP): $(AS_SDK)/package.json $(AS_SDK)/package-lock.json
	@echo "  npm ci   $(AS_SDK)"
	@cd $(AS_SDK) && timeout 10m npm ci --no-audit --no-fund --loglevel=error >/dev/null
	@touch $@

# Each check names the Debian package that satisfies it. The compiler
# runtime package carries clang's major version, known once clang is there,
# so it is checked in a second round.
define guest_missing
	missing=""; \
	command -v $(CLANG) >/dev/null 2>&1 || missing="$$missing clang"; \
	command -v wasm-ld >/dev/null 2>&1 || missing="$$missing lld"; \
	[ -e $(WASI_SYSROOT)/lib/wasm32-wasi/libc.a ] || missing="$$missing wasi-libc"; \
	if command -v $(CLANG) >/dev/null 2>&1; then \
		[ -e "$$($(CLANG) --target=wasm32-wasi -print-libgcc-file-name)" ] || \
			missing="$$missing libclang-rt-$$($(CLANG) -dumpversion | cut -d. -f1)-dev-wasm32"; \
	fi; \
	[ -x $(GUEST_RUSTC) ] || missing="$$missing rustc"; \
	[ -x $(GUEST_CARGO) ] || missing="$$missing cargo"; \
	if [ -x $(GUEST_RUSTC) ]; then \
		[ -d "$$($(GUEST_RUSTC) --print sysroot)/lib/rustlib/wasm32-wasi" ] || missing="$$missing libstd-rust-dev-wasm32"; \
	fi; \
	for crate in serde serde_derive serde_json; do \
		ls -d $(CARGO_REGISTRY)/$$crate-[0-9]* >/dev/null 2>&1 || missing="$$missing librust-$$(echo $$crate | tr _ -)-dev"; \
	done; \
	command -v $(WAT2WASM) >/dev/null 2>&1 || missing="$$missing wabt"
endef

# guest-toolchains is everything the guests need; guest-packages the system
# part of it, which npm ci needs first.
guest-toolchains: guest-packages $(AS_STAMP)

$(AS_STAMP): | guest-packages

guest-packages:
	@$(guest_missing); \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
			echo "  install $$missing (apt-get)"; \
			export DEBIAN_FRONTEND=noninteractive; \
			timeout 10m apt-get update -qq >/dev/null; \
			timeout 15m apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
			$(guest_missing); \
			if [ -n "$$missing" ]; then \
				echo "  install $$missing (apt-get)"; \
				timeout 15m apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
			fi; \
		else \
			echo "Guest toolchains missing. On Debian/Ubuntu run: sudo apt-get install$$missing" >&2; \
			echo "(or as root: make guest-toolchains), then run make again." >&2; \
			exit 1; \
		fi; \
	fi
	@if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then \
		echo "node and npm not found. Install Node.js 20 or later with npm, then run make again." >&2; \
		exit 1; \
	fi

guest-test: guest-toolchains
	@echo "  test     C SDK (native, sanitizers)"
	@mkdir -p build
	@for t in sdk_test http_test resources_test; do \
		$(CLANG) -std=c11 -Wall -Wextra -Werror -g -fsanitize=address,undefined -fno-sanitize-recover=all \
			-I$(C_SDK) -o build/c-$$t $(C_SDK)/sdktest/testdata/$$t.c $(C_SDK_SRC) -lm && ./build/c-$$t || exit 1; \
	done
	@echo "  test     Rust SDK and examples (cargo test)"
	@cd $(RUST_SDK) && $(RUST_ENV) $(GUEST_CARGO) test --offline --locked --quiet
	@cd examples/rust && $(RUST_ENV) $(GUEST_CARGO) test --offline --locked --quiet
	@echo "  test     AssemblyScript SDK (npm test)"
	@cd $(AS_SDK) && npm test --silent
