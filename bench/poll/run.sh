#!/usr/bin/env bash
# Measures the poller against the local Batch endpoint (internal/batchtest)
# with JOBS runnable jobs (default 100,000): time and Batch calls of a cold
# run (every job described once) and of a warm run (none described again),
# and checks every backlog metric written against the true counts.
# Usage: bench/poll/run.sh [JOBS]   (127.0.0.1 only; no AWS account)
set -euo pipefail
cd "$(dirname "$0")/../.."
echo "measured $(date -u +%F) with: bench/poll/run.sh ${1:-100000}"
go run ./bench/poll -jobs "${1:-100000}"
