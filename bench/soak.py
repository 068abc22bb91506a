#!/usr/bin/env python3
"""The live soak's verdict (bench/soak.sh): the loadgen's ledger, the drills,
and per process the first, last and peak RSS, goroutines and open fds with
their least-squares slope per hour, fitted after the first 20% of the run
(start-up growth is not a leak). For a process started again after SIGKILL,
the longest-lived pid's samples are used.

Usage: soak.py DIR MINUTES RESTARTS LAB-EXIT-STATUS
"""
import collections
import csv
import json
import sys


def slope(points):
    """Least-squares slope of (t seconds, y) per hour; None with < 3 points."""
    if len(points) < 3:
        return None
    n = len(points)
    mt = sum(t for t, _ in points) / n
    my = sum(y for _, y in points) / n
    var = sum((t - mt) ** 2 for t, _ in points)
    if var == 0:
        return None
    return sum((t - mt) * (y - my) for t, y in points) / var * 3600


def fmt(x, digits=1):
    return "-" if x is None else f"{x:,.{digits}f}"


def main():
    out, minutes, restarts, status = sys.argv[1], float(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    ok = status == 0

    drills = collections.Counter()
    refused = 0
    with open(f"{out}/drills.log") as f:
        for line in f:
            line = line.strip()
            if line.startswith("refused:"):
                refused += 1
                continue
            if line:
                drills[line.split()[0]] += 1
    total = sum(drills.values())
    print(f"drills: {total} applied ({', '.join(f'{k} {v}' for k, v in drills.most_common())}), {refused} refused")
    if restarts != "yes":
        print("  this lab cannot start again a process killed from outside (no lab run --restart):")
        print("  one backend (s5) was SIGKILLed for good and the lb restart drill was skipped")

    try:
        with open(f"{out}/report.json") as f:
            rep = json.load(f)
        run = rep["runs"][0]
        req, succ, fail = run["requests"], run["succeeded"], run["failed"]
        o = run["outcomes"]
        outcomes = o["succeeded"] + o["failed"] + o["rejected"] + o["timed_out"]
        unaccounted = abs(req - (succ + fail)) + abs(req - outcomes)
        print(f"ledger: {req:,} requests: {succ:,} succeeded, {fail:,} failed "
              f"(rejected {o['rejected']:,}, timed out {o['timed_out']:,}, errors {o['failed']:,}); "
              f"{run['attempts']:,} attempts, {run['retries']:,} retries; unaccounted {unaccounted}")
        if unaccounted != 0:
            ok = False
    except (OSError, ValueError, KeyError, IndexError) as e:
        print(f"ledger: no report from lab run ({e})")
        ok = False

    series = collections.defaultdict(lambda: collections.defaultdict(list))  # name -> pid -> rows
    with open(f"{out}/samples.csv") as f:
        for row in csv.DictReader(f):
            series[row["name"]][row["pid"]].append(row)
    warm = minutes * 60 * 0.2
    print(f"\n{'process':8} {'pids':>4} {'samples':>7}  {'RSS MB first/last/max':>22} {'MB/h':>7}  "
          f"{'goroutines f/l/max':>19} {'/h':>7}  {'fds f/l/max':>13} {'/h':>6}")
    order = ["lab", "lb1", "s1", "s2", "s3", "s4", "s5", "loadgen"]
    for name in sorted(series, key=lambda n: order.index(n) if n in order else 99):
        pids = series[name]
        rows = max(pids.values(), key=len)
        t = [float(r["t"]) for r in rows]
        rss = [int(r["rss_kb"]) / 1024 for r in rows]
        fds = [int(r["fds"]) for r in rows]
        gr = [float(r["goroutines"]) if r["goroutines"] else None for r in rows]
        after = [i for i, x in enumerate(t) if x >= warm] or list(range(len(t)))
        s_rss = slope([(t[i], rss[i]) for i in after])
        s_fds = slope([(t[i], fds[i]) for i in after])
        s_gr = slope([(t[i], gr[i]) for i in after if gr[i] is not None])
        g = [x for x in gr if x is not None]
        gtxt = f"{g[0]:.0f}/{g[-1]:.0f}/{max(g):.0f}" if g else "-"
        print(f"{name:8} {len(pids):>4} {len(rows):>7}  {rss[0]:>6.1f}/{rss[-1]:>6.1f}/{max(rss):>6.1f} {fmt(s_rss):>9}  "
              f"{gtxt:>19} {fmt(s_gr, 0):>7}  {fds[0]:>3}/{fds[-1]:>3}/{max(fds):>3} {fmt(s_fds, 0):>9}")
    print("\n(slopes are least-squares fits per hour after the first 20% of the run; lab itself serves no /metrics)")
    print("soak:", "PASS" if ok else "FAIL")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
