#!/usr/bin/env bash
# Assembles every *.wat of the given testdata directories into the .wasm
# beside it, with the source's names in a name section, as the tests
# expect. go generate runs it (see the //go:generate lines); make test runs
# go generate and fails if a committed module is not the one its .wat gives.
set -euo pipefail
if ! command -v wat2wasm >/dev/null 2>&1; then
	echo "wat2wasm not found: make deps installs it (Debian: apt-get install wabt)" >&2
	exit 1
fi
for dir in "$@"; do
	for wat in "$dir"/*.wat; do
		[[ -e $wat ]] || continue
		wat2wasm --debug-names "$wat" -o "${wat%.wat}.wasm"
	done
done
