#!/usr/bin/env bash
# Regenerates the per-kernel rows of docs/schedule.md's "Figures" tables from
# today's compiler: for each kernel spec (default: every built-in at its
# default parameters), the whole default pipeline's schedule report, and the
# same program scheduled by the seed's algorithm alone
# (time_aware_scheduler.orders=ddg). Usage:
#   bash scripts/schedule-table.sh [SPEC ...] [-- OPTION ...]
# e.g. bash scripts/schedule-table.sh attention:seq=1024 -- anti_dependency_analyzer.mode=logical
# Columns: kernel | instructions | makespan (us) | seed's algorithm (us) |
# lower bound (us) | gap | program order (us) | unlimited memory (us) |
# order kept | bound by.
set -euo pipefail
cd "$(dirname "$0")/.."
nw=$(mktemp -d)/narwhal
trap 'rm -rf "$(dirname "$nw")"' EXIT
go build -o "$nw" ./cmd/narwhal

specs=()
opts=()
seen_sep=0
for a in "$@"; do
  if [ "$a" = "--" ]; then seen_sep=1; continue; fi
  if [ $seen_sep = 1 ]; then opts+=(--option "$a"); else specs+=("$a"); fi
done
if [ ${#specs[@]} = 0 ]; then
  mapfile -t specs < <("$nw" kernels | awk '{print $1}')
fi

# The report of the first function's schedule (the kernel's main).
field() { # field REPORT REGEX: the first capture of the first matching line
  sed -n -E "s/$2/\1/p" <<<"$1" | head -1
}
for s in "${specs[@]}"; do
  out=$(dirname "$nw")/out.json
  if ! full=$("$nw" compile "builtin:$s" --report ${opts[@]+"${opts[@]}"} -o "$out" 2>&1); then
    echo "| $s | refused: $(grep -o 'error\[NW[0-9]*\]' <<<"$full" | head -1) |"
    continue
  fi
  rep=$(sed -n '/time_aware_scheduler: Schedule of function/,/reuse cost/p' <<<"$full")
  ddg=$("$nw" compile "builtin:$s" --report ${opts[@]+"${opts[@]}"} --option time_aware_scheduler.orders=ddg -o "$out" 2>&1 | sed -n '/time_aware_scheduler: Schedule of function/,/reuse cost/p')
  insts=$(field "$rep" '^  instructions ([0-9]+).*')
  mk=$(field "$rep" '^  makespan ([0-9.]+) us.*')
  mkddg=$(field "$ddg" '^  makespan ([0-9.]+) us.*')
  lb=$(field "$rep" '^  lower bound ([0-9.]+) us.*')
  by=$(sed -n -E 's/^  lower bound [0-9.]+ us, bound by (the )?([^(]*[^ (]).*/\2/p' <<<"$rep" | head -1)
  gap=$(field "$rep" '^  gap ([0-9.]+%).*')
  po=$(field "$rep" '^  program order ([0-9.]+) us.*')
  un=$(field "$rep" '.*reuse cost: makespan [0-9.]+ us with the allocation.s WAR\/WAW edges, ([0-9.]+) us with unlimited memory.*')
  kept=$(field "$rep" '^  linearized from the (.*) order.*')
  echo "| $s | $insts | $mk | $mkddg | $lb | $gap | $po | $un | $kept | $by |"
done
