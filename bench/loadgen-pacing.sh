#!/usr/bin/env bash
# The loadgen's achieved rate and pacing lateness (how far behind its intended
# time each request started: p50, p99, max) at 5,000 and 20,000 requests/s,
# sending straight to four backends that answer at once (client-side mode).
# Usage: bench/loadgen-pacing.sh [seconds, default 10]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
go build -o bin/ ./cmd/backend ./cmd/loadgen
tmp=$(mktemp -d); pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null; rm -rf "$tmp"' EXIT
servers=()
for i in 1 2 3 4; do
  bin/backend --lab bench/proxy-lab.yaml --name s1 --addr 127.0.0.1:1920$i --admin 127.0.0.1:1930$i >/dev/null 2>&1 & pids+=($!)
  servers+=("s$i=127.0.0.1:1920$i")
done
sleep 1
list=$(IFS=,; echo "${servers[*]}")
# achieved/s = requests / (duration + the worst lateness): the time it really
# took to start them all
# CPU per request: the loadgen's (user + system, from GNU time) and the four
# backends' together (from /proc), which share the box with it.
hz=$(getconf CLK_TCK)
backend_ticks() { local t=0; for p in "${pids[@]}"; do t=$(( t + $(awk '{print $14 + $15}' "/proc/$p/stat") )); done; echo "$t"; }
printf "%-10s %-13s %12s %12s %14s %14s %14s %8s %14s %14s\n" target max-inflight "achieved/s" requests "lateness p50" "lateness p99" "lateness max" late "loadgen us/req" "backends us/req"
# rate:cap pairs; the default cap (10000) first, then a cap that fits a fast
# target (20,000/s x a millisecond is 20 attempts out).
for pair in 5000:10000 20000:10000 20000:1000; do
  rate=${pair%%:*}; cap=${pair##*:}
  b0=$(backend_ticks)
  /usr/bin/time -f "%U %S" -o "$tmp/time" bin/loadgen --lab bench/proxy-lab.yaml --servers "$list" --rate "$rate" --max-inflight "$cap" --duration "${secs}s" --json >"$tmp/r.json" 2>"$tmp/err" || { cat "$tmp/err"; exit 1; }
  b1=$(backend_ticks)
  python3 - "$tmp/r.json" "$rate:$cap" "$secs" "$(cat "$tmp/time")" "$(( b1 - b0 ))" "$hz" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))["runs"][0]
p, secs = run["pacing"], float(sys.argv[3])
took = secs + p["lateness_max_ms"] / 1000
user, sys_ = map(float, sys.argv[4].split()[-2:])
n = run["requests"]
lg, be = (user + sys_) * 1e6 / n, int(sys.argv[5]) / int(sys.argv[6]) * 1e6 / n
rate, cap = sys.argv[2].split(":")
print(f"{rate:>10} {cap:>13} {n/took:12.0f} {n:12d} {p['lateness_p50_ms']:12.3f}ms {p['lateness_p99_ms']:12.3f}ms {p['lateness_max_ms']:12.3f}ms {p['late']:8d} {lg:14.1f} {be:14.1f}")
PY
done
