#!/usr/bin/env bash
# Peak memory (max RSS) of a virtual run at 10,000 requests/s, for 1 and 10
# minutes of virtual time: the simulator's memory must not grow with run length.
# Usage: bench/sim-memory.sh   (needs GNU time: apt-get install time)
set -euo pipefail
cd "$(dirname "$0")/.."
go build -o bin/lab ./cmd/lab
for d in 60s 600s; do
  /usr/bin/time -f "duration $d: max RSS %M KB, wall %e s" \
    bin/lab sim bench/sim-memory.yaml --duration "$d" --json > /tmp/sim-memory-$d.json
  python3 -c "import json,sys; r=json.load(open('/tmp/sim-memory-$d.json'))['runs'][0]; print('  requests', r['requests'], 'events', r.get('sim_events'))"
done
