#!/usr/bin/env bash
# Measures the trainq observer function:
#   1. its per-event handling time: go test -bench BenchmarkObserverEvent;
#   2. its cold start under the AWS Lambda Runtime Interface Emulator (RIE),
#      next to a hello-world Go Lambda built the same way: for each cold run a
#      fresh RIE on 127.0.0.1 starts the bootstrap on the first invocation;
#      the script reports the RIE's INIT duration, the first (cold)
#      invocation's round trip, and the median of the warm ones.
#
# Usage: bench/observe/run.sh [COLD_RUNS]   (default 7; WARM=20 warm invokes per run)
# Needs: go, curl. Listens only on 127.0.0.1 and stops what it starts.
set -euo pipefail
cd "$(dirname "$0")/../.."

COLD_RUNS=${1:-7}
WARM=${WARM:-20}
WORK=$(mktemp -d)
RIE_PID=""

cleanup() {
	if [[ -n "$RIE_PID" ]]; then
		kill "$RIE_PID" 2>/dev/null || true
		wait "$RIE_PID" 2>/dev/null || true
	fi
	rm -rf "$WORK"
}
trap cleanup EXIT

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
free_port() {
	local p
	for p in $(seq "$1" $(($1 + 200))); do
		if port_free "$p"; then echo "$p"; return; fi
	done
	echo "no free port from $1" >&2
	exit 1
}

median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else printf "%.3f\n", (a[NR/2]+a[NR/2+1])/2}'; }

echo "== per-event handling time (go test -bench BenchmarkObserverEvent -benchmem, one event per op)"
go test -run '^$' -bench BenchmarkObserverEvent -benchmem -count 1 ./observe/ | grep -E '^(Benchmark|cpu|goos|goarch)'

echo
echo "== building the RIE and the two functions (host architecture, Lambda build flags)"
go build -o "$WORK/aws-lambda-rie" github.com/aws/aws-lambda-runtime-interface-emulator/cmd/aws-lambda-rie
for fn in observer hello; do
	mkdir -p "$WORK/$fn"
	pkg=./bin/observer
	[[ $fn == hello ]] && pkg=./bench/observe/hello
	CGO_ENABLED=0 go build -trimpath -buildvcs=false -tags lambda.norpc -ldflags "-s -w" -o "$WORK/$fn/bootstrap" "$pkg"
	printf '  %-9s bootstrap %s bytes\n' "$fn" "$(stat -c %s "$WORK/$fn/bootstrap")"
done
go run ./bench/observe/platformjson >"$WORK/observer/platform.json"

EVENT=observe/testdata/events/running.json
URL_PATH=/2015-03-31/functions/function/invocations

# run_fn NAME: COLD_RUNS fresh RIEs, one cold and WARM warm invocations each.
run_fn() {
	local fn=$1 i j port api cold init ready
	: >"$WORK/$fn.cold" && : >"$WORK/$fn.init" && : >"$WORK/$fn.warm"
	for i in $(seq "$COLD_RUNS"); do
		port=$(free_port 19280)
		api=$(free_port $((port + 1)))
		LAMBDA_TASK_ROOT="$WORK/$fn" TRAINQ_JOB_QUEUE=arn:aws:batch:us-east-1:123456789012:job-queue/trainq-training \
			"$WORK/aws-lambda-rie" --runtime-interface-emulator-address "127.0.0.1:$port" \
			--runtime-api-address "127.0.0.1:$api" "$WORK/$fn/bootstrap" >"$WORK/$fn.log" 2>&1 &
		RIE_PID=$!
		ready=0
		for j in $(seq 200); do
			if ! port_free "$port"; then ready=1; break; fi
			sleep 0.025
		done
		if [[ $ready -ne 1 ]]; then
			echo "RIE did not listen on 127.0.0.1:$port" >&2
			cat "$WORK/$fn.log" >&2
			exit 1
		fi
		cold=$(curl -sS -o "$WORK/out" -w '%{time_total}' -XPOST "http://127.0.0.1:$port$URL_PATH" --data-binary @"$EVENT")
		echo "$cold * 1000" | bc -l >>"$WORK/$fn.cold"
		for j in $(seq "$WARM"); do
			curl -sS -o "$WORK/out" -w '%{time_total}\n' -XPOST "http://127.0.0.1:$port$URL_PATH" --data-binary @"$EVENT" |
				awk '{printf "%.3f\n", $1 * 1000}' >>"$WORK/$fn.warm"
		done
		kill "$RIE_PID"
		wait "$RIE_PID" 2>/dev/null || true
		RIE_PID=""
		sed -n 's/.*INIT REPORT(durationMs: \([0-9.]*\)).*/\1/p' "$WORK/$fn.log" >>"$WORK/$fn.init"
		if grep -q '"errorType"' "$WORK/out"; then
			echo "$fn answered an error: $(cat "$WORK/out")" >&2
			exit 1
		fi
	done
	printf '  %-9s init %7.1f ms   cold invoke %7.1f ms   warm invoke %6.2f ms   (medians of %d cold runs, %d warm invokes)\n' \
		"$fn" "$(median <"$WORK/$fn.init")" "$(median <"$WORK/$fn.cold")" "$(median <"$WORK/$fn.warm")" \
		"$COLD_RUNS" "$((COLD_RUNS * WARM))"
}

echo
echo "== cold start under the RIE (event: $EVENT)"
run_fn hello
run_fn observer
grep -q '"JobsStarted"' "$WORK/observer.log" || { echo "the observer wrote no EMF line" >&2; exit 1; }
echo "  the observer's last EMF line: $(grep '"_aws"' "$WORK/observer.log" | tail -1 | cut -c1-160)..."
