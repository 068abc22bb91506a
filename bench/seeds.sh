#!/usr/bin/env bash
# lab sim --seeds 30 against 30 single runs spread over the cores: the goal
# is under 2x the time of 30 / cores single runs. Each round times, in turn:
#   single:   30 processes, lab sim LAB --seed k (k = 1..30), one after another
#   serial:   one process, lab sim LAB --seeds 30 on one worker (GOMAXPROCS=1)
#   parallel: one process, lab sim LAB --seeds 30 on every core
# and prints the wall times, parallel / (single / cores), parallel / (serial /
# cores), and the CPU time (user + system) of serial and parallel: equal CPU
# means the pool adds no work, and a wall ratio over 1 then means the cores
# were busy with something else.
# Usage: bench/seeds.sh [ROUNDS] [LAB] [COMPARE] [DURATION]
#        (default: 3 rr-slow round-robin,p2c, the lab's own duration)
# Needs GNU time (apt-get install time).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
lab=${2:-rr-slow}
compare=${3:-round-robin,p2c}
extra=()
if [ -n "${4:-}" ]; then extra=(--duration "$4"); fi
cores=$(nproc)
go build -o bin/lab ./cmd/lab

now() { date +%s%N; }

echo "lab sim $lab --compare $compare ${extra[*]}, 30 seeds, $cores cores, load average $(cut -d' ' -f1 /proc/loadavg)"
printf '%-6s %8s %8s %9s %15s %15s %11s %11s\n' round single serial parallel 'par/(single/N)' 'par/(serial/N)' 'serial CPU' 'par CPU'
for r in $(seq "$rounds"); do
  t0=$(now)
  for k in $(seq 30); do bin/lab sim "$lab" --compare "$compare" "${extra[@]}" --seed "$k" --json > /dev/null; done
  t1=$(now)
  GOMAXPROCS=1 /usr/bin/time -f '%e %U %S' -o /tmp/seeds-serial.time \
    bin/lab sim "$lab" --compare "$compare" "${extra[@]}" --seeds 30 --json > /tmp/seeds-serial.json 2> /dev/null
  /usr/bin/time -f '%e %U %S' -o /tmp/seeds-parallel.time \
    bin/lab sim "$lab" --compare "$compare" "${extra[@]}" --seeds 30 --json > /tmp/seeds-parallel.json 2> /dev/null
  cmp -s /tmp/seeds-serial.json /tmp/seeds-parallel.json || { echo "serial and parallel reports differ" >&2; exit 1; }
  python3 - "$r" "$t0" "$t1" "$cores" <<'EOF'
import sys
r, t0, t1, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
single = (t1 - t0) / 1e9
q = [float(x) for x in open('/tmp/seeds-serial.time').read().split()]
p = [float(x) for x in open('/tmp/seeds-parallel.time').read().split()]
print(f'{r:<6} {single:7.2f}s {q[0]:7.2f}s {p[0]:8.2f}s {p[0] / (single / n):15.2f} {p[0] / (q[0] / n):15.2f}'
      f' {q[1] + q[2]:10.2f}s {p[1] + p[2]:10.2f}s')
EOF
done
