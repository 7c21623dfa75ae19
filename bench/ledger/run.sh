#!/usr/bin/env bash
# The job ledger's benchmark on a local DynamoDB (dynalite): the write path,
# usage and export over JOBS jobs (default 100,000), and the monthly cost of
# a 1,000,000-job month from the calls counted. See main.go.
set -euo pipefail
cd "$(dirname "$0")/../.."
date -u +"%Y-%m-%dT%H:%M:%SZ"
go run ./bench/ledger -jobs "${JOBS:-100000}" "$@"
