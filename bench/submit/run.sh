#!/usr/bin/env bash
# Benchmarks of the submission function (issue 3, "Done when"):
#   1. cold start (init) of the bootstrap under the Lambda Runtime Interface
#      Emulator, next to a hello-world Go Lambda, in the same run;
#   2. per-request handler time, excluding the Batch calls;
#   3. binary size, built exactly as the CDK construct builds it;
#   4. submissions/second sustained against a local Batch endpoint that
#      allows 5 submissions a second.
# Everything runs on 127.0.0.1; no AWS account is used.
# Usage: bench/submit/run.sh [cold starts per function (10)] [tps seconds (30)] [tps workers (8)]
set -euo pipefail
cd "$(dirname "$0")/../.."
n=${1:-10}
seconds=${2:-30}
workers=${3:-8}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_REGION=us-east-1 AWS_EC2_METADATA_DISABLED=true

echo "| measure | value |"
echo "|---|---|"

# 1. Cold start.
go run ./bench/coldstart -function submitter -n "$n"

# 2. Handler time per request, Batch stubbed out (median of 5 runs).
go test ./submit -run '^$' -bench BenchmarkInvoke -benchmem -count 5 |
	awk '/^BenchmarkInvoke/ { split($1, p, "/"); name = p[2]; sub(/-[0-9]+$/, "", name); print name, $3, $7 }' |
	sort -k1,1 -k2,2n |
	awk '{ name[NR] = $1; ns[NR] = $2; al[NR] = $3; count[$1]++ }
	END { for (i = 1; i <= NR; i++) { if (name[i] != prev) { first = i; prev = name[i] }
		if (i - first == int((count[name[i]] - 1) / 2))
			printf "| handler time per request, %s (median of %d, Batch stubbed) | %.1f µs, %d allocs |\n", name[i], count[name[i]], ns[i] / 1000, al[i] } }'

# 3. Binary size, as the construct builds it (linux/arm64, stripped).
for pkg in bin/submitter bench/submit/hello; do
	CGO_ENABLED=0 GOOS=linux GOARCH=arm64 go build -trimpath -buildvcs=false -tags lambda.norpc -ldflags "-s -w" -o "$tmp/b" "./$pkg"
	bytes=$(stat -c %s "$tmp/b")
	zipped=$(gzip -9 -c "$tmp/b" | wc -c)
	awk -v p="$pkg" -v b="$bytes" -v z="$zipped" 'BEGIN { printf "| binary size, %s (linux/arm64) | %.1f MiB (%.1f MiB gzipped) |\n", p, b / 1048576, z / 1048576 }'
done

# 4. Sustained submissions per second against a 5/s limit.
go run ./bench/submit/tps -seconds "$seconds" -workers "$workers" -limit 5
