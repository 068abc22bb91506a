#!/usr/bin/env bash
# Side by side, in one run on one box, with the same backend behind each and
# each proxy limited to one core: requests/s and added p50/p99 latency of lb vs
# HAProxy (nbthread 1) vs Go's net/http/httputil.ReverseProxy (GOMAXPROCS=1),
# measured with wrk -t1 -c32 and at one connection. Peers are installed from
# Debian when the script runs and never committed.
# Usage: bench/proxy.sh [seconds per measurement, default 10] [rounds, default 3]
# BASE_LB=path adds a row "base": another build of lb (an earlier commit) set
# up as lb is and measured in the same rounds, to compare before and after
# in one sitting.
#
# BACKEND=nginx (the default) puts one nginx worker answering a fixed 200
# behind every proxy: it costs about half what lblab's emulated backend does
# per request, so the load side (wrk and the backend, on CPU 0 when pinned)
# can keep even the fastest proxy's core busy and the proxies, not the
# backend, set the rates. BACKEND=lblab puts bin/backend (bench/proxy-lab.yaml:
# 1 ns of work, no hop delay) there instead.
#
# PIN=1 (the default on a machine with 2 or more CPUs) enforces "one core per
# proxy" with taskset: every proxy, all its threads, runs on the last CPU and
# nothing else does; wrk and the backend share CPU 0. GOMAXPROCS=1 alone does
# not limit a Go proxy to a core: its threads in system calls (and the
# kernel's network work they cause) spill onto the other CPUs, where they
# compete with wrk and the backend. The direct row is then what CPU 0 alone
# can feed a proxy.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
rounds=${2:-3}
ncpu=$(nproc)
pin=${PIN:-$([ "$ncpu" -ge 2 ] && echo 1 || echo 0)}
on_proxy=(); on_load=()
if [ "$pin" = 1 ]; then
  on_proxy=(taskset -c "$((ncpu - 1))"); on_load=(taskset -c 0)
fi
echo "PIN=$pin: proxies on ${on_proxy[*]:-any CPU}, wrk and the backend on ${on_load[*]:-any CPU}"
. bench/lib.sh
need haproxy haproxy
need wrk wrk
backend=${BACKEND:-nginx}
case $backend in
  nginx) need nginx nginx-light ;;
  lblab) ;;
  *) echo "BACKEND must be nginx or lblab, not $backend" >&2; exit 2 ;;
esac
echo "backend: $backend"
mkdir -p bin
go build -o bin/ ./cmd/backend ./cmd/lb ./bench/httputil-proxy
tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT

if [ "$backend" = nginx ]; then
  # One process (no master), so its pid is the one that serves and is charged.
  mkdir -p "$tmp/nginx"
  nginx_conf "$tmp/nginx" 19001 >"$tmp/nginx/nginx.conf"
  "${on_load[@]}" nginx -p "$tmp/nginx" -c "$tmp/nginx/nginx.conf" -e "$tmp/nginx/error.log" >"$tmp/backend.log" 2>&1 & pids+=($!)
else
  "${on_load[@]}" bin/backend --lab bench/proxy-lab.yaml --name s1 --addr 127.0.0.1:19001 --admin 127.0.0.1:19101 >/dev/null 2>"$tmp/backend.log" & pids+=($!)
fi
GOMAXPROCS=1 "${on_proxy[@]}" bin/lb --lab bench/proxy-lab.yaml --backends s1=127.0.0.1:19001 --addr 127.0.0.1:19002 --admin 127.0.0.1:19102 >/dev/null 2>"$tmp/lb.log" & pids+=($!)
cat >"$tmp/haproxy.cfg" <<CFG
global
  nbthread 1
  maxconn 4096
defaults
  mode http
  timeout connect 5s
  timeout client 30s
  timeout server 30s
  http-reuse always
frontend f
  bind 127.0.0.1:19003
  default_backend b
backend b
  server s1 127.0.0.1:19001 maxconn 1024
CFG
"${on_proxy[@]}" haproxy -f "$tmp/haproxy.cfg" -db >"$tmp/haproxy.log" 2>&1 & pids+=($!)
GOMAXPROCS=1 "${on_proxy[@]}" bin/httputil-proxy --listen 127.0.0.1:19004 --backend http://127.0.0.1:19001 2>"$tmp/httputil.log" & pids+=($!)
names=(lb haproxy httputil)
if [ -n "${BASE_LB:-}" ]; then
  GOMAXPROCS=1 "${on_proxy[@]}" "$BASE_LB" --lab bench/proxy-lab.yaml --backends s1=127.0.0.1:19001 --addr 127.0.0.1:19005 --admin 127.0.0.1:19105 >/dev/null 2>"$tmp/base.log" & pids+=($!)
  names+=(base)
fi
sleep 2
for p in "${pids[@]}"; do
  kill -0 "$p" 2>/dev/null || { echo "a process did not start (a port in use?):" >&2; tail -n 3 "$tmp"/*.log >&2; exit 1; }
done

# The process whose CPU each row charges: the proxy, or the backend for direct.
declare -A pidof=([direct]=${pids[0]} [lb]=${pids[1]} [haproxy]=${pids[2]} [httputil]=${pids[3]} [base]=${pids[4]:-})
declare -A portof=([direct]=19001 [lb]=19002 [haproxy]=19003 [httputil]=19004 [base]=19005)

# Each round measures direct, lb, HAProxy and httputil once (in a rotating
# order, so no proxy always goes first); the summary takes each one's median
# over the rounds, and the ratios are of medians from the same sitting.
rows="$tmp/rows.tsv"; : >"$rows"
printf "%-6s %-6s %-10s %12s %10s %10s %8s %10s\n" round conns proxy "requests/s" "p50 ms" "p99 ms" non-2xx "CPU us/req"
for c in 32 1; do
  for r in $(seq 1 "$rounds"); do
    k=$(( (r - 1) % ${#names[@]} )); proxies=("${names[@]:$k}" "${names[@]:0:$k}")
    for name in direct "${proxies[@]}"; do
      port=${portof[$name]}
      read -r rps p50 p99 bad cpu < <(measure "$name" "$port" "$c")
      printf "%-6s %-6s %-10s %12s %10s %10s %8s %10s\n" "$r" "$c" "$name" "$rps" "$p50" "$p99" "$bad" "$cpu"
      printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\n" "$c" "$r" "$name" "$rps" "$p50" "$p99" "$cpu" >>"$rows"
    done
  done
done
python3 - "$rows" <<'PY'
import sys, statistics as st
rows = [l.split("\t") for l in open(sys.argv[1]).read().splitlines()]
print("\nmedians over the rounds (added = proxy minus direct, same round; CPU = the proxy's,")
print("or the backend's for direct, per request):")
print(f"{'conns':<6} {'proxy':<10} {'requests/s':>11} {'added p50 ms':>13} {'added p99 ms':>13} {'CPU us/req':>11} {'x HAProxy':>10} {'x httputil':>11}")
for c in ("32", "1"):
    by = {}
    for cc, r, name, rps, p50, p99, cpu in rows:
        if cc == c:
            by.setdefault(name, {})[r] = (float(rps), float(p50), float(p99), float(cpu))
    med = {n: st.median(v[0] for v in d.values()) for n, d in by.items()}
    for n in [n for n in ("direct", "lb", "haproxy", "httputil", "base") if n in by]:
        d = by[n]
        a50 = st.median(d[r][1] - by["direct"][r][1] for r in d) if n != "direct" else 0
        a99 = st.median(d[r][2] - by["direct"][r][2] for r in d) if n != "direct" else 0
        cpu = st.median(v[3] for v in d.values())
        print(f"{c:<6} {n:<10} {med[n]:>11.0f} {a50:>13.3f} {a99:>13.3f} {cpu:>11.1f} {med[n]/med['haproxy']:>10.2f} {med[n]/med['httputil']:>11.2f}")
PY
