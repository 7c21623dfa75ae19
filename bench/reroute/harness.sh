#!/usr/bin/env bash
# The re-router's fault harness over many seeds (reroute/harness_test.go):
# each seed a queue of 16 lineages on three types, 25 runs with faults
# (throttled, failed and lost answers, listings that lag behind creation,
# the function killed between any two calls) and with priority, tag, usage
# and start changes between runs, then runs without faults until nothing
# changes. It prints the figures: moves, seeds, duplicates, lineages lost,
# started jobs terminated, lineages with two live jobs at rest.
# go test runs 6 seeds (2 with -short); this runs as many as asked.
# Usage: bench/reroute/harness.sh [seeds (60)]
set -euo pipefail
cd "$(dirname "$0")/../.."
seeds=${1:-60}
TRAINQ_HARNESS_SEEDS=$seeds go test -count=1 -timeout 0 -run '^TestFaultHarness$' -v ./reroute/ 2>&1 |
	grep -a -E 'fault harness:|seed [0-9]+|^(--- |ok|FAIL)' | cut -c1-600
