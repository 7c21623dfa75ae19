#!/usr/bin/env bash
# Benchmarks of the re-router (issue 14, "Done when"):
#   1. cold start (init) of the bootstrap under the Lambda Runtime Interface
#      Emulator, next to a hello-world Go Lambda, in the same run;
#   2. time per run with 1,000 runnable jobs against the local Batch
#      endpoint (BenchmarkRun: nothing to move, and 120 moves);
#   3. binary size, built exactly as the CDK construct builds a function.
# Everything runs on 127.0.0.1; no AWS account is used.
# Usage: bench/reroute/run.sh [cold starts per function (10)] [runs per benchmark (10)]
set -euo pipefail
cd "$(dirname "$0")/../.."
n=${1:-10}
runs=${2:-10}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_REGION=us-east-1 AWS_EC2_METADATA_DISABLED=true

echo "| measure | value |"
echo "|---|---|"

# 1. Cold start.
go run ./bench/coldstart -function rerouter -n "$n"

# 2. Time per run, 1,000 runnable jobs (median of 5 benchmark runs of $runs runs each).
go test ./bench/reroute -run '^$' -bench BenchmarkRun -benchmem -benchtime "${runs}x" -count 5 |
	awk '/^BenchmarkRun/ { n = split($1, p, "/"); name = p[2] "/" p[3]; sub(/-[0-9]+$/, "", name); print name, $3, $5, $7 }' |
	sort -k1,1 -k2,2n |
	awk '{ name[NR] = $1; ns[NR] = $2; by[NR] = $3; al[NR] = $4; count[$1]++ }
	END { for (i = 1; i <= NR; i++) { if (name[i] != prev) { first = i; prev = name[i] }
		if (i - first == int((count[name[i]] - 1) / 2))
			printf "| time per run, BenchmarkRun/%s (median of %d) | %.0f ms, %.0f MB allocated |\n", name[i], count[name[i]], ns[i] / 1e6, by[i] / 1e6 } }'

# 3. Binary size, as the construct builds it (linux/arm64, stripped).
for pkg in bin/rerouter bench/submit/hello; do
	CGO_ENABLED=0 GOOS=linux GOARCH=arm64 go build -trimpath -buildvcs=false -tags lambda.norpc -ldflags "-s -w" -o "$tmp/b" "./$pkg"
	bytes=$(stat -c %s "$tmp/b")
	zipped=$(gzip -9 -c "$tmp/b" | wc -c)
	awk -v p="$pkg" -v b="$bytes" -v z="$zipped" 'BEGIN { printf "| binary size, %s (linux/arm64) | %.1f MiB (%.1f MiB gzipped) |\n", p, b / 1048576, z / 1048576 }'
done
