"""Compare one scenario's simulated and live reports (see live-vs-virtual.sh)."""
import json
import sys

name, sim_path, live_path = sys.argv[1:4]
sim = {r["name"]: r for r in json.load(open(sim_path))["runs"]}
live = {r["name"]: r for r in json.load(open(live_path))["runs"]}


def rank(runs):
    order = sorted(runs, key=lambda n: (runs[n]["latency_ms"]["p99"], n))
    return {n: i + 1 for i, n in enumerate(order)}


def busiest(run):
    return max((s["share"] for s in run["servers"]), default=0)


def saturated(run):
    # A queue that sheds or times out work, or a goodput below 99%, is a
    # saturated queue: its latencies are set by queue length, which timing
    # noise moves a lot.
    return run["goodput"] < 0.99 or run.get("rejected", 0) > 0 or run.get("timeouts", 0) > 0


rs, rl = rank(sim), rank(live)
print(f"\n### {name}\n")
print("| setting | p50 sim | p50 live | diff | p99 sim | p99 live | diff | goodput sim | live "
      "| busiest sim | live | rank sim | live | saturated |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
misses = []
for n in sorted(sim, key=lambda n: rs[n]):
    if n not in live:
        continue
    s, l = sim[n], live[n]
    sp50, lp50 = s["latency_ms"]["p50"], l["latency_ms"]["p50"]
    sp99, lp99 = s["latency_ms"]["p99"], l["latency_ms"]["p99"]
    d50 = (lp50 - sp50) / sp50 if sp50 else 0
    d99 = (lp99 - sp99) / sp99 if sp99 else 0
    sat = saturated(s) or saturated(l)
    if not sat and abs(d50) > 0.10:
        misses.append(f"{n}: p50 {d50:+.0%}")
    if not sat and abs(d99) > 0.25:
        misses.append(f"{n}: p99 {d99:+.0%}")
    print(f"| {n} | {sp50:.1f} ms | {lp50:.1f} ms | {d50:+.0%} | {sp99:.0f} ms | {lp99:.0f} ms | {d99:+.0%} "
          f"| {s['goodput']:.1%} | {l['goodput']:.1%} | {busiest(s):.1%} | {busiest(l):.1%} "
          f"| {rs[n]} | {rl[n]} | {'yes' if sat else ''} |")
same = all(rs[n] == rl.get(n) for n in sim)
print(f"\nsame ranking by p99: {'yes' if same else 'no'}; "
      f"outside the goal where no queue is saturated: {', '.join(misses) if misses else 'none'}")

# Labs that model connections (network.handshake, max_conns or tls): the
# handshakes per request on both clocks, and, live, whether the connections
# the backends accepted are the handshakes counted on the leg reaching them.
if any(r.get("connections") for r in sim.values()):
    print("\n| setting | handshakes/req sim | live | ms added/req sim | live | accepted by servers live | counted |")
    print("|---|---|---|---|---|---|---|")
    for n in sorted(sim, key=lambda n: rs[n]):
        s, l = sim[n].get("connections"), live.get(n, {}).get("connections")
        if not s or not l:
            continue
        accepted = sum(x.get("connections", 0) for x in live[n]["servers"])
        counted = l["by_balancers"] if l["by_balancers"] else l["by_clients"]
        print(f"| {n} | {s['per_request']:.3f} | {l['per_request']:.3f} | {s['handshake_ms_per_request']:.2f} "
              f"| {l['handshake_ms_per_request']:.2f} | {accepted} | {counted} |")
