#!/usr/bin/env bash
# How late the live processes' injected waits end, with the precise scheduler
# (internal/shell/pace: a deadline heap and a timerfd) and with Go's own
# timers (LBLAB_WAITS=runtime, the peer), in one run on one box.
#
# For each rate (default 100, 1,000 and 5,000 requests/s) and each mechanism
# it starts four backends, one lb and the loadgen on bench/timing-lab.yaml
# (constant 10 ms work, 5 ms hops, 4 servers x 64 workers: no queueing, so
# lab sim gives exactly 30.0 ms) and prints:
#   - each kind of wait's lateness, p50 / p99 / max in microseconds, as the
#     processes log it at shutdown ("wait lateness"): the loadgen's client
#     hop and its loop timer (pacing: arrivals, think times, backoffs,
#     hedges, deadlines), the lb's hops, the backends' service timer (job
#     ends, GC pauses) and held answers (a backend's line is the worst of
#     the four);
#   - for the precise runs, the loadgen's and the lb's spinning: the lead
#     they settled on, the time spent, how often the budget ran out and how
#     often they fell behind and used Go's timers (internal/shell/pace);
#   - the loadgen's own start lateness of its requests (report "pacing");
#   - the requests' latency p50 / p99 live, next to lab sim's;
#   - the CPU every process used (user + system, from /proc or GNU time) per
#     request, in microseconds.
# Usage: bench/timing.sh [seconds per run, default 10] [rates, default "100 1000 5000"]
# The machine should be otherwise idle: every figure includes its noise.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
rates=${2:-100 1000 5000}
mkdir -p bin
go build -o bin/ ./cmd/backend ./cmd/lb ./cmd/loadgen ./cmd/lab
tmp=$(mktemp -d); pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT
hz=$(getconf CLK_TCK)
echo "machine: $(nproc) cores, $(uname -r), $(uptime | sed 's/.*load/load/'); $(date -u +%FT%TZ)"

# ready FILE: waits for the LBLAB-READY line in FILE and prints its addr.
ready() {
  for _ in $(seq 100); do
    if line=$(grep -m1 '^LBLAB-READY ' "$1" 2>/dev/null); then
      python3 -c 'import json,sys; print(json.loads(sys.argv[1].split(" ",1)[1])["addr"])' "$line"; return
    fi
    sleep 0.1
  done
  echo "no readiness line in $1" >&2; exit 1
}
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# one RATE WAITS: a run; leaves $tmp/RATE.WAITS.{json,time,*.err,cpu}.
one() {
  local rate=$1 waits=$2 out=$tmp/$1.$2 lab=$tmp/$1.yaml env=() servers=() procs=()
  [ "$waits" = runtime ] && env=(LBLAB_WAITS=runtime)
  for i in 1 2 3 4; do
    env "${env[@]}" bin/backend --lab "$lab" --name "s$i" >"$out.s$i.out" 2>"$out.s$i.err" & pids+=($!); procs+=($!)
  done
  for i in 1 2 3 4; do servers+=("s$i=$(ready "$out.s$i.out")"); done
  env "${env[@]}" bin/lb --lab "$lab" --backends "$(IFS=,; echo "${servers[*]}")" >"$out.lb.out" 2>"$out.lb.err" & pids+=($!); procs+=($!)
  local lbaddr; lbaddr=$(ready "$out.lb.out")
  sleep 0.5
  local t0=() t1=() p i
  for p in "${procs[@]}"; do t0+=("$(ticks "$p")"); done
  env "${env[@]}" /usr/bin/time -f "%U %S" -o "$out.time" bin/loadgen --lab "$lab" --target "http://$lbaddr/" \
    --duration "${secs}s" --json --log-waits >"$out.json" 2>"$out.lg.err" || { cat "$out.lg.err"; exit 1; }
  for p in "${procs[@]}"; do t1+=("$(ticks "$p")"); done
  local be=0; for i in 0 1 2 3; do be=$((be + t1[i] - t0[i])); done
  echo "$hz $be $(( t1[4] - t0[4] ))" >"$out.cpu" # clock ticks/s, the backends', the lb's
  for p in "${procs[@]}"; do kill -TERM "$p"; done
  for p in "${procs[@]}"; do wait "$p" || true; done
  pids=()
}

for rate in $rates; do
  sed "s/^  rate: 1000$/  rate: $rate/" bench/timing-lab.yaml >"$tmp/$rate.yaml" # the same lab at this rate
  bin/lab sim "$tmp/$rate.yaml" --duration "${secs}s" --json >"$tmp/$rate.sim.json"
  for waits in precise runtime; do one "$rate" "$waits"; done
done

python3 - "$tmp" "$rates" <<'PY'
import json, sys, glob
tmp, rates = sys.argv[1], sys.argv[2].split()

def line(path):
    """The "wait lateness" line a process logged at shutdown."""
    for l in open(path):
        if '"wait lateness"' in l:
            return json.loads(l)
    return {}

def lateness(path):
    d = line(path)
    return d.get("waits"), {l["kind"]: l for l in d.get("lateness") or []}

def worst(paths, kind):
    rows = [lateness(p)[1].get(kind) for p in paths]
    rows = [r for r in rows if r]
    if not rows:
        return None
    return {"count": sum(r["count"] for r in rows), "p50_us": max(r["p50_us"] for r in rows),
            "p99_us": max(r["p99_us"] for r in rows), "max_us": max(r["max_us"] for r in rows)}

def fmt(r):
    return "%8s %8s %8s %8s" % ("-", "-", "-", "-") if r is None else \
        "%8d %8.0f %8.0f %8.0f" % (r["count"], r["p50_us"], r["p99_us"], r["max_us"])

print()
print("wait lateness, microseconds (backends: the worst of the four)")
print("%6s %-8s %-18s %8s %8s %8s %8s" % ("rate", "waits", "wait", "count", "p50", "p99", "max"))
summary = []
for rate in rates:
    for waits in ("precise", "runtime"):
        b = f"{tmp}/{rate}.{waits}"
        got, _ = lateness(f"{b}.lb.err")
        if got != waits:
            sys.exit(f"{b}: the processes ran with {got} waits, not {waits}")
        rows = [("loadgen hop", worst([f"{b}.lg.err"], "hop")),
                ("loadgen pacing", worst([f"{b}.lg.err"], "pacing")),
                ("lb hop", worst([f"{b}.lb.err"], "hop")),
                ("backend service", worst(glob.glob(f"{b}.s?.err"), "service")),
                ("backend answer", worst(glob.glob(f"{b}.s?.err"), "answer"))]
        for name, r in rows:
            print("%6s %-8s %-18s %s" % (rate, waits, name, fmt(r)))
        if waits == "precise":  # the spinning and the fallback (internal/shell/pace)
            procs = [("loadgen", line(f"{b}.lg.err")), ("lb", line(f"{b}.lb.err"))]
            print("%6s %-8s %s" % (rate, waits, "   spin: " + ", ".join(
                "%s lead %.0fus spun %.0fms, budget spent %d, fell behind %d" % (
                    n, d["lead_us"], d["spun_ms"], d["budget_spent"], d["fell_behind"]) for n, d in procs)))
        run = json.load(open(f"{b}.json"))["runs"][0]
        p = run["pacing"]
        print("%6s %-8s %-18s %8d %8.0f %8.0f %8.0f" % (rate, waits, "request starts", run["requests"],
              p["lateness_p50_ms"] * 1e3, p["lateness_p99_ms"] * 1e3, p["lateness_max_ms"] * 1e3))
        user, sys_ = map(float, open(f"{b}.time").read().split()[-2:])
        hz, be, lb = map(int, open(f"{b}.cpu").read().split())
        n = run["requests"]
        p99 = max(r["p99_us"] for _, r in rows if r)
        summary.append((rate, waits, run, p99, (user + sys_) * 1e6 / n, lb / hz * 1e6 / n, be / hz * 1e6 / n))

print()
print("latency live vs lab sim (ms), the worst wait p99 (us), CPU per request (us; the backends: all four)")
print("%6s %-8s %8s %8s %8s %8s %8s %10s %8s %8s %8s" % ("rate", "waits", "requests", "p50", "p99", "sim p50",
      "p50/sim", "worst p99", "loadgen", "lb", "backends"))
for rate, waits, run, p99, lg, lb, be in summary:
    sim = json.load(open(f"{tmp}/{rate}.sim.json"))["runs"][0]["latency_ms"]["p50"]
    lat = run["latency_ms"]
    print("%6s %-8s %8d %8.2f %8.2f %8.2f %+7.1f%% %10.0f %8.1f %8.1f %8.1f" % (rate, waits, run["requests"],
          lat["p50"], lat["p99"], sim, (lat["p50"] / sim - 1) * 100, p99, lg, lb, be))
PY
