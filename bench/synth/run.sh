#!/usr/bin/env bash
# Synth benchmark: wall time to synthesize trainq's embedded default platform
# (the platform stack with its three Go functions built, and cdk-nag's checks)
# next to an empty CDK Go app, synthesized in the same run on the same machine.
# Both programs are compiled first, so compile time is not counted; the Go
# build cache is warm for the functions' builds after the first round, which
# is what a developer re-running `cdk synth` sees.
#
# Usage: bench/synth/run.sh [ROUNDS]   (default 5)
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-5}
export JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION=20
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

go build -o "$work/trainq-cdk" ./bin/cdk
go build -o "$work/empty-cdk" ./bench/synth/emptyapp

now() { date +%s.%N; }
declare -a tq empty
# One untimed round of each warms jsii's package cache and the Go build cache.
CDK_OUTDIR="$work/out-warm" "$work/trainq-cdk" >/dev/null 2>&1
"$work/empty-cdk" "$work/out-warm-empty" >/dev/null 2>&1
for i in $(seq 1 "$rounds"); do
  rm -rf "$work/out"
  t0=$(now); "$work/empty-cdk" "$work/out-empty" >/dev/null 2>&1; t1=$(now)
  CDK_OUTDIR="$work/out" "$work/trainq-cdk" >/dev/null 2>&1; t2=$(now)
  empty+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')")
  tq+=("$(awk -v a="$t1" -v b="$t2" 'BEGIN{print b-a}')")
done

median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
m_tq=$(median "${tq[@]}")
m_empty=$(median "${empty[@]}")
printf 'rounds: %d (machine: %s cores, %s)\n' "$rounds" "$(nproc)" "$(go version | cut -d' ' -f3)"
printf '%-34s %10s\n' "program" "median s"
printf '%-34s %10.2f\n' "empty CDK Go app" "$m_empty"
printf '%-34s %10.2f\n' "trainq default platform" "$m_tq"
printf '%-34s %10.2f\n' "ratio trainq / empty" "$(awk -v a="$m_tq" -v b="$m_empty" 'BEGIN{print a/b}')"
