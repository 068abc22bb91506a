package scenarios

import "fmt"

// The claims of the scenarios on the balancers that read what the servers
// say about themselves: gRPC's weighted round robin on their load reports
// (wrr-orca, gRFC A58) and Prequal's probes (NSDI 2024).
func addReportedLoadClaims(claims map[string][]Claim) {
	claims["prequal-testbed"] = []Claim{
		{Phase: Before, Says: "its tail reaches the deadline already at 0.93x.",
			Checks: "round-robin: over 0.1% of the requests that end in the 0.93x step (10-15 s) time out, so its p99.9 there is the deadline",
			check: func(f *facts) {
				from, to := f.step(2)
				f.atDeadline("round-robin", from, to)
			}},
		{Phase: Before, Says: "Below the allocation p2c, p2c-peak-ewma and Prequal never come near it.",
			Checks: "p2c, p2c-peak-ewma, prequal: no request that ends in the first three steps (0.75x-0.93x, 0-15 s) times out, and no bin's p99 there reaches 2/3 of the deadline",
			check: func(f *facts) {
				_, to := f.step(2)
				for _, n := range []string{"p2c", "p2c-peak-ewma", "prequal"} {
					w := f.window(n, 0, to)
					f.want(w.Timeouts == 0 && 3*w.P99 < 2*f.deadline(), "%s below the allocation: %d timeouts, highest bin p99 %.0f ms", n, w.Timeouts, w.P99)
				}
			}},
		{Phase: During, Says: "its tail reaches the deadline by the top step.",
			Checks: "wrr-orca: over 0.1% of the requests that end in the 1.74x step (40-45 s) time out; its p99.9 over the run at least 0.8x the deadline",
			check: func(f *facts) {
				from, to := f.step(8)
				f.atDeadline("wrr-orca", from, to)
				p := f.run("wrr-orca").Latency.P999
				f.want(p >= 0.8*f.deadline(), "wrr-orca: p99.9 %.0f ms over the run, deadline %.0f ms", p, f.deadline())
			}},
		{Phase: During, Says: "so its tail stays far below the deadline at every step;",
			Checks: "prequal: no request of any step times out; its p99.9 over the run under 2/3 of the deadline and under 2/3 of wrr-orca's",
			check: func(f *facts) {
				w := f.window("prequal", 0, f.end())
				p, o := f.run("prequal").Latency.P999, f.run("wrr-orca").Latency.P999
				f.want(w.Timeouts == 0, "prequal: %d requests timed out", w.Timeouts)
				f.want(3*p < 2*f.deadline() && 3*p < 2*o, "prequal: p99.9 %.0f ms over the run (wrr-orca %.0f ms, deadline %.0f ms)", p, o, f.deadline())
			}},
		{Phase: During, Says: "p2c and p2c-peak-ewma, each balancer on its own tenth of the traffic, have a tail over 1.5 times Prequal's.",
			Checks: "p2c's and p2c-peak-ewma's p99 over the run over 1.5x prequal's",
			check: func(f *facts) {
				q := f.p99("prequal")
				for _, n := range []string{"p2c", "p2c-peak-ewma"} {
					f.want(f.p99(n) > 1.5*q, "%s p99 %.0f ms, prequal's %.0f ms", n, f.p99(n), q)
				}
			}},
		{Phase: Throughout, Says: "Prequal keeps requests off the slow servers and queues them briefly on the fast ones: it pays with a higher median.",
			Checks: "prequal's p50 over the run above every other setting's",
			check: func(f *facts) {
				q := f.run("prequal").Latency.P50
				for _, n := range f.settings() {
					if n != "prequal" {
						p := f.run(n).Latency.P50
						f.want(q > p, "prequal p50 %.1f ms, %s's %.1f ms", q, n, p)
					}
				}
			}},
	}
	claims["wrr-orca-scale-up"] = []Claim{
		{Phase: Before, Says: "Before 10 s every request succeeds.",
			Checks: "before 10 s every setting has >= 95% goodput in every bin and no error",
			check: func(f *facts) {
				f.healthy(0, f.at(0), f.settings()...)
				for _, n := range f.settings() {
					w := f.window(n, 0, f.at(0))
					f.want(w.Errors == 0, "%s: %d errors before the scale-up", n, w.Errors)
				}
			}},
		{Phase: During, Says: "so every server gets an eighth of the load, more than an old one can serve, and the old four queue until the blackout ends at 20 s.",
			Checks: "(per-server series) wrr-orca: one of s1-s4 holds over 100 requests between 12 and 20 s; no-blackout: none holds over 30",
			check: func(f *facts) {
				w, n := f.oldMost("wrr-orca", f.at(0)+2, f.at(0)+10), f.oldMost("no-blackout", f.at(0)+2, f.at(0)+10)
				f.want(w > 100 && n <= 30, "in the blackout the fullest of s1-s4 held %d under wrr-orca, %d under no-blackout", w, n)
			}},
		{Phase: During, Says: "so every server gets an eighth of the load, more than an old one can serve, and the old four queue until the blackout ends at 20 s.",
			// from 14 s: live, the four servers start one after the other
			// (10.07-10.57 s) and no-blackout's backlog is gone by 13.25 s
			// (by 12 s in the simulator), so 12-14 s holds a live queue
			Checks: "wrr-orca: the highest bin p99 between 14 and 20 s over 3x no-blackout's",
			check: func(f *facts) {
				w, n := f.window("wrr-orca", f.at(0)+4, f.at(0)+10), f.window("no-blackout", f.at(0)+4, f.at(0)+10)
				f.want(w.P99 > 3*n.P99, "in the blackout: wrr-orca's highest bin p99 %.0f ms, no-blackout's %.0f ms", w.P99, n.P99)
			}},
		{Phase: During, Says: "Without the blackout (no-blackout) the new servers weigh twice the old ones from their first reports and the old four's queues are gone within 4 s.",
			Checks: "no-blackout: the highest bin p99 from 14 s to the end within 2x p2c's; s5's share over the run over 1.1x wrr-orca's",
			check: func(f *facts) {
				n, p := f.window("no-blackout", f.at(0)+4, f.end()), f.window("p2c", f.at(0)+4, f.end())
				f.want(n.P99 <= 2*p.P99, "from 14 s: no-blackout's highest bin p99 %.0f ms, p2c's %.0f ms", n.P99, p.P99)
				a, b := f.share("no-blackout", "s5"), f.share("wrr-orca", "s5")
				f.want(a > 1.1*b, "s5's share: no-blackout %.3f, wrr-orca %.3f", a, b)
			}},
		{Phase: After, Says: "Once the weights count the backlog drains, within 7 s of the blackout's end.",
			Checks: "wrr-orca from 27 s: the highest bin p99 within 1.6x no-blackout's",
			check: func(f *facts) {
				from := f.at(0) + 17
				w, n := f.window("wrr-orca", from, f.end()), f.window("no-blackout", from, f.end())
				f.want(w.P99 <= 1.6*n.P99, "from %g s: wrr-orca's highest bin p99 %.0f ms, no-blackout's %.0f ms", from, w.P99, n.P99)
			}},
		{Phase: After, Says: "Once the weights count the backlog drains, within 7 s of the blackout's end.",
			Checks: "(per-server series) wrr-orca from 27 s: none of s1-s4 holds over 30",
			check: func(f *facts) {
				from := f.at(0) + 17
				w := f.oldMost("wrr-orca", from, f.end())
				f.want(w <= 30, "from %g s the fullest of s1-s4 held %d under wrr-orca", from, w)
			}},
		{Phase: After, Says: "so its weight falls by about a third and it keeps its share of the requests, blackout or not, failing them to the end of the run.",
			Checks: "wrr-orca and no-blackout: s8's share over the run over 8%; from 22 s to the end over 4% of the requests that end fail; no-blackout: s8's share 0.55-0.8x s5's",
			check: func(f *facts) {
				for _, n := range []string{"wrr-orca", "no-blackout"} {
					w := f.window(n, f.at(0)+12, f.end())
					s8 := f.share(n, "s8")
					f.want(s8 > 0.08 && w.Ended > 0 && float64(w.Errors) > 0.04*float64(w.Ended), "%s: s8's share %.3f; %d errors of %d requests ending from 22 s", n, s8, w.Errors, w.Ended)
				}
				r := f.share("no-blackout", "s8") / max(f.share("no-blackout", "s5"), 1e-9)
				f.want(r >= 0.55 && r <= 0.8, "no-blackout: s8's share %.2fx s5's, want 0.55-0.8", r)
			}},
		{Phase: During, Says: "p2c-peak-ewma with ewma-fast-failure's failure penalty counts each of s8's errors as a 1 s answer and sends it almost nothing.",
			Checks: "peak-ewma-penalty: s8's share under 2%; its errors from 10 s under a fifth of wrr-orca's",
			check: func(f *facts) {
				p, w := f.window("peak-ewma-penalty", f.at(0), f.end()), f.window("wrr-orca", f.at(0), f.end())
				s8 := f.share("peak-ewma-penalty", "s8")
				f.want(s8 < 0.02 && 5*p.Errors < w.Errors, "peak-ewma-penalty: s8's share %.3f, %d errors (wrr-orca %d)", s8, p.Errors, w.Errors)
			}},
		{Phase: During, Says: "Plain p2c takes s8's fast errors for an empty server and sends it more than any other.",
			Checks: "p2c: s8's share over the run above every other server's",
			check: func(f *facts) {
				s8 := f.share("p2c", "s8")
				for _, s := range f.run("p2c").Servers {
					f.want(s.Name == "s8" || s.Share < s8, "p2c: %s's share %.3f, s8's %.3f", s.Name, s.Share, s8)
				}
			}},
	}
	claims["prequal-qrif"] = []Claim{
		{Phase: Throughout, Says: "and the ten balancers herd onto whichever servers look best, so the fullest queue grows to about twice what it is at 0.6",
			Checks: "(per-server series) the most requests one server holds at a bin's end: q-rif-0.84's over 1.5x q-rif-0.6's",
			check: func(f *facts) {
				a, b := f.fullest("q-rif-0.84"), f.fullest("q-rif-0.6")
				f.want(2*a > 3*b, "the fullest server held %d at Q_RIF 0.84, %d at 0.6", a, b)
			}},
		{Phase: Throughout, Says: "and the median and the tail are over 1.3 times as long.",
			Checks: "q-rif-0.84: p50 and p99 over 1.3x q-rif-0.6's",
			check:  func(f *facts) { f.longer("q-rif-0.84", "q-rif-0.6", 1.3) }},
		{Phase: Throughout, Says: "At 0.9 they herd as much as at 0.84.",
			Checks: "q-rif-0.9: p50 and p99 over 1.3x q-rif-0.6's",
			check:  func(f *facts) { f.longer("q-rif-0.9", "q-rif-0.6", 1.3) }},
		{Phase: Throughout, Says: "One balancer at 0.84, which counts every pick it makes, does not herd: its tail is as short as at 0.6.",
			Checks: "one-balancer-0.84: p99 at most 1.25x q-rif-0.6's",
			check: func(f *facts) {
				o, q := f.p99("one-balancer-0.84"), f.p99("q-rif-0.6")
				f.want(o <= 1.25*q, "one balancer at 0.84: p99 %.0f ms; ten at 0.6: %.0f ms", o, q)
			}},
	}
}

// fullest is the most requests one server of setting name held at a bin's
// end over the run.
func (f *facts) fullest(name string) int {
	most := 0
	for _, s := range f.run(name).Servers {
		most = max(most, f.inServer(name, s.Name, 0, f.end()))
	}
	return most
}

// longer wants setting a's p50 and p99 over the run over x times b's.
func (f *facts) longer(a, b string, x float64) {
	ra, rb := f.run(a).Latency, f.run(b).Latency
	f.want(ra.P50 > x*rb.P50 && ra.P99 > x*rb.P99, "%s: p50 %.0f ms, p99 %.0f ms; %s: %.0f ms, %.0f ms; want over %gx", a, ra.P50, ra.P99, b, rb.P50, rb.P99, x)
}

// oldMost is the most requests one of the scale-up's old servers (s1-s4)
// held at a bin's end in [from, to) under setting name.
func (f *facts) oldMost(name string, from, to float64) int {
	most := 0
	for _, s := range []string{"s1", "s2", "s3", "s4"} {
		most = max(most, f.inServer(name, s, from, to))
	}
	return most
}

// step is the i-th level's window [from, to) (s) of the lab's steps
// profile: the lab file says when each level of the load starts, once.
func (f *facts) step(i int) (from, to float64) {
	p := f.lab.Clients.Profile
	if p == nil || len(p.Levels) <= i || p.Every <= 0 {
		f.fail(fmt.Errorf("the lab has no load step %d", i))
		return 0, 0
	}
	every := p.Every.Seconds()
	return float64(i) * every, float64(i+1) * every
}

// deadline is the clients' deadline (ms).
func (f *facts) deadline() float64 {
	return float64(f.lab.Clients.Timeout.Milliseconds())
}

// atDeadline wants over 0.1% of setting name's requests that end in [from,
// to) to have timed out: its p99.9 there is the deadline.
func (f *facts) atDeadline(name string, from, to float64) {
	w := f.window(name, from, to)
	f.want(w.Ended > 0 && 1000*w.Timeouts > w.Ended, "%s: %d of %d requests ending in %g-%g s timed out, want over 0.1%%", name, w.Timeouts, w.Ended, from, to)
}
