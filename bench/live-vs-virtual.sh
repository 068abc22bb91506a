#!/usr/bin/env bash
# Live agrees with virtual: run each scenario's compare in the simulator and
# on real processes (lab run) with the same lab file and seed, and print, per
# setting, p50, p99, goodput and the busiest server's share side by side,
# with the ranking by p99 and whether the goals hold (same ranking; p50 within
# 10% and p99 within 25% where no queue is saturated).
#
# With a lab that models connections (handshakes) it also prints the
# handshakes per request on both clocks and, live, the connections the
# backends accepted against the handshakes counted on the leg reaching them.
#
# Then, per scenario, which claims of its narration hold live: lab claims
# checks the live report (with its 250 ms series) against the same
# declarations the scenario tests check in virtual time (scenarios/stories.go);
# a claim on a figure only the simulator measures shows as unmeasured.
#
# Usage: bench/live-vs-virtual.sh [SCENARIO...] [-- LAB-FLAGS...]
#   no scenario: every built-in scenario that lab run can start (within its
#   process cap, 50 by default; the others are skipped); LAB-FLAGS (e.g.
#   --duration 10s) go to both lab sim and lab run.
# The machine should be otherwise idle: live latencies include its noise.
set -euo pipefail
cd "$(dirname "$0")/.."
scenarios=() flags=()
while (($#)); do
  if [[ $1 == -- ]]; then shift; flags=("$@"); break; fi
  scenarios+=("$1"); shift
done
go build -o bin/lab ./cmd/lab
if ((${#scenarios[@]} == 0)); then
  mapfile -t scenarios < <(bin/lab scenarios | awk '{print $1}')
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
echo "machine: $(nproc) cores, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%FT%TZ)"
for s in "${scenarios[@]}"; do
  if ! bin/lab run "$s" ${flags[@]+"${flags[@]}"} --dashboard "" --json --series --logs "$tmp/$s.log" \
      >"$tmp/$s.live.json" 2>"$tmp/$s.err"; then
    if grep -q "too many processes" "$tmp/$s.err"; then # refused before anything starts
      echo; echo "### $s: skipped: more servers than lab run starts (lab sim only)"; continue
    fi
    echo; echo "### $s: live run failed"; tail -5 "$tmp/$s.err"; continue
  fi
  bin/lab sim "$s" ${flags[@]+"${flags[@]}"} --json >"$tmp/$s.sim.json"
  python3 bench/live-vs-virtual.py "$s" "$tmp/$s.sim.json" "$tmp/$s.live.json"
  echo; echo "narration, live:"
  bin/lab claims "$s" "$tmp/$s.live.json" | sed 's/^/    /' || true # exit 1: a claim failed live, which is a finding, not an error
done
