#!/usr/bin/env bash
# The stalled-proxy reproduction (docs/reliability.md): a live rr-slow run
# whose lb is stopped (SIGSTOP) for a few seconds in the middle and then
# continued (SIGCONT). Requests in flight when it stopped must still be
# answered or failed by their own timeouts; none may be left for the drain
# limit to end (the `timed-out` outcome in the --out CSV), which is what a
# held-back answer that was never sent looked like.
#
# Usage: bench/sigstop.sh [RUNS] [SECONDS]   (default 20 runs of 12 s)
#   STOP_AT=5 STOP_FOR=3                     when and how long the lb stops
# Exit status: 0 when no run lost an answer, 1 otherwise.
set -Eeuo pipefail
cd "$(dirname "$0")/.."
runs=${1:-20} secs=${2:-12}
stop_at=${STOP_AT:-5} stop_for=${STOP_FOR:-3}
out=$(mktemp -d)
go build -o "$out/lab" ./cmd/lab
labpid=""
cleanup() { [[ -n $labpid ]] && kill -INT "$labpid" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$out"; }
trap cleanup EXIT INT TERM
lost_runs=0 lost_total=0
for i in $(seq "$runs"); do
  "$out/lab" run rr-slow --compare p2c --duration "${secs}s" --seed "$i" --json --dashboard "" \
    --out "$out/r.csv" >"$out/report.json" 2>"$out/lab.err" &
  labpid=$!
  sleep "$stop_at"
  lb=$(ps -o pid=,args= --ppid "$labpid" | awk '{for (i = 2; i <= NF; i++) if ($i == "lb") {print $1; exit}}' || true)
  if [[ -z $lb ]]; then echo "run $i: no lb process after ${stop_at}s"; cat "$out/lab.err"; exit 1; fi
  kill -STOP "$lb"; sleep "$stop_for"; kill -CONT "$lb"
  wait "$labpid" || { echo "run $i: lab run failed"; tail -5 "$out/lab.err"; exit 1; }
  labpid=""
  col=$(head -1 "$out/r.csv" | tr ',' '\n' | grep -n '^outcome$' | cut -d: -f1)
  total=$(($(wc -l <"$out/r.csv") - 1))
  lost=$(awk -F, -v c="$col" 'NR > 1 && $c == "timed-out"' "$out/r.csv" | wc -l)
  echo "run $i: $total requests, $lost ended only by the drain limit"
  if ((lost > 0)); then lost_runs=$((lost_runs + 1)) lost_total=$((lost_total + lost)); fi
done
echo "sigstop: $runs runs, $lost_runs lost answers ($lost_total requests)"
((lost_runs == 0))
