#!/usr/bin/env bash
# Side by side, in one run on one box, with the same backend behind each and
# each proxy limited to one core: requests/s and added p50/p99 latency of lb vs
# HAProxy (nbthread 1) vs Go's net/http/httputil.ReverseProxy (GOMAXPROCS=1),
# measured with wrk -t1 -c32 and at one connection. Peers are installed from
# Debian when the script runs and never committed.
# Usage: bench/proxy.sh [seconds per measurement, default 10]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
need() { command -v "$1" >/dev/null || { apt-get update -qq && apt-get install -y -qq "$2" >/dev/null; }; }
need haproxy haproxy
need wrk wrk
mkdir -p bin
go build -o bin/ ./cmd/backend ./cmd/lb ./bench/httputil-proxy
tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT

bin/backend --lab bench/proxy-lab.yaml --name s1 --addr 127.0.0.1:19001 --admin 127.0.0.1:19101 >/dev/null 2>"$tmp/backend.log" & pids+=($!)
GOMAXPROCS=1 bin/lb --lab bench/proxy-lab.yaml --backends s1=127.0.0.1:19001 --addr 127.0.0.1:19002 --admin 127.0.0.1:19102 >/dev/null 2>"$tmp/lb.log" & pids+=($!)
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
haproxy -f "$tmp/haproxy.cfg" -db >"$tmp/haproxy.log" 2>&1 & pids+=($!)
GOMAXPROCS=1 bin/httputil-proxy --listen 127.0.0.1:19004 --backend http://127.0.0.1:19001 2>"$tmp/httputil.log" & pids+=($!)
sleep 2

# measure NAME PORT CONNS -> "rps p50_ms p99_ms"
measure() {
  wrk -t1 -c"$3" -d"${secs}s" --latency "http://127.0.0.1:$2/" >"$tmp/wrk.out" 2>&1
  awk '
    function ms(v) { if (v ~ /us$/) return v/1000; if (v ~ /ms$/) return v+0; if (v ~ /s$/) return v*1000; return v }
    /Requests\/sec/ { rps=$2 }
    $1=="50%" { p50=ms($2) }
    $1=="99%" { p99=ms($2) }
    /Non-2xx/ { bad=$NF }
    END { printf "%.0f %.3f %.3f %s\n", rps, p50, p99, (bad==""?0:bad) }' "$tmp/wrk.out"
}

printf "%-10s %-6s %12s %10s %10s %12s %12s %8s\n" proxy conns "requests/s" "p50 ms" "p99 ms" "added p50" "added p99" non-2xx
for c in 32 1; do
  read -r brps bp50 bp99 bbad < <(measure direct 19001 "$c")
  printf "%-10s %-6s %12s %10s %10s %12s %12s %8s\n" direct "$c" "$brps" "$bp50" "$bp99" - - "$bbad"
  for pair in lb:19002 haproxy:19003 httputil:19004; do
    name=${pair%%:*}; port=${pair##*:}
    read -r rps p50 p99 bad < <(measure "$name" "$port" "$c")
    printf "%-10s %-6s %12s %10s %10s %12.3f %12.3f %8s\n" "$name" "$c" "$rps" "$p50" "$p99" \
      "$(echo "$p50 - $bp50" | bc -l)" "$(echo "$p99 - $bp99" | bc -l)" "$bad"
  done
done
