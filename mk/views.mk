# mk/views.mk: the MCP Apps views of the bundled plugins.
#
# Included by the top-level Makefile. It hooks into `deps` (the views' npm
# packages) and defines:
#
#   views        rebuild plugins/jq/playground.html, the jq plugin's view, from
#                plugins/jq/view (index.html, main.js and the MCP Apps SDK,
#                bundled by esbuild)
#   views-check  fail when a committed view is not what `make views` writes
#                (part of make test)
#   screenshot   run the browser test (e2e/ts/app.test.mjs) and keep its
#                screenshot as docs/jq-playground.png, the README's
#
# A view is committed, and embedded in its plugin with //go:embed, so that
# `make plugins` and `go test` need Go alone; npm is needed only to change it.

VIEW_DIR := plugins/jq/view
VIEW := plugins/jq/playground.html
VIEW_STAMP := $(VIEW_DIR)/node_modules/.package-lock.json

deps: $(VIEW_STAMP)

.PHONY: views views-check screenshot

$(VIEW_STAMP): $(VIEW_DIR)/package.json $(VIEW_DIR)/package-lock.json
	@echo "  npm ci   $(VIEW_DIR)"
	@cd $(VIEW_DIR) && timeout 10m npm ci --no-audit --no-fund --loglevel=error >/dev/null
	@touch $@

views: $(VIEW_STAMP)
	@echo "  view     $(VIEW)"
	@timeout 2m node $(VIEW_DIR)/build.mjs >/dev/null

views-check: views
	@echo "  check    committed views match their sources"
	@if git rev-parse --is-inside-work-tree >/dev/null 2>&1 && ! git diff --quiet -- $(VIEW); then \
		git status --short -- $(VIEW) >&2; \
		echo "$(VIEW) is stale: run make views and commit it" >&2; exit 1; \
	fi

# CI=true makes the test fail rather than skip when chromium is missing, so
# that there is always a picture.
screenshot: tools $(BIN) $(PLUGINS_DIR)/jq.wasm $(TS_DIR)/node_modules/.package-lock.json
	@mkdir -p docs
	@cd $(TS_DIR) && CI=true $(E2E_ENV) WASMCP_SCREENSHOT=$(abspath docs/jq-playground.png) \
		timeout 5m node --test --test-reporter=spec app.test.mjs
	@echo "  wrote    docs/jq-playground.png"
