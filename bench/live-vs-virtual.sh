#!/usr/bin/env bash
# Live agrees with virtual: run a scenario's compare in the simulator and on
# real processes (lab run) with the same lab file and seed, and print p50 and
# p99 side by side with the ranking by p99.
# Usage: bench/live-vs-virtual.sh SCENARIO [--compare a,b,c] [--duration D]
set -euo pipefail
cd "$(dirname "$0")/.."
scenario=$1; shift
go build -o bin/lab ./cmd/lab
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
bin/lab sim "$scenario" "$@" --json >"$tmp/sim.json"
bin/lab run "$scenario" "$@" --json --logs "$tmp/processes.log" >"$tmp/live.json" 2>"$tmp/run.err" || { cat "$tmp/run.err"; exit 1; }
python3 - "$tmp/sim.json" "$tmp/live.json" <<'PY'
import json, sys
sim = {r["name"]: r for r in json.load(open(sys.argv[1]))["runs"]}
live = {r["name"]: r for r in json.load(open(sys.argv[2]))["runs"]}
rank = lambda runs: {n: i + 1 for i, n in enumerate(sorted(runs, key=lambda n: runs[n]["latency_ms"]["p99"]))}
rs, rl = rank(sim), rank(live)
print("| setting | p50 sim | p50 live | p50 diff | p99 sim | p99 live | rank sim | rank live |")
print("|---|---|---|---|---|---|---|---|")
for n in sorted(sim, key=lambda n: rs[n]):
    s, l = sim[n]["latency_ms"], live[n]["latency_ms"]
    d = 100 * (l["p50"] - s["p50"]) / s["p50"]
    print(f"| {n} | {s['p50']:.1f} ms | {l['p50']:.1f} ms | {d:+.0f}% | {s['p99']:.0f} ms | {l['p99']:.0f} ms | {rs[n]} | {rl[n]} |")
same = all(rs[n] == rl[n] for n in sim)
worst = max(abs(live[n]["latency_ms"]["p50"] - sim[n]["latency_ms"]["p50"]) / sim[n]["latency_ms"]["p50"] for n in sim)
print(f"\nsame ranking by p99: {'yes' if same else 'no'}; largest p50 difference: {100*worst:.0f}%")
PY
