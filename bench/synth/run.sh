#!/usr/bin/env bash
# Synth benchmark, in one run on one machine:
#
#  1. wall time to synthesize trainq's embedded default platform (bin/cdk: the
#     platform stack, cdk-nag's checks, the three functions from the function
#     cache) next to an empty CDK Go app, as CDK ships it (its built-in
#     CloudFormation validation on) and with that validation off, which is
#     how bin/cdk runs (see its doc);
#  2. the function cache: synthesizing a copy of the module (git archive HEAD,
#     so the working tree is never touched) with an empty cache, again
#     unchanged, after changing one function (bin/observer), and after
#     changing a package all three import (platform/), with what each built.
#
# Both programs are compiled first, so their compile time is not counted; Go's
# build cache is warm, so an "empty function cache" build compiles nothing but
# links the three functions (a machine with an empty Go build cache compiles
# their dependencies once, about a minute on 2 cores).
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
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", b-a}'; }
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

# 1. Warm: one untimed round of each fills jsii's package cache and the
# function cache.
CDK_OUTDIR="$work/out-warm" "$work/trainq-cdk" >/dev/null 2>&1
"$work/empty-cdk" "$work/out-warm-empty" >/dev/null 2>&1
declare -a tq empty empty_noval
for _ in $(seq 1 "$rounds"); do
  rm -rf "$work"/out-*
  t0=$(now); "$work/empty-cdk" "$work/out-empty" >/dev/null 2>&1
  t1=$(now); CDK_VALIDATION=false "$work/empty-cdk" "$work/out-empty2" >/dev/null 2>&1
  t2=$(now); CDK_OUTDIR="$work/out-tq" "$work/trainq-cdk" >/dev/null 2>&1
  t3=$(now)
  empty+=("$(elapsed "$t0" "$t1")"); empty_noval+=("$(elapsed "$t1" "$t2")"); tq+=("$(elapsed "$t2" "$t3")")
done
m_tq=$(median "${tq[@]}"); m_empty=$(median "${empty[@]}"); m_noval=$(median "${empty_noval[@]}")
printf 'rounds: %d (machine: %s cores, %s)\n\n' "$rounds" "$(nproc)" "$(go version | cut -d' ' -f3)"
printf '| program | median s | trainq / it |\n|---|---|---|\n'
printf '| empty CDK Go app (CDK defaults: built-in template validation on) | %.2f | %.2f |\n' "$m_empty" "$(awk -v a="$m_tq" -v b="$m_empty" 'BEGIN{print a/b}')"
printf '| empty CDK Go app, built-in validation off (CDK_VALIDATION=false) | %.2f | %.2f |\n' "$m_noval" "$(awk -v a="$m_tq" -v b="$m_noval" 'BEGIN{print a/b}')"
printf '| trainq default platform (bin/cdk: cdk-nag on, built-in validation off, functions cached) | %.2f | |\n\n' "$m_tq"

# 2. The function cache, on a copy of the committed module.
src="$work/src"
mkdir -p "$src"
git archive HEAD | tar -x -C "$src"
export TRAINQ_MODULE_DIR="$src" TRAINQ_FUNCTION_CACHE="$work/cache"
printf '| synthesis of a copy of the module | s | functions built |\n|---|---|---|\n'
step() {
  rm -rf "$work/out-step"
  t0=$(now)
  CDK_OUTDIR="$work/out-step" "$work/trainq-cdk" >/dev/null 2>"$work/log"
  t1=$(now)
  built=$(sed -n 's/^trainq: built \(.*\) in .*/\1/p' "$work/log" | sed 's|github.com/trainq/trainq/||g' | paste -sd ';' -)
  printf '| %s | %s | %s |\n' "$1" "$(elapsed "$t0" "$t1")" "${built:-none (all from the cache)}"
}
step "1: empty function cache"
step "2: nothing changed"
printf '\n// bench: a change to the observer only\n' >>"$src/bin/observer/main.go"
step "3: bin/observer/main.go changed"
step "4: nothing changed"
printf '\n// bench: a change to a package all three import\n' >>"$src/platform/names.go"
step "5: platform/names.go changed"
