#!/usr/bin/env bash
# Runs every fuzz target of the module (every `func FuzzX` in a _test.go
# file) for at least EXECS executions each (default 1,000,000), one target
# after another, and prints a table of the executions each ran, with the
# time it took and whether it passed. A target that finds a failure writes
# the failing input under its package's testdata/fuzz/ (go test's own
# behaviour) and makes the script exit 1; so does a target that ran fewer
# executions than asked.
#
# Usage: bench/fuzz/run.sh [EXECS] [TARGET_REGEXP]
#   EXECS          executions per target (go test -fuzztime EXECSx)
#   TARGET_REGEXP  only targets whose name matches (grep -E), e.g. Security
# Environment: PARALLEL (fuzz workers, default: the number of CPUs);
# MINIMIZE (go test -fuzzminimizetime for new interesting inputs, default
# 1s: minimizing is not what the executions measure, and go's 60 s default
# would leave the engine minimizing rather than executing).
# Needs: go. Touches no network; writes only go's cache and testdata/fuzz.
set -euo pipefail
cd "$(dirname "$0")/../.."

EXECS=${1:-1000000}
FILTER=${2:-.}
PARALLEL=${PARALLEL:-$(getconf _NPROCESSORS_ONLN)}
MINIMIZE=${MINIMIZE:-1s}
LOGDIR=$(mktemp -d)
trap 'rm -rf "$LOGDIR"' EXIT

# package directory and target name of every fuzz target, skipping tool
# and dependency folders.
mapfile -t TARGETS < <(grep -rE --include='*_test.go' -l '^func Fuzz[A-Za-z0-9_]*\(' . \
	| grep -vE '/(\.tools|node_modules|vendor|cdk\.out)/' | sort \
	| while read -r file; do
		dir=$(dirname "$file")
		grep -oE '^func Fuzz[A-Za-z0-9_]*' "$file" | sed 's/^func //' | while read -r name; do
			echo "$dir $name"
		done
	done | grep -E " [^ ]*($FILTER)" || true)

if [[ ${#TARGETS[@]} -eq 0 ]]; then
	echo "no fuzz target matches $FILTER" >&2
	exit 1
fi

printf 'Fuzzing %d targets, %s executions each, %s workers (%s, %s)\n\n' \
	"${#TARGETS[@]}" "$EXECS" "$PARALLEL" "$(go version | cut -d' ' -f3)" "$(uname -m)"
printf '%-12s %-26s %14s %9s  %s\n' package target executions seconds result
failed=0
total=0
for t in "${TARGETS[@]}"; do
	dir=${t% *}
	name=${t#* }
	log="$LOGDIR/${dir//\//_}-$name.log"
	start=$(date +%s)
	# -timeout 0: go test's default 10 minutes would end a slow target.
	if go test -timeout 0 -run '^$' -fuzz "^${name}\$" -fuzztime "${EXECS}x" -fuzzminimizetime "$MINIMIZE" \
		-parallel "$PARALLEL" "$dir" >"$log" 2>&1; then
		result=PASS
	else
		result=FAIL
	fi
	secs=$(($(date +%s) - start))
	# The last progress line carries the executions the engine counted.
	execs=$(grep -oE 'execs: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+' || echo 0)
	if [[ $result == PASS && $execs -lt $EXECS ]]; then
		result="FAIL (fewer than $EXECS)"
	fi
	if [[ $result != PASS ]]; then
		failed=1
	fi
	total=$((total + execs))
	printf '%-12s %-26s %14s %9s  %s\n' "${dir#./}" "$name" "$execs" "$secs" "$result"
	if [[ $result != PASS ]]; then
		sed 's/^/    /' "$log" | tail -30
	fi
done
printf '\n%s executions in all\n' "$total"
exit $failed
