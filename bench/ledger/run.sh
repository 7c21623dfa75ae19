#!/usr/bin/env bash
# The job ledger's benchmarks on a local DynamoDB (dynalite):
#   bench/ledger/run.sh            the write path, usage and export over JOBS
#                                  jobs (default 100,000), and the monthly cost
#                                  of a 1,000,000-job month from the calls
#                                  counted (main.go);
#   bench/ledger/run.sh roundtrip  a generated trace of JOBS jobs through the
#                                  simulator, Batch's events, the observer
#                                  under the Lambda Runtime Interface Emulator,
#                                  the ledger, and back by trace export and
#                                  usage (roundtrip/main.go); with
#                                  --emulated 1000000 every event of every
#                                  job goes through the emulator (the
#                                  example trace's with --trace
#                                  examples/jobs.csv).
set -euo pipefail
cd "$(dirname "$0")/../.."
date -u +"%Y-%m-%dT%H:%M:%SZ"
if [[ "${1:-}" == roundtrip ]]; then
	shift
	go run ./bench/ledger/roundtrip -jobs "${JOBS:-100000}" "$@"
else
	go run ./bench/ledger -jobs "${JOBS:-100000}" "$@"
fi
