#!/usr/bin/env bash
# The live chaos soak: real lb, backend and loadgen processes (lab run) under
# a drill every few seconds - kill/restart through the lab's chaos API,
# SIGSTOP/SIGCONT and SIGKILL of backend processes, GC pauses, slowdowns,
# algorithm switches and, when this build of lab restarts processes that die,
# SIGKILL of the lb - while the RSS, goroutines and open fds of every process
# are sampled. At the end the loadgen's report must account for every request
# exactly once; the table gives the slopes of memory, goroutines and fds.
#
# Usage: bench/soak.sh [MINUTES]      (default 2; docs/reliability.md)
#   SOAK_DRILL=5 SOAK_SAMPLE=5        seconds between drills / samples
#   SOAK_OUT=DIR                      keep the samples, report and logs there
# Exit status: 0 when every request is accounted for, 1 otherwise.
set -Eeuo pipefail
trap 'echo "soak.sh: line $LINENO failed with status $?" >&2' ERR
cd "$(dirname "$0")/.."
minutes=${1:-2}
drill_every=${SOAK_DRILL:-5}
sample_every=${SOAK_SAMPLE:-5}
out=${SOAK_OUT:-$(mktemp -d)}
mkdir -p "$out"
go build -o "$out/lab" ./cmd/lab
lab="$out/lab"

# Can this lab start again a process that dies on its own? Then SIGKILL
# drills may hit backends over and over, and the lb too.
restart_flags=() restarts=no
if "$lab" run --help 2>/dev/null | grep -q -- '--restart'; then
  restart_flags=(--restart on-failure) restarts=yes
fi

"$lab" run bench/soak.yaml --duration "${minutes}m" --dashboard 127.0.0.1:0 --json -v \
  --logs "$out/processes.log" ${restart_flags[@]+"${restart_flags[@]}"} >"$out/report.json" 2>"$out/lab.err" &
labpid=$!
cleanup() { kill -INT "$labpid" 2>/dev/null || true; wait "$labpid" 2>/dev/null || true; }
trap cleanup EXIT INT TERM

url=""
for _ in $(seq 100); do
  url=$(sed -n 's|^dashboard: http://\([^/]*\)/$|\1|p' "$out/lab.err" | head -1)
  [[ -n $url ]] && curl -sf "http://$url/api/state" >/dev/null 2>&1 && break
  sleep 0.2
done
[[ -n $url ]] || { echo "soak: lab run did not start"; cat "$out/lab.err"; exit 1; }
echo "soak: ${minutes} min, controller $url, drills every ${drill_every}s, samples every ${sample_every}s, restarts of killed processes: $restarts"
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%FT%TZ)"

# pidof ROLE NAME: the pid of lab's child process ROLE (backend, lb,
# loadgen) named NAME, from the process table (it changes on a restart).
pidof_child() {
  ps -o pid=,args= --ppid "$labpid" | awk -v role="$1" -v name="$2" '
    { r = ""; n = ""
      for (i = 2; i <= NF; i++) { if ($i == "backend" || $i == "lb" || $i == "loadgen") { if (r == "") r = $i }
                                 if ($i == "--name") n = $(i+1) }
      if (r == "loadgen") n = "loadgen"
      if (r == role && n == name) { print $1; exit } }' || true # ps fails once lab has no children
}

# admin NAME: a process's admin address, from the lab's "process ready" log
# lines (the latest one for that name).
admin_of() {
  grep '"process ready"' "$out/lab.err" | grep "\"name\":\"$1\"" | tail -1 |
    sed -n 's/.*"admin":"\([^"]*\)".*/\1/p' || true
}

servers=(s1 s2 s3 s4 s5)
echo "t,name,pid,rss_kb,fds,goroutines" >"$out/samples.csv"
sample() {
  local t=$1 name role pid rss fds gr adm
  for name in lab lb1 "${servers[@]}" loadgen; do
    case $name in
      lab) pid=$labpid ;;
      lb1) pid=$(pidof_child lb lb1) ;;
      loadgen) pid=$(pidof_child loadgen loadgen) ;;
      *) pid=$(pidof_child backend "$name") ;;
    esac
    [[ -n $pid && -r /proc/$pid/status ]] || continue
    rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
    # A process may exit between the check above and this listing (a chaos
    # kill drains first, then exits): the listing then fails, which under
    # pipefail ended the whole soak (CI, 2026-12-04); it is skipped instead.
    fds=$(ls -1 -- "/proc/$pid/fd" 2>/dev/null | wc -l) || continue
    gr=""
    if [[ $name != lab ]] && adm=$(admin_of "$name") && [[ -n $adm ]]; then
      gr=$(curl -s --max-time 2 "http://$adm/metrics" 2>/dev/null | awk '/^go_goroutines / {print $2}' || true)
    fi
    if [[ -n $rss ]]; then echo "$t,$name,$pid,$rss,$fds,$gr" >>"$out/samples.csv"; fi # no RSS: gone meanwhile
  done
  return 0
}

# A drill that fails (its target is down, say) is logged apart and the soak
# goes on.
chaos() {
  if "$lab" chaos --lab-url "$url" "$@" >/dev/null 2>>"$out/drills.err"; then echo "$*" >>"$out/drills.log"
  else echo "refused: $*" >>"$out/drills.log"; fi
}
signal() { # signal SIG NAME ROLE
  local pid; pid=$(pidof_child "$3" "$2")
  if [[ -n $pid ]] && kill -s "$1" "$pid" 2>/dev/null; then echo "SIG$1 $2" >>"$out/drills.log"
  else echo "refused: SIG$1 $2 (no such process)" >>"$out/drills.log"; fi
}

# One drill per tick, in rotation, each undone at the next tick; the target
# server rotates too. Without restarts, SIGKILL takes a backend down for good,
# so it is done once (to s5, which then leaves the rotation) and the lb is
# never killed.
: >"$out/drills.log"
killed_for_good=""
undo=()
start=$(date +%s)
end=$((start + minutes * 60))
next_sample=$start next_drill=$((start + drill_every))
step=0
while (( $(date +%s) < end - drill_every )); do
  now=$(date +%s)
  if (( now >= next_sample )); then sample $((now - start)); next_sample=$((next_sample + sample_every)); fi
  if (( now >= next_drill )); then
    next_drill=$((next_drill + drill_every))
    if ((${#undo[@]})); then "${undo[@]}"; undo=(); continue; fi
    live=("${servers[@]}")
    [[ -n $killed_for_good ]] && live=(s1 s2 s3 s4)
    s=${live[$((step % ${#live[@]}))]}
    case $((step % 7)) in
      0) chaos kill "$s"; undo=(chaos restart "$s") ;;
      1) signal STOP "$s" backend; undo=(signal CONT "$s" backend) ;;
      2) chaos gc "$s" pause=500ms ;;
      3) chaos slow "$s" speed=0.3; undo=(chaos restore "$s") ;;
      4) if [[ $restarts == yes ]]; then signal KILL "$s" backend
         elif [[ -z $killed_for_good ]]; then signal KILL s5 backend; killed_for_good=s5; fi ;;
      5) chaos algorithm algorithm=round-robin; undo=(chaos algorithm algorithm=p2c) ;;
      6) if [[ $restarts == yes ]]; then signal KILL lb1 lb; fi ;;
    esac
    step=$((step + 1))
  fi
  sleep 0.5
done
if ((${#undo[@]})); then "${undo[@]}"; fi
# sample until the run ends (the loadgen drains, then lab prints the report)
while kill -0 "$labpid" 2>/dev/null; do
  now=$(date +%s)
  if (( now >= next_sample )); then sample $((now - start)); next_sample=$((next_sample + sample_every)); fi
  sleep 0.5
done
trap - EXIT INT TERM
status=0
wait "$labpid" || status=$?
if ((status != 0)); then echo "soak: lab run exited with $status"; tail -20 "$out/lab.err"; fi
python3 bench/soak.py "$out" "$minutes" "$restarts" "$status"
