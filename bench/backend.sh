#!/usr/bin/env bash
# What lblab's emulated backend costs per request next to nginx answering a
# fixed 200, in one run on one box: requests/s and the server's own CPU time
# (user + system, from /proc) per request, at 32 connections and at one.
#
# The backend runs bench/proxy-lab.yaml (1 ns of work, no hop delay, 10,000
# workers: the server model runs for every request, queue, worker and
# completion, but never waits), with GOMAXPROCS=1; nginx runs one worker
# process (no master). PIN=1 (the default on a machine with 2 or more CPUs)
# pins each server to the last CPU and wrk -t1 to CPU 0, so each server has
# one core of its own and the load generator another.
#
# Each round measures every server once, in an order that rotates from
# round to round; the summary takes medians over the rounds and the ratio
# backend / nginx of medians from the same sitting.
# Usage: bench/backend.sh [seconds per measurement, default 10] [rounds, default 3]
# BACKEND_BIN=path measures another build of the backend (default: bin/backend, built here).
# BASE_BIN=path adds a third row, "base": another build measured in the same
# rounds (an earlier commit, to compare before and after in one sitting).
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
rounds=${2:-3}
ncpu=$(nproc)
pin=${PIN:-$([ "$ncpu" -ge 2 ] && echo 1 || echo 0)}
on_server=(); on_load=()
if [ "$pin" = 1 ]; then
  on_server=(taskset -c "$((ncpu - 1))"); on_load=(taskset -c 0)
fi
echo "PIN=$pin: servers on ${on_server[*]:-any CPU}, wrk on ${on_load[*]:-any CPU}"
. bench/lib.sh
need wrk wrk
need nginx nginx-light
bin=${BACKEND_BIN:-}
if [ -z "$bin" ]; then
  mkdir -p bin
  go build -o bin/ ./cmd/backend
  bin=bin/backend
fi
tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT

mkdir -p "$tmp/nginx"
nginx_conf "$tmp/nginx" 19301 >"$tmp/nginx/nginx.conf"
"${on_server[@]}" nginx -p "$tmp/nginx" -c "$tmp/nginx/nginx.conf" -e "$tmp/nginx/error.log" >"$tmp/nginx.log" 2>&1 & pids+=($!)
GOMAXPROCS=1 "${on_server[@]}" "$bin" --lab bench/proxy-lab.yaml --name s1 --addr 127.0.0.1:19302 --admin 127.0.0.1:19312 >/dev/null 2>"$tmp/backend.log" & pids+=($!)
servers=(nginx backend)
if [ -n "${BASE_BIN:-}" ]; then
  GOMAXPROCS=1 "${on_server[@]}" "$BASE_BIN" --lab bench/proxy-lab.yaml --name s1 --addr 127.0.0.1:19303 --admin 127.0.0.1:19313 >/dev/null 2>"$tmp/base.log" & pids+=($!)
  servers+=(base)
fi
sleep 2
for p in "${pids[@]}"; do
  kill -0 "$p" 2>/dev/null || { echo "a server did not start (a port in use?):" >&2; tail -n 3 "$tmp"/*.log >&2; exit 1; }
done
declare -A pidof=([nginx]=${pids[0]} [backend]=${pids[1]} [base]=${pids[2]:-})
declare -A portof=([nginx]=19301 [backend]=19302 [base]=19303)

rows="$tmp/rows.tsv"; : >"$rows"
printf "%-6s %-6s %-8s %12s %10s %10s %8s %10s\n" round conns server "requests/s" "p50 ms" "p99 ms" non-2xx "CPU us/req"
for c in 32 1; do
  for r in $(seq 1 "$rounds"); do
    k=$(( (r - 1) % ${#servers[@]} )); order=("${servers[@]:$k}" "${servers[@]:0:$k}")
    for name in "${order[@]}"; do
      read -r rps p50 p99 bad cpu < <(measure "$name" "${portof[$name]}" "$c")
      printf "%-6s %-6s %-8s %12s %10s %10s %8s %10s\n" "$r" "$c" "$name" "$rps" "$p50" "$p99" "$bad" "$cpu"
      printf "%s\t%s\t%s\t%s\t%s\n" "$c" "$r" "$name" "$rps" "$cpu" >>"$rows"
    done
  done
done
python3 - "$rows" <<'PY'
import sys, statistics as st
rows = [l.split("\t") for l in open(sys.argv[1]).read().splitlines()]
print("\nmedians over the rounds (CPU = the server's own, per request; ratios backend / nginx):")
print(f"{'conns':<6} {'server':<8} {'requests/s':>11} {'CPU us/req':>11} {'CPU x nginx':>12} {'rate x nginx':>13}")
names = [n for n in ("nginx", "backend", "base") if any(r[2] == n for r in rows)]
for c in ("32", "1"):
    med = {}
    for n in names:
        vs = [(float(rps), float(cpu)) for cc, r, name, rps, cpu in rows if cc == c and name == n]
        med[n] = (st.median(v[0] for v in vs), st.median(v[1] for v in vs))
    for n in names:
        print(f"{c:<6} {n:<8} {med[n][0]:>11.0f} {med[n][1]:>11.1f} {med[n][1]/med['nginx'][1]:>12.2f} {med[n][0]/med['nginx'][0]:>13.2f}")
PY
