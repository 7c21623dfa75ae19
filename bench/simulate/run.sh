#!/usr/bin/env bash
# Simulator throughput and memory, end to end through the CLI, on one core
# (GOMAXPROCS=1): `trainq simulate --output json` on generated traces of
# 100,000 and 1,000,000 jobs (seed 7, default load, embedded default
# platform), which runs the platform policy and FIFO. For each size it prints
# the wall and CPU seconds (each the best of COUNT runs), trace jobs per
# minute by each, the peak resident memory, and the 1M/100k ratios.
#
# LOAD=x generates the traces at offered load x instead of the default
# (e.g. LOAD=0.9, where FIFO never drains and the backlog grows).
#
# PLATFORM=FILE simulates (and generates the traces for) that platform
# instead of the embedded default, e.g. bench/simulate/reroute.yaml (the
# default with research and sweep re-routed between the two types).
#
# When OLD names a git revision (default: 2404aad, the simulator before issue
# 13), that revision's CLI is built from `git archive` and measured on the
# same trace files in the same run. OLD= (empty) skips it.
#
#   bash bench/simulate/run.sh
#   COUNT=1 OLD= bash bench/simulate/run.sh
#   LOAD=0.9 bash bench/simulate/run.sh
#   PLATFORM=bench/simulate/reroute.yaml OLD= bash bench/simulate/run.sh
#
# Needs /usr/bin/time (Debian package "time") for the peak RSS.
set -euo pipefail
cd "$(dirname "$0")/../.."
count=${COUNT:-3}
old=${OLD-2404aad}
load=()
if [ -n "${LOAD:-}" ]; then load=(--load "$LOAD"); fi
plat=()
if [ -n "${PLATFORM:-}" ]; then plat=(--platform "$PWD/$PLATFORM"); fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ ! -x /usr/bin/time ]; then
  echo "bench/simulate: /usr/bin/time is needed for the peak RSS (apt-get install time)" >&2
  exit 1
fi

go build -trimpath -o "$tmp/new" ./bin/trainq
engines=(new)
if [ -n "$old" ]; then
  mkdir "$tmp/src"
  git archive "$old" | tar -x -C "$tmp/src"
  (cd "$tmp/src" && go build -trimpath -o "$tmp/old" ./bin/trainq)
  engines+=(old)
fi

for n in 100000 1000000; do
  "$tmp/new" trace generate --seed 7 --jobs "$n" "${load[@]}" "${plat[@]}" --out "$tmp/trace-$n.csv"
done

# measure ENGINE N: the best wall seconds, the best CPU (user + system)
# seconds and the largest peak RSS (KiB) of COUNT runs. On a shared machine
# the CPU seconds are the steadier figure.
measure() {
  local wall="" cpu="" rss=0
  for _ in $(seq "$count"); do
    GOMAXPROCS=1 /usr/bin/time -f '%e %U %S %M' -o "$tmp/time" \
      "$tmp/$1" simulate --trace "$tmp/trace-$2.csv" "${plat[@]}" --output json --no-progress >/dev/null
    read -r e u s kb <"$tmp/time"
    c=$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')
    if [ -z "$wall" ] || awk -v a="$e" -v b="$wall" 'BEGIN { exit !(a < b) }'; then wall=$e; fi
    if [ -z "$cpu" ] || awk -v a="$c" -v b="$cpu" 'BEGIN { exit !(a < b) }'; then cpu=$c; fi
    if [ "$kb" -gt "$rss" ]; then rss=$kb; fi
  done
  echo "$wall $cpu $rss"
}

printf '%-6s %9s %8s %8s %14s %14s %12s\n' engine jobs 'wall s' 'CPU s' 'jobs/min wall' 'jobs/min CPU' 'peak RSS MiB'
for e in "${engines[@]}"; do
  declare -A walls cpus kib
  for n in 100000 1000000; do
    read -r w c kb < <(measure "$e" "$n")
    walls[$n]=$w cpus[$n]=$c kib[$n]=$kb
    awk -v e="$e" -v n="$n" -v w="$w" -v c="$c" -v kb="$kb" \
      'BEGIN { printf "%-6s %9d %8.2f %8.2f %14.0f %14.0f %12.1f\n", e, n, w, c, n / (w > 0 ? w : 0.01) * 60, n / (c > 0 ? c : 0.01) * 60, kb / 1024 }'
  done
  awk -v e="$e" -v a="${walls[100000]}" -v b="${walls[1000000]}" -v ca="${cpus[100000]}" -v cb="${cpus[1000000]}" \
    -v ra="${kib[100000]}" -v rb="${kib[1000000]}" \
    'BEGIN { printf "%-6s 1M/100k: wall x%.1f, CPU x%.1f, peak RSS x%.2f\n", e, b / (a > 0 ? a : 0.01), cb / (ca > 0 ? ca : 0.01), rb / ra }'
  unset walls cpus kib
done
