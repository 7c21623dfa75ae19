#!/usr/bin/env bash
# Simulator throughput and memory on a 100,000-job generated trace (seed 7,
# embedded default platform), on one core (GOMAXPROCS=1).
#
#   bash bench/simulate/run.sh            # 3 runs per benchmark
#   COUNT=1 bash bench/simulate/run.sh    # quicker
#
# Prints simulated jobs per second (and per minute), allocations per run and,
# when /usr/bin/time exists (Debian package "time"), the peak resident memory
# of a process that generates the trace, streams it from CSV and simulates it.
set -euo pipefail
cd "$(dirname "$0")/../.."
count=${COUNT:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

go test -c -o "$tmp/simulate.test" ./simulate/
GOMAXPROCS=1 "$tmp/simulate.test" -test.run '^$' -test.bench '100k' -test.benchtime "${count}x" -test.benchmem >"$tmp/bench.txt"

printf '%-24s %12s %14s %12s %12s %10s\n' benchmark s/run jobs/s jobs/min MB/run allocs/run
awk '/^Benchmark/ {
  name=$1; sub(/-[0-9]+$/, "", name); sub(/^Benchmark/, "", name)
  for (i=2; i<=NF; i++) { if ($(i+1)=="ns/op") ns=$i; if ($(i+1)=="jobs/s") js=$i; if ($(i+1)=="B/op") bo=$i; if ($(i+1)=="allocs/op") al=$i }
  printf "%-24s %12.3f %14.0f %12.0f %12.1f %10d\n", name, ns/1e9, js, js*60, bo/1e6, al
}' "$tmp/bench.txt"

if [ -x /usr/bin/time ]; then
  GOMAXPROCS=1 /usr/bin/time -v "$tmp/simulate.test" -test.run '^$' -test.bench 'Quota100kCSV' -test.benchtime 1x \
    >/dev/null 2>"$tmp/time.txt"
  rss=$(awk -F: '/Maximum resident set size/ {gsub(/ /, "", $2); print $2}' "$tmp/time.txt")
  awk -v kb="$rss" 'BEGIN { printf "peak RSS (generate + stream + simulate 100k jobs, quota): %.1f MiB\n", kb / 1024 }'
else
  echo "peak RSS: /usr/bin/time not installed (apt-get install time); see heap-MiB in: go test -bench 100k ./simulate/"
fi
