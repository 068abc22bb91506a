#!/usr/bin/env bash
# The loadgen next to wrk, in one run on one box: one nginx worker answering
# a fixed 200 on 127.0.0.1, pinned to CPU 0; the load generator (wrk -t1, or
# the loadgen with GOMAXPROCS=1, every thread of it) pinned to CPU 1.
#
# Rows of each round (the order rotates from round to round):
#   wrk -t1 -cN            closed loop over N connections, for each N
#   loadgen closed N       the loadgen's closed loop: N users, no think time
#   loadgen open RATE[:CAP] the loadgen's open loop (Poisson arrivals at RATE),
#                          with the in-flight cap CAP (--max-inflight; default
#                          --connections, 256, times the one endpoint) and a 2 s drain
# Each row gives requests/s and the generator's CPU per request (user +
# system, from GNU time); the loadgen's rows give their ratio to wrk's at the
# same N in the same round, the open row its pacing lateness (p50/p99/max:
# how far behind its intended time each request started) from --json, and
# every loadgen row how long its threads waited for a CPU while ready to run
# (the report's generator.waited_for_cpu_s: another process on the pinned
# CPU, which makes a round's lateness spike).
# The loadgen runs with --plain (no X-Lab-* headers, no injected hop): it
# sends what wrk sends, a GET of /.
#
# Usage: bench/loadgen-wrk.sh [seconds per row, default 10] [rounds, default 2]
#        CONNS="1 32" OPEN="40000 40000:100" bench/loadgen-wrk.sh (the defaults;
#        an empty CONNS or OPEN leaves those rows out)
#        LOADGEN=/tmp/old/loadgen bench/loadgen-wrk.sh runs a given build
# Record with the shared lock: flock /tmp/lblab-bench.lock bench/loadgen-wrk.sh
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
rounds=${2:-2}
conns=(${CONNS-1 32}) # set but empty: no closed rows (CONNS="" OPEN="40000")
opens=(${OPEN-40000 40000:100}) # set but empty: no open rows
[ "$(nproc)" -ge 2 ] || { echo "needs 2 CPUs (nginx on one, the generator on the other)" >&2; exit 2; }
. bench/lib.sh
need wrk wrk
need nginx nginx-light
loadgen=${LOADGEN:-bin/loadgen} # LOADGEN=path runs that binary instead (A/B of two builds)
if [ -z "${LOADGEN:-}" ]; then mkdir -p bin; go build -o bin/ ./cmd/loadgen; fi
tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT
port=19051
mkdir -p "$tmp/nginx"
nginx_conf "$tmp/nginx" $port >"$tmp/nginx/nginx.conf"
taskset -c 0 nginx -p "$tmp/nginx" -c "$tmp/nginx/nginx.conf" -e "$tmp/nginx/error.log" >"$tmp/nginx.log" 2>&1 & pids+=($!)
sleep 1
kill -0 "${pids[0]}" 2>/dev/null || { echo "nginx did not start:" >&2; cat "$tmp/nginx.log" "$tmp/nginx/error.log" >&2; exit 1; }
url="http://127.0.0.1:$port/"
gen=(taskset -c 1)

lab() { # lab MODE USERS -> a lab file
  cat >"$tmp/lab-$1-$2.yaml" <<LAB
name: loadgen-wrk
network: {hop: 0s}
clients: {mode: $1, users: $2, think: 0s, work: {dist: constant, mean: 1ns}}
servers: [{count: 1}]
LAB
  echo "$tmp/lab-$1-$2.yaml"
}

# Each row prints: kind conns requests/s cpu_us_per_req [p50 p99 max late cpu_wait]
row_wrk() {
  "${gen[@]}" /usr/bin/time -f "%U %S" -o "$tmp/time" wrk -t1 -c"$1" -d"${secs}s" "$url" >"$tmp/wrk.out" 2>&1
  awk -v t="$(cat "$tmp/time")" -v secs="$secs" -v c="$1" '
    /Requests\/sec/ { rps=$2 } /Non-2xx/ { bad=$NF }
    END { split(t, a, " "); if (bad != "") { print "wrk non-2xx: " bad > "/dev/stderr" }
          printf "wrk %s %.0f %.1f\n", c, rps, (a[1]+a[2])*1e6/(rps*secs) }' "$tmp/wrk.out"
}
row_loadgen() { # row_loadgen closed N | row_loadgen open RATE[:CAP]
  local f extra=()
  if [ "$1" = closed ]; then
    f=$(lab closed "$2")
  else
    f=$(lab open 1); extra=(--rate "${2%%:*}" --drain 2s)
    [[ $2 == *:* ]] && extra+=(--max-inflight "${2##*:}")
  fi
  GOMAXPROCS=1 "${gen[@]}" /usr/bin/time -f "%U %S" -o "$tmp/time" "$loadgen" --lab "$f" --target "$url" --plain \
    --duration "${secs}s" --json "${extra[@]}" >"$tmp/r.json" 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
  python3 - "$tmp/r.json" "$1" "$2" "$secs" "$(cat "$tmp/time")" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))["runs"][0]
kind, n, secs = sys.argv[2], sys.argv[3], float(sys.argv[4])
user, sys_ = map(float, sys.argv[5].split()[-2:])
reqs = run["requests"]
bad = run["failed"]
if bad:
    print(f"loadgen {kind} {n}: {bad} of {reqs} requests failed", file=sys.stderr)
p = run["pacing"]
wait = run.get("load", {}).get("generator", {}).get("waited_for_cpu_s", 0)
# achieved: requests over the time it took to start them all
took = secs + (p["lateness_max_ms"] / 1000 if kind == "open" else 0)
print(f"loadgen-{kind} {n} {reqs/took:.0f} {(user+sys_)*1e6/reqs:.1f} {p['lateness_p50_ms']:.3f} {p['lateness_p99_ms']:.3f} {p['lateness_max_ms']:.3f} {p['late']} {wait*1000:.0f}ms")
PY
}

echo "# $(date -u +%FT%TZ) $(uptime | sed 's/.*load/load/'); ${secs}s per row, $rounds rounds; nginx on CPU 0, the generator on CPU 1"
rows="$tmp/rows"; : >"$rows"
jobs=()
for c in "${conns[@]}"; do jobs+=("wrk:$c" "closed:$c"); done
for o in "${opens[@]}"; do jobs+=("open:$o"); done
printf "%-5s %-14s %7s %11s %9s %8s %8s %10s %10s %10s %8s %9s\n" round generator conns "requests/s" "x wrk" "us/req" "x wrk" "late p50" "late p99" "late max" ">10ms" "cpu wait"
for r in $(seq 1 "$rounds"); do
  k=$(( (r - 1) % ${#jobs[@]} )); order=("${jobs[@]:$k}" "${jobs[@]:0:$k}")
  for j in "${order[@]}"; do
    kind=${j%%:*}; n=${j#*:}
    if [ "$kind" = wrk ]; then row_wrk "$n"; else row_loadgen "$kind" "$n"; fi | sed "s/^/$r /" >>"$rows"
  done
  # this round's rows, with ratios to wrk at the same connection count
  awk -v r="$r" '$1==r { n++; k[n]=$2; c[n]=$3; rps[n]=$4; cpu[n]=$5; rest[n]=$6" "$7" "$8" "$9" "$10; if ($2=="wrk") { wr[$3]=$4; wc[$3]=$5 } }
    END { for (i=1;i<=n;i++) { xr="-"; xc="-"
            if (k[i]=="loadgen-closed" && c[i] in wr) { xr=sprintf("%.2f", rps[i]/wr[c[i]]); xc=sprintf("%.2f", cpu[i]/wc[c[i]]) }
            if (k[i]=="loadgen-open") { m=""; for (x in wc) if (m=="" || x+0<m+0) m=x; if (m!="") xc=sprintf("%.2f", cpu[i]/wc[m]) }
            split(rest[i], p, " ")
            printf "%-5s %-14s %7s %11s %9s %8s %8s %10s %10s %10s %8s %9s\n", r, k[i], c[i], rps[i], xr, cpu[i], xc,
              (p[1]==""?"-":p[1]"ms"), (p[2]==""?"-":p[2]"ms"), (p[3]==""?"-":p[3]"ms"), (p[4]==""?"-":p[4]), (p[5]==""?"-":p[5]) } }' "$rows"
done
echo "# open rows: conns is the target rate[:in-flight cap], requests/s what was achieved (requests over the run plus the worst lateness);"
echo "# their CPU ratio is to wrk at the fewest connections (each request on its own, as in an open loop below saturation)"
