#!/usr/bin/env bash
# lblab's lb next to real proxies: run rr-slow and slow-server live through
# lb, HAProxy, nginx and Caddy (those installed; balancers.kind,
# docs/external.md) with the same seeded stream, and print per setting and
# balancer p50, p99, goodput and the slow server's share, with lab sim's
# prediction of the same setting (the SETTING@sim rows).
#
# Usage: bench/external.sh [-- LAB-FLAGS...]   (default: --duration 10s)
# Needs haproxy, nginx and caddy on PATH (apt-get install -y haproxy nginx
# caddy); a missing one is left out and named. The machine should be
# otherwise idle: live latencies include its noise.
set -euo pipefail
cd "$(dirname "$0")/.."
flags=(--duration 10s)
if [[ ${1:-} == -- ]]; then shift; flags=("$@"); fi
go build -o bin/lab ./cmd/lab
kinds=lb
for k in haproxy nginx caddy; do
  if command -v "$k" >/dev/null; then kinds+=",$k"; else echo "$k: not installed (apt-get install -y $k): left out"; fi
done
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
echo "machine: $(nproc) cores, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%FT%TZ)"
# scenario, the slow server's name
for pair in rr-slow:s2 slow-server:slow; do
  s=${pair%%:*} slow=${pair#*:}
  echo "bin/lab run $s --compare round-robin,least-outstanding,p2c --balancer $kinds ${flags[*]}"
  if ! bin/lab run "$s" --compare round-robin,least-outstanding,p2c --balancer "$kinds" "${flags[@]}" \
      --dashboard "" --json --logs "$tmp/$s.log" >"$tmp/$s.json" 2>"$tmp/$s.err"; then
    echo "### $s: live run failed"; tail -5 "$tmp/$s.err"; continue
  fi
  python3 - "$s" "$slow" "$tmp/$s.json" <<'PY'
import json, sys
name, slow, path = sys.argv[1:4]
runs = json.load(open(path))["runs"]
print(f"\n### {name} (slow server: {slow})\n")
print("| setting | balancer | p50 ms | p99 ms | goodput | share of " + slow + " |")
print("|---|---|---|---|---|---|")
for r in runs:
    setting, _, kind = r["name"].rpartition("@")
    share = next((s["share"] for s in r["servers"] if s["name"] == slow), 0)
    lat = r["latency_ms"]
    print(f"| {setting} | {kind} | {lat['p50']:.1f} | {lat['p99']:.1f} | {100 * r['goodput']:.1f}% | {100 * share:.1f}% |")
PY
  echo
done
