package scenarios

import (
	"fmt"
	"strings"

	"github.com/lblab/lblab/internal/report"
)

// The claims of the scenarios with zones: locality-aware routing (the
// layer over the algorithms, balancers.locality), a zone that fails, and
// what the layer does to weights and to many replicas.
func addZoneClaims(claims map[string][]Claim) {
	claims["zone-imbalance"] = []Claim{
		{Phase: Throughout, Says: "Local-only routing sends half the load to a third of the capacity: s1 and s2 each take a quarter of the requests, more than they can serve, and the tail grows past a second.",
			Checks: "local: s1's and s2's shares each over 0.23; no request crosses a zone; p99 over 1 s and over 5x zone-aware's",
			check: func(f *facts) {
				for _, s := range []string{"s1", "s2"} {
					f.want(f.share("local", s) > 0.23, "local: %s's share %.3f", s, f.share("local", s))
				}
				f.want(f.crossed("local") == 0, "local: %.3f of the requests crossed a zone", f.crossed("local"))
				p, z := f.p99("local"), f.p99("zone-aware")
				f.want(p > 1000 && p > 5*z, "p99: local %.0f ms, zone-aware %.0f ms", p, z)
			}},
		{Phase: Throughout, Says: "Zone-aware routing (Envoy's) keeps two thirds of zone a's requests local, the share its servers can carry, and spills the rest to zone b: every server takes a sixth, and a sixth of the requests cross a zone.",
			Checks: "zone-aware: every server's share 0.15-0.185; 0.13-0.2 of the requests cross a zone",
			check: func(f *facts) {
				f.evenShares("zone-aware", 0.15, 0.185)
				c := f.crossed("zone-aware")
				f.want(c >= 0.13 && c <= 0.2, "zone-aware: %.3f of the requests crossed a zone, want about 1/6", c)
			}},
		{Phase: Throughout, Says: "Without the layer p2c balances as well, but sends nearly half the requests across zones, each paying the cross-zone hop twice: its mean latency is higher than zone-aware routing's.",
			Checks: "none: every server's share 0.15-0.185; over 0.4 of the requests cross a zone; its mean latency over zone-aware's",
			check: func(f *facts) {
				f.evenShares("none", 0.15, 0.185)
				c := f.crossed("none")
				f.want(c > 0.4, "none: %.3f of the requests crossed a zone", c)
				n, z := f.run("none").Latency.Mean, f.run("zone-aware").Latency.Mean
				f.want(n > z, "mean latency: none %.1f ms, zone-aware %.1f ms", n, z)
			}},
	}
	claims["zone-outage"] = []Claim{
		{Phase: Before, Says: "Before the outage, failover and rings keep every request in its own zone,",
			Checks: "failover and rings: under 1% of the attempts before 10 s cross a zone; every bin >= 95% goodput",
			check: func(f *facts) {
				for _, n := range []string{"failover", "rings"} {
					c := f.crossedIn(n, 0, f.at(0))
					f.want(c < 0.01, "%s: %.3f of the attempts before %g s crossed a zone", n, c, f.at(0))
				}
				f.healthy(0, f.at(0), f.settings()...)
			}},
		{Phase: Before, Says: "while without a layer p2c sends over half its attempts across a zone, some of them across regions, and its mean latency is half again as long.",
			Checks: "none: 0.5-0.7 of the attempts before 10 s cross a zone; its mean latency over the run over 1.5x failover's",
			check: func(f *facts) {
				c := f.crossedIn("none", 0, f.at(0))
				f.want(c >= 0.5 && c <= 0.7, "none: %.3f of the attempts before %g s crossed a zone, want over half", c, f.at(0))
				n, o := f.run("none").Latency.Mean, f.run("failover").Latency.Mean
				f.want(n > 1.5*o, "mean latency: none %.1f ms, failover %.1f ms", n, o)
			}},
		{Phase: During, Says: "The health checks see it within a second; until they do, zone a's balancer keeps picking its dead servers, and the requests whose retries all land there fail.",
			Checks: "failover and rings: some requests fail in 10-11 s, none from 11 s to 20 s",
			check: func(f *facts) {
				t := f.at(0)
				for _, n := range []string{"failover", "rings"} {
					early, late := f.window(n, t, t+1), f.window(n, t+1, f.until(0))
					f.want(early.Ended > early.Succeeded, "%s: no request failed in %g-%g s", n, t, t+1)
					f.want(late.Ended == late.Succeeded, "%s: %d requests failed from %g s to %g s", n, late.Ended-late.Succeeded, t+1, f.until(0))
				}
			}},
		{Phase: During, Says: "send zone a's third across to zone b, the nearest, not to the west: the cross-zone share jumps to a third, and zone c's servers take only their own zone's requests.",
			Checks: "failover and rings: 0.28-0.4 of the attempts from 11 s to 20 s cross a zone; each of s9-s12's shares over the run 0.075-0.092 (a third of the load over four), each of s5-s8's over 0.1",
			check: func(f *facts) {
				t := f.at(0)
				for _, n := range []string{"failover", "rings"} {
					c := f.crossedIn(n, t+1, f.until(0))
					f.want(c >= 0.28 && c <= 0.4, "%s: %.3f of the attempts in the outage crossed a zone, want about 1/3", n, c)
					for _, s := range []string{"s9", "s10", "s11", "s12"} {
						sh := f.share(n, s)
						f.want(sh >= 0.075 && sh <= 0.092, "%s: %s (zone c) took %.3f", n, s, sh)
					}
					for _, s := range []string{"s5", "s6", "s7", "s8"} {
						sh := f.share(n, s)
						f.want(sh > 0.1, "%s: %s (zone b) took %.3f", n, s, sh)
					}
				}
			}},
		{Phase: After, Says: "When zone a comes back both return to it within a second, the cross-zone share falls back to nothing, and every setting recovers.",
			Checks: "failover and rings: under 1% of the attempts from 21 s cross a zone; every setting's recovery verdict is back",
			check: func(f *facts) {
				from := f.until(0) + 1
				for _, n := range []string{"failover", "rings"} {
					c := f.crossedIn(n, from, f.end())
					f.want(c < 0.01, "%s: %.3f of the attempts from %g s crossed a zone", n, c, from)
				}
				for _, n := range f.settings() {
					f.want(f.recovered(n), "%s did not recover", n)
				}
			}},
	}
	claims["zone-weights"] = []Claim{
		{Phase: Throughout, Says: "Weighted round robin over every zone gives each fast server twice a slow one's share, and every server runs at the same utilization, though half the requests cross a zone.",
			Checks: "wrr: each of s1-s3's shares 1.8-2.2x each of s4-s6's; 0.45-0.55 of the requests cross a zone",
			check: func(f *facts) {
				for _, fast := range []string{"s1", "s2", "s3"} {
					for _, slow := range []string{"s4", "s5", "s6"} {
						r := f.share("wrr", fast) / max(f.share("wrr", slow), 1e-9)
						f.want(r >= 1.8 && r <= 2.2, "wrr: %s's share %.2fx %s's", fast, r, slow)
					}
				}
				c := f.crossed("wrr")
				f.want(c >= 0.45 && c <= 0.55, "wrr: %.3f of the requests crossed a zone", c)
			}},
		{Phase: Throughout, Says: "so everything stays local and every server takes a sixth of the requests, whatever its weight.",
			Checks: "wrr-zone-aware and p2c-zone-aware: under 1% of the requests cross a zone; every server's share 0.15-0.185",
			check: func(f *facts) {
				for _, n := range []string{"wrr-zone-aware", "p2c-zone-aware"} {
					f.want(f.crossed(n) < 0.01, "%s: %.3f of the requests crossed a zone", n, f.crossed(n))
					f.evenShares(n, 0.15, 0.185)
				}
			}},
		{Phase: Throughout, Says: "its queues grow and the p99 is twice weighted round robin's or more. p2c inside the zones cannot undo it, for the layer has already chosen the zone.",
			Checks: "wrr-zone-aware's p99 over 2x wrr's; p2c-zone-aware's over 1.3x p2c's",
			check: func(f *facts) {
				f.want(f.p99("wrr-zone-aware") > 2*f.p99("wrr"), "p99: wrr-zone-aware %.0f ms, wrr %.0f ms", f.p99("wrr-zone-aware"), f.p99("wrr"))
				f.want(f.p99("p2c-zone-aware") > 1.3*f.p99("p2c"), "p99: p2c-zone-aware %.0f ms, p2c %.0f ms", f.p99("p2c-zone-aware"), f.p99("p2c"))
			}},
		{Phase: Throughout, Says: "Crossing a zone costs less than this: weighted round robin's mean latency, with its crossings, is lower than zone-aware routing's.",
			Checks: "wrr's mean latency under 0.8x wrr-zone-aware's",
			check: func(f *facts) {
				w, z := f.run("wrr").Latency.Mean, f.run("wrr-zone-aware").Latency.Mean
				f.want(w < 0.8*z, "mean latency: wrr %.1f ms, wrr-zone-aware %.1f ms", w, z)
			}},
	}
	claims["zone-replicas"] = []Claim{
		{Phase: Throughout, Says: "One balancer per zone, seeing all of it, waits two thirds as long or less.",
			Checks: "mean latency less the work and the four hops: one-per-zone's at most 0.67x least-outstanding's",
			check: func(f *facts) {
				o, l := f.meanWait("one-per-zone"), f.meanWait("least-outstanding")
				f.want(o <= 0.67*l, "mean wait: one-per-zone %.1f ms, least-outstanding %.1f ms", o, l)
			}},
		{Phase: Throughout, Says: "The replicas' least-request comes down to the level of two random choices, yet stays far from random: its mean wait is under half of random's.",
			Checks: "least-outstanding's mean wait 0.7-1.1x p2c's, under 0.5x random's",
			check: func(f *facts) {
				l, p, r := f.meanWait("least-outstanding"), f.meanWait("p2c"), f.meanWait("random")
				f.want(l >= 0.7*p && l <= 1.1*p, "mean wait: least-outstanding %.1f ms, p2c %.1f ms", l, p)
				f.want(l < 0.5*r, "mean wait: least-outstanding %.1f ms, random %.1f ms", l, r)
			}},
		{Phase: Throughout, Says: "Sharing the servers' counts between the replicas through reports half a second old is worse than not sharing them: every replica sends to the server that looked emptiest, together, and the p99 is five times longer or more.",
			Checks: "shared-counts' p99 over 5x least-outstanding's; no request crosses a zone in any setting",
			check: func(f *facts) {
				s, l := f.p99("shared-counts"), f.p99("least-outstanding")
				f.want(s > 5*l, "p99: shared-counts %.0f ms, least-outstanding %.0f ms", s, l)
				var crossing []string
				for _, n := range f.settings() {
					if f.crossed(n) > 0 {
						crossing = append(crossing, n)
					}
				}
				f.want(len(crossing) == 0, "requests crossed a zone under %s", strings.Join(crossing, ", "))
			}},
	}
}

// crossed is the share of setting name's requests that crossed a zone
// over the run.
func (f *facts) crossed(name string) float64 {
	c := f.run(name).CrossZone
	if c == nil {
		f.fail(fmt.Errorf("%s: no cross-zone figures: %w", name, report.ErrUnmeasured))
		return 0
	}
	return c.RequestShare
}

// crossedIn is the share of setting name's attempts in [from, to) (s) that
// crossed a zone.
func (f *facts) crossedIn(name string, from, to float64) float64 {
	w := f.window(name, from, to)
	if w.Attempts == 0 {
		return 0
	}
	return float64(w.Crossed) / float64(w.Attempts)
}

// evenShares wants each server's share of setting name in [lo, hi].
func (f *facts) evenShares(name string, lo, hi float64) {
	for _, s := range f.run(name).Servers {
		f.want(s.Share >= lo && s.Share <= hi, "%s: %s's share %.3f, want %g-%g", name, s.Name, s.Share, lo, hi)
	}
}
