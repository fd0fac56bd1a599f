#!/usr/bin/env bash
# Runs every fuzz target of the module for a short while: FUZZTIME per
# target (default 10s; any value go test -fuzztime takes, such as 2m or
# 5000x). Each target's committed corpus, testdata/fuzz/<FuzzName>/, always
# runs with the ordinary tests; this also mutates it. A failing input is
# written to that directory by go test: commit it with the fix.
#
#   scripts/fuzz-smoke.sh               every target (the server's and abi's modules), 10s each
#   FUZZTIME=2m scripts/fuzz-smoke.sh   longer
#   scripts/fuzz-smoke.sh ./host/internal/plugin only the targets of some packages
set -euo pipefail

cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-10s}
go=${GO:-go}


log=$(mktemp)
trap 'rm -f "$log"' EXIT

# deadline_flake reports whether the go test output in $1 is the fuzz
# engine's own deadline race: "context deadline exceeded" and nothing a real
# finding prints.
deadline_flake() {
	grep -q '^    context deadline exceeded$' "$1" &&
		! grep -qE 'Failing input written|^panic:|_test\.go:[0-9]+:' "$1"
}

# The fuzz targets are the Fuzz functions of *_test.go files. go test -list
# would also find them, but it runs each test binary's TestMain.
# Without arguments: every package of the server's module and of the
# contract's (abi/ is a module of its own).
if (($# == 0)); then
	mapfile -t pkgs < <("$go" list -f '{{.Dir}}' ./... && "$go" -C abi list -f '{{.Dir}}' ./...)
else
	mapfile -t pkgs < <("$go" list -f '{{.Dir}}' "$@")
fi
failed=0 count=0
for dir in "${pkgs[@]}"; do
	names=$(cd "$dir" && grep -ho '^func Fuzz[A-Za-z0-9_]*(f \*testing\.F)' -- *_test.go 2>/dev/null |
		sed 's/^func \(Fuzz[A-Za-z0-9_]*\).*/\1/' | sort -u) || true
	for name in $names; do
		count=$((count + 1))
		echo "  fuzz     ${dir#"$PWD"/} $name ($fuzztime)"
		# Go before 1.27 can end a -fuzztime run with a bare "context
		# deadline exceeded" and no failing input (golang/go#75804: the
		# coordinator's deadline races a worker's shutdown). That case,
		# and only that, is run again once; a failing input, a panic or
		# any other error fails at once.
		for attempt in 1 2; do
			if (cd "$dir" && "$go" test -timeout 5m -run='^$' -fuzz="^${name}\$" -fuzztime="$fuzztime" .) >"$log" 2>&1; then
				cat "$log"
				break
			fi
			cat "$log"
			if ((attempt == 1)) && deadline_flake "$log"; then
				echo "  fuzz     ${dir#"$PWD"/} $name: the fuzz engine's deadline race (golang/go#75804), no failing input; once more"
				continue
			fi
			echo "FAIL     ${dir#"$PWD"/} $name" >&2
			failed=$((failed + 1))
			break
		done
	done
done
if ((count == 0)); then
	echo "no fuzz targets found" >&2
	exit 1
fi
if ((failed > 0)); then
	echo "$failed of $count fuzz targets failed" >&2
	exit 1
fi
echo "  fuzz     $count targets passed"
