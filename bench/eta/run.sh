#!/usr/bin/env bash
# The start-estimate backtest (package etabench): replays examples/jobs.csv
# and a generated 20,000-job trace (trainq trace generate --seed 7, default
# load, embedded default platform) through the simulator, asks
# client.EstimateStart about sampled waiting jobs at a quarter of their wait
# with only what it could know then (the queue as the queue action answers
# it, capped at 100 jobs, and the 7 days of history before), and prints per
# estimator and class the median and p10/p90 of estimate/actual, the share
# within ±25% and ±50%, and how often each figure was earlier than reality.
# Then the cost of one estimate on a queue of 300 jobs (BenchmarkEstimate).
#
#   bash bench/eta/run.sh                 # 400 samples per trace, 100 runs each
#   SAMPLES=100 RUNS=50 bash bench/eta/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
samples=${SAMPLES:-400}
runs=${RUNS:-100}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -trimpath -o "$tmp/trainq" ./bin/trainq
go build -trimpath -o "$tmp/eta" ./bench/eta/cmd
"$tmp/trainq" trace generate --seed 7 --jobs 20000 --out "$tmp/generated-20000.csv"
for t in examples/jobs.csv "$tmp/generated-20000.csv"; do
  "$tmp/eta" --trace "$t" --samples "$samples" --runs "$runs" 2>/dev/null | sed "s|$tmp/||"
  echo
done
go test ./bench/eta -run '^$' -bench BenchmarkEstimate -benchmem -benchtime 5x
