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
#   SEED=2 SAMPLES_DIR=out bash bench/eta/run.sh   # other samples; each
#       sample to out/jobs-seed2.csv and out/generated-20000-seed2.csv, whose
#       union `go run ./bench/eta/cmd --report A.csv,B.csv` tabulates
set -euo pipefail
cd "$(dirname "$0")/../.."
samples=${SAMPLES:-400}
runs=${RUNS:-100}
seed=${SEED:-1}
dir=${SAMPLES_DIR:-}
[ -z "$dir" ] || mkdir -p "$dir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -trimpath -o "$tmp/trainq" ./bin/trainq
go build -trimpath -o "$tmp/eta" ./bench/eta/cmd
"$tmp/trainq" trace generate --seed 7 --jobs 20000 --out "$tmp/generated-20000.csv"
for t in examples/jobs.csv "$tmp/generated-20000.csv"; do
  csv=()
  [ -z "$dir" ] || csv=(--samples-csv "$dir/$(basename "$t" .csv)-seed$seed.csv")
  "$tmp/eta" --trace "$t" --samples "$samples" --runs "$runs" --seed "$seed" "${csv[@]}" 2>/dev/null | sed "s|$tmp/||"
  echo
done
go test ./bench/eta -run '^$' -bench 'BenchmarkEstimate|BenchmarkQueueEstimate' -benchmem -benchtime 5x
