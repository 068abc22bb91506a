#!/usr/bin/env bash
# Record live, replay virtual: lab run --record writes a live run's request
# stream, lab sim --replay plays it through the same settings, and this prints
# both runs' requests, distinct keys and p50/p99 side by side (the goal: the
# same requests and keys, p50 within 10%), then the trace through round robin
# and p2c (the counterfactual: round robin's p99 far above p2c's).
#
# Usage: bench/record-replay.sh [SCENARIO] [SETTING]   (default: rr-slow p2c)
# The machine should be otherwise idle: live latencies include its noise.
set -euo pipefail
cd "$(dirname "$0")/.."
scenario=${1:-rr-slow} setting=${2:-p2c}
go build -o bin/lab ./cmd/lab
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
echo "machine: $(nproc) cores, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%FT%TZ)"
bin/lab run "$scenario" --compare "$setting" --record "$tmp/live.trace" --dashboard "" --json \
  --logs "$tmp/run.log" >"$tmp/live.json" 2>"$tmp/run.err" || { tail -5 "$tmp/run.err"; exit 1; }
bin/lab sim "$scenario" --compare "$setting" --replay "$tmp/live.trace" --record "$tmp/sim.trace" --json >"$tmp/sim.json"
bin/lab sim "$scenario" --compare round-robin,p2c --replay "$tmp/live.trace" --json >"$tmp/cf.json"
python3 - "$tmp" "$scenario" "$setting" <<'PY'
import json, sys
tmp, scenario, setting = sys.argv[1:]
def keys(path):
    with open(path) as f:
        next(f)
        return {json.loads(l)["seq"]: json.loads(l)["key"] for l in f}
live, sim = (json.load(open(f"{tmp}/{m}.json"))["runs"][0] for m in ("live", "sim"))
lk, sk = keys(f"{tmp}/live.trace"), keys(f"{tmp}/sim.trace")
print(f"\n{scenario}, setting {setting}: recorded live, replayed in lab sim")
print("| run | requests | distinct keys | p50 | p99 |\n|---|---|---|---|---|")
for name, r, k in (("live (lab run --record)", live, lk), ("replayed (lab sim --replay)", sim, sk)):
    print(f"| {name} | {r['requests']} | {len(set(k.values()))} | {r['latency_ms']['p50']:.1f} ms | {r['latency_ms']['p99']:.0f} ms |")
d = (sim["latency_ms"]["p50"] - live["latency_ms"]["p50"]) / live["latency_ms"]["p50"]
print(f"\nsame requests and keys: {lk == sk}; p50 diff {d:+.0%} (goal: within 10%)")
cf = {r["name"]: r for r in json.load(open(f"{tmp}/cf.json"))["runs"]}
print("the live trace through round-robin and p2c in lab sim: p99 " +
      ", ".join(f"{n} {r['latency_ms']['p99']:.0f} ms" for n, r in cf.items()))
PY
