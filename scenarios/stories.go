package scenarios

import (
	"math"
	"strings"
)

// claims is, per scenario, what its narration says, sentence by
// sentence, each as a check on a report (claims.go). docs/scenarios.md
// lists them with the seeds each holds on.
//
// It is a function rather than a variable, so that a program that links
// scenarios only for its lab files (the page's wasm module, cmd/labwasm)
// does not link the checks: a table built at start would keep every one.
func claims() map[string][]Claim {
	m := map[string][]Claim{
		"rr-slow": {
			{Phase: Before, Says: "At 5 s s2 slows to a quarter of its speed.",
				Checks: "before 5 s every bin of round-robin, least-outstanding and p2c has >= 95% goodput",
				check: func(f *facts) {
					f.healthy(0, f.at(0), "round-robin", "least-outstanding", "p2c")
				}},
			{Phase: During, Says: "Round robin keeps giving it a fifth of the requests",
				Checks: "round-robin's share of s2 is 0.2 +- 0.01",
				check: func(f *facts) {
					s := f.share("round-robin", "s2")
					f.want(math.Abs(s-0.2) <= 0.01, "round-robin sent %.3f to s2, want 0.2", s)
				}},
			{Phase: During, Says: "four times what it can now finish, so its queue grows",
				Checks: "round-robin: s2 holds 5x more at its fullest after 5 s than before",
				check: func(f *facts) {
					t := f.at(0)
					a, b := f.inServer("round-robin", "s2", 0, t), f.inServer("round-robin", "s2", t, f.end())
					f.want(b >= 5*max(a, 1), "s2 under round robin held at most %d before %g s and %d after, want its queue to grow 5x", a, t, b)
				}},
			{Phase: During, Says: "until it sheds with 503s",
				Checks: "round-robin: no 503 before 5 s, 503s after",
				check: func(f *facts) {
					t := f.at(0)
					pre, post := f.window("round-robin", 0, t), f.window("round-robin", t, f.end())
					f.want(pre.Rejected == 0 && post.Rejected > 0, "round-robin 503s: %d before %g s, %d after; want none, then some", pre.Rejected, t, post.Rejected)
				}},
			{Phase: After, Says: "least-outstanding and P2C see its count rise and send elsewhere",
				Checks: "least-outstanding and p2c send s2 under 15% and keep >= 99% goodput after 5 s",
				check: func(f *facts) {
					for _, n := range []string{"least-outstanding", "p2c"} {
						s, w := f.share(n, "s2"), f.window(n, f.at(0), f.end())
						f.want(s < 0.15 && w.Goodput() >= 0.99, "%s: s2's share %.3f, goodput after the slowdown %.3f", n, s, w.Goodput())
					}
				}},
			{Phase: After, Says: "Compare the p99 column and s2's share.",
				Checks: "least-outstanding's and p2c's p99 at least 5x below round robin's",
				check: func(f *facts) {
					rr := f.p99("round-robin")
					for _, n := range []string{"least-outstanding", "p2c"} {
						f.want(f.p99(n)*5 <= rr, "%s p99 %.1f ms is not 5x below round robin's %.1f ms", n, f.p99(n), rr)
					}
				}},
		},
		"herd": {
			{Phase: Throughout, Says: "Between refreshes least-outstanding sends everything to whichever server looked emptiest, so one server at a time drowns.",
				Checks: "least-outstanding's p99 over twice p2c's, while its shares stay even over the run (busiest < 15%)",
				check: func(f *facts) {
					lo, p := f.p99("least-outstanding"), f.p99("p2c")
					f.want(lo > 2*p, "least-outstanding p99 %.1f ms, p2c %.1f ms: want the herd well above", lo, p)
					f.want(f.busiest("least-outstanding") < 0.15, "least-outstanding's busiest server took %.3f: the drowning server should change", f.busiest("least-outstanding"))
				}},
			{Phase: Throughout, Says: "P2C's random pair spreads the traffic; random ignores the stale numbers altogether.",
				Checks: "p2c and random keep every request (goodput 1) with p99 under half of least-outstanding's",
				check: func(f *facts) {
					for _, n := range []string{"p2c", "random"} {
						r := f.run(n)
						f.want(r.Goodput >= 0.999 && 2*r.Latency.P99 < f.p99("least-outstanding"), "%s: goodput %.3f, p99 %.1f ms (least-outstanding %.1f ms)", n, r.Goodput, r.Latency.P99, f.p99("least-outstanding"))
					}
				}},
			{Phase: Throughout, Says: "With fresh, local counts least-outstanding is fine again.",
				Checks: "least-outstanding-local's p99 at least 3x below least-outstanding's",
				check: func(f *facts) {
					l, lo := f.p99("least-outstanding-local"), f.p99("least-outstanding")
					f.want(3*l <= lo, "fresh local counts p99 %.1f ms vs stale %.1f ms", l, lo)
				}},
		},
		"gc-ewma": {
			{Phase: Throughout, Says: "Round robin keeps feeding it during the pause, so a fifth of those requests wait;",
				Checks: "round-robin sends paused 0.2 +- 0.01 and its p99 is over 200 ms (a wait of most of a 300 ms pause)",
				check: func(f *facts) {
					s := f.share("round-robin", "paused")
					f.want(math.Abs(s-0.2) <= 0.01, "round-robin sent %.3f to paused, want 0.2", s)
					f.want(f.p99("round-robin") > 200, "round-robin p99 %.1f ms, want the pauses in it (> 200 ms)", f.p99("round-robin"))
				}},
			{Phase: Throughout, Says: "least-outstanding and peak-EWMA P2C notice its count (or its latency) jump and go elsewhere.",
				Checks: "least-outstanding and p2c-peak-ewma: p99 under 0.6x round robin's, paused's share under 0.2",
				check: func(f *facts) {
					for _, n := range []string{"least-outstanding", "p2c-peak-ewma"} {
						s := f.share(n, "paused")
						f.want(f.p99(n) < 0.6*f.p99("round-robin") && s < 0.2, "%s: p99 %.1f ms (round robin %.1f), paused's share %.3f", n, f.p99(n), f.p99("round-robin"), s)
					}
				}},
		},
		"ch-bounded": {
			{Phase: Throughout, Says: "Ring hashing sends each key to one server, so caches stay warm, but the server owning the hottest keys is overloaded.",
				Checks: "ring-hash: hit ratio >= 0.7, busiest server > 1.5x an even fifth, p99 over 1.5x bounded loads'",
				check: func(f *facts) {
					r := f.run("ring-hash")
					f.want(r.HitRatio() >= 0.7, "ring-hash hit ratio %.2f", r.HitRatio())
					f.want(f.busiest("ring-hash") > 1.5*0.2, "ring-hash's busiest server took %.3f", f.busiest("ring-hash"))
					f.want(r.Latency.P99 > 1.5*f.p99("ring-hash-bounded"), "ring-hash p99 %.1f ms, bounded %.1f ms", r.Latency.P99, f.p99("ring-hash-bounded"))
				}},
			{Phase: Throughout, Says: "Bounded loads (eps 0.25) spill the excess clockwise and keep most of the hits;",
				Checks: "ring-hash-bounded keeps >= 85% of ring hash's hit ratio with a busiest share under ring hash's",
				check: func(f *facts) {
					b, r := f.run("ring-hash-bounded").HitRatio(), f.run("ring-hash").HitRatio()
					f.want(b >= 0.85*r, "bounded hit ratio %.2f vs ring hash %.2f", b, r)
					f.want(f.busiest("ring-hash-bounded") < f.busiest("ring-hash"), "bounded busiest %.3f vs ring %.3f", f.busiest("ring-hash-bounded"), f.busiest("ring-hash"))
				}},
			{Phase: Throughout, Says: "P2C balances but every server sees every key, so caches cool.",
				Checks: "p2c: busiest share under 0.22, hit ratio at least 0.1 below ring hash's",
				check: func(f *facts) {
					p, r := f.run("p2c").HitRatio(), f.run("ring-hash").HitRatio()
					f.want(f.busiest("p2c") < 0.22 && p <= r-0.1, "p2c: busiest %.3f, hit ratio %.2f (ring hash %.2f)", f.busiest("p2c"), p, r)
				}},
			{Phase: Before, Says: "At 10 s a sixth server joins:",
				Checks: "before 10 s every bin of every setting has >= 95% goodput; s6 serves a share afterwards",
				check: func(f *facts) {
					f.healthy(0, f.at(0), f.settings()...)
					for _, n := range f.settings() {
						f.want(f.share(n, "s6") > 0, "%s: s6 never served", n)
					}
				}},
			{Phase: After, Says: "about 1/6 of the keys move (hash mod N would move most of them).",
				Checks: "ring-hash, ring-hash-bounded, maglev: keys moved 5 -> 6 within 1/6 +- 0.03, mod N >= 0.7",
				check: func(f *facts) {
					for _, n := range []string{"ring-hash", "ring-hash-bounded", "maglev"} {
						k := f.keysMoved(n)
						if k == nil {
							continue
						}
						f.want(k.From == 5 && k.To == 6 && math.Abs(k.Share-1.0/6) <= 0.03 && k.ModNShare >= 0.7,
							"%s: %d -> %d moved %.3f of keys (mod N %.3f)", n, k.From, k.To, k.Share, k.ModNShare)
					}
				}},
		},
		"orca-weights": {
			{Phase: Before, Says: "until then every server weighs the same and the balancer takes them in turn, so the half-speed servers get more than they can serve and queue.",
				Checks: "(per-server series) wrr-orca: s4 holds over 40 requests and 5x s1's at its fullest between 2 and 10 s; p2c's s4 at most 20",
				check: func(f *facts) {
					s4, s1, p := f.inServer("wrr-orca", "s4", 2, 10), f.inServer("wrr-orca", "s1", 2, 10), f.inServer("p2c", "s4", 2, 10)
					f.want(s4 > 40 && s4 >= 5*max(s1, 1) && p <= 20, "in the blackout: wrr-orca's s4 held %d, s1 %d; p2c's s4 %d", s4, s1, p)
				}},
			{Phase: Before, Says: "until then every server weighs the same and the balancer takes them in turn, so the half-speed servers get more than they can serve and queue.",
				Checks: "wrr-orca: the highest bin p99 from 5 to 10 s over 3x p2c's",
				check: func(f *facts) {
					w, p := f.window("wrr-orca", 5, 10), f.window("p2c", 5, 10)
					f.want(w.P99 > 3*p.P99, "in the blackout: wrr-orca's highest bin p99 %.0f ms, p2c's %.0f ms", w.P99, p.P99)
				}},
			{Phase: Before, Says: "From 10 s each server weighs its requests per second over its utilization, the slow half half as much, and the queues drain: the tail is then as short as p2c's.",
				Checks: "(per-server series) wrr-orca from 18 to 25 s (the blackout's backlog takes until 15-17 s to drain): s4 holds at most 25",
				check: func(f *facts) {
					s4 := f.inServer("wrr-orca", "s4", 18, f.at(0))
					f.want(s4 <= 25, "after the blackout: s4 held %d", s4)
				}},
			{Phase: Before, Says: "From 10 s each server weighs its requests per second over its utilization, the slow half half as much, and the queues drain: the tail is then as short as p2c's.",
				Checks: "wrr-orca from 18 to 25 s: the highest bin p99 within 1.5x p2c's",
				check: func(f *facts) {
					w, p := f.window("wrr-orca", 18, f.at(0)), f.window("p2c", 18, f.at(0))
					f.want(w.P99 <= 1.5*p.P99, "after the blackout: highest bin p99 %.0f ms, p2c's %.0f ms", w.P99, p.P99)
				}},
			{Phase: During, Says: "the error penalty divides its weight by its error rate, and it gets little.",
				Checks: "wrr-orca from 2 s into the failure to its end: goodput >= 0.8, errors under a fifth of no-penalty's",
				check: func(f *facts) {
					w, n := f.window("wrr-orca", f.at(0)+2, f.at(1)), f.window("no-penalty", f.at(0)+2, f.at(1))
					f.want(w.Goodput() >= 0.8 && 5*w.Errors < n.Errors, "in the failure: wrr-orca goodput %.3f, %d errors; no-penalty %d", w.Goodput(), w.Errors, n.Errors)
				}},
			{Phase: During, Says: "Without the penalty (no-penalty) it draws nearly every request and almost none succeeds,",
				Checks: "no-penalty: goodput under 10% from 2 s into the failure to its end",
				check: func(f *facts) {
					n := f.window("no-penalty", f.at(0)+2, f.at(1))
					f.want(n.Goodput() < 0.1, "no-penalty: goodput %.3f in the failure", n.Goodput())
				}},
			{Phase: After, Says: "Once s1 recovers at 32 s the weights follow within a few seconds.",
				Checks: "wrr-orca healthy (every bin >= 95%) from 2 s after the recovery",
				check: func(f *facts) {
					f.healthy(f.at(1)+2, f.end(), "wrr-orca")
				}},
			{Phase: After, Says: "Round robin keeps the slow half queueing for the whole run.",
				Checks: "(per-server series) round-robin: s4 holds over 100 at its fullest from 16 to 25 s",
				check: func(f *facts) {
					n := f.inServer("round-robin", "s4", 16, f.at(0))
					f.want(n > 100, "round-robin's s4 held at most %d from 16 to 25 s", n)
				}},
		},
		"jiq": {
			{Phase: Throughout, Says: "Requests then mostly meet an idle server,",
				Checks: "jiq and jiq-sq2: over half of the picks take an idle server off the queue",
				check: func(f *facts) {
					for _, n := range []string{"jiq", "jiq-sq2"} {
						f.want(f.run(n).IdleShare() > 0.5, "%s: %.3f of the picks found an idle server", n, f.run(n).IdleShare())
					}
				}},
			{Phase: Throughout, Says: "JIQ's mean wait is under half of p2c's,",
				Checks: "mean latency less the work and the four hops: jiq's under 0.5x p2c's",
				check: func(f *facts) {
					j, p := f.meanWait("jiq"), f.meanWait("p2c")
					f.want(j < 0.5*p, "mean wait: jiq %.1f ms, p2c %.1f ms", j, p)
				}},
			{Phase: Throughout, Says: "and its p99 is a twentieth shorter or more,",
				Checks: "jiq's p99 under 0.95x p2c's",
				check: func(f *facts) {
					f.want(f.p99("jiq") < 0.95*f.p99("p2c"), "p99: jiq %.0f ms, p2c %.0f ms", f.p99("jiq"), f.p99("p2c"))
				}},
			{Phase: Throughout, Says: "though not in every moment: a request whose balancer knows no idle server goes to a random one, busy or not.",
				Checks: "jiq sends at random on 10-50% of its picks (1 - idle share)",
				check: func(f *facts) {
					r := 1 - f.run("jiq").IdleShare()
					f.want(r > 0.1 && r < 0.5, "jiq drew %.3f of its picks at random", r)
				}},
			{Phase: Throughout, Says: "Joining the shorter of two idle queues (jiq-sq2) spreads the idle servers over the balancers, so more picks find one and the wait is shorter still.",
				Checks: "jiq-sq2: idle share over jiq's + 3 points, mean wait under jiq's and under 0.4x p2c's",
				check: func(f *facts) {
					sq, j := f.run("jiq-sq2"), f.run("jiq")
					f.want(sq.IdleShare() > j.IdleShare()+0.03, "idle share: jiq-sq2 %.3f, jiq %.3f", sq.IdleShare(), j.IdleShare())
					w, wj, p := f.meanWait("jiq-sq2"), f.meanWait("jiq"), f.meanWait("p2c")
					f.want(w < wj && w < 0.4*p, "mean wait: jiq-sq2 %.1f ms, jiq %.1f ms, p2c %.1f ms", w, wj, p)
				}},
			{Phase: Throughout, Says: "The news costs under one announcement per request.",
				Checks: "jiq and jiq-sq2: between 0.3 and 1 announcement per request; p2c and random none",
				check: func(f *facts) {
					for _, n := range []string{"jiq", "jiq-sq2"} {
						a := f.run(n).AnnouncementsPerRequest()
						f.want(a > 0.3 && a < 1, "%s: %.3f announcements per request", n, a)
					}
					for _, n := range []string{"p2c", "random"} {
						f.want(f.run(n).Announcements == nil, "%s reports announcements", n)
					}
				}},
			{Phase: Throughout, Says: "Random, which knows nothing, queues most.",
				Checks: "random's mean wait over 1.5x p2c's",
				check: func(f *facts) {
					r, p := f.meanWait("random"), f.meanWait("p2c")
					f.want(r > 1.5*p, "mean wait: random %.1f ms, p2c %.1f ms", r, p)
				}},
			{Phase: Throughout, Says: "When the hop is half a service time (jiq-far and p2c-far, 50 ms), a server waits that long to be known idle and its request as long to arrive: JIQ's tail is then longer than p2c's.",
				Checks: "jiq-far's p99 over p2c-far's, with under half of its picks finding an idle server",
				check: func(f *facts) {
					j, p := f.run("jiq-far"), f.run("p2c-far")
					f.want(j.Latency.P99 > p.Latency.P99 && j.IdleShare() < 0.5, "jiq-far p99 %.0f ms (idle share %.3f), p2c-far %.0f ms", j.Latency.P99, j.IdleShare(), p.Latency.P99)
				}},
		},
		"retry-storm": {
			{Phase: Before, Says: "From 5 s to 6.5 s every server runs at half speed.",
				Checks: "before 5 s every bin of every setting has >= 95% goodput: no storm without the trigger",
				check: func(f *facts) {
					f.healthy(0, f.at(0), f.settings()...)
				}},
			{Phase: During, Says: "Requests start timing out (200 ms at the balancer) and every client retries up to three times,",
				Checks: "retries: under 1% of the requests before 5 s time out; timeouts and retries in the slowdown",
				check: func(f *facts) {
					pre, in := f.window("retries", 0, f.at(0)), f.window("retries", f.at(0), f.until(0))
					f.want(pre.Timeouts < pre.Offered/100, "retries: %d timeouts before the slowdown", pre.Timeouts)
					f.want(in.Timeouts > 0 && in.Retries > 0, "retries: %d timeouts, %d retries in the slowdown", in.Timeouts, in.Retries)
				}},
			{Phase: After, Says: "so the fleet receives far more attempts than it can serve",
				Checks: "retries: >= 3 attempts per request after the slowdown",
				check: func(f *facts) {
					w := f.window("retries", f.until(0), f.end())
					f.want(w.AttemptsPerRequest() >= 3, "retries: %.2f attempts per request after the slowdown", w.AttemptsPerRequest())
				}},
			{Phase: After, Says: "it stays overloaded after the slowdown ends: a metastable failure.",
				Checks: "retries: from 1.5 s after the slowdown to the end, goodput under 10% and no bin over 50%",
				check: func(f *facts) {
					w := f.window("retries", f.until(0)+1.5, f.end())
					f.want(w.Goodput() < 0.1, "retries: goodput %.3f after the slowdown, want it stuck low", w.Goodput())
					best := 0.0
					for _, b := range f.run("retries").Series {
						if b.T >= w.From && b.T < w.To {
							best = math.Max(best, b.Goodput())
						}
					}
					f.want(best <= 0.5, "retries: a bin after the slowdown recovered to %.3f", best)
				}},
			{Phase: After, Says: "it stays overloaded after the slowdown ends: a metastable failure.",
				Checks: "the table ranks every setting that did not recover (metastable) below every one that did",
				check:  func(f *facts) { f.collapsesRankLast() }},
			{Phase: After, Says: "A 10% retry budget stops the amplification.",
				Checks: "retry-budget: <= 1.15 attempts per request, goodput >= 95% in every bin from 5 s after the slowdown",
				check: func(f *facts) {
					r := f.run("retry-budget")
					f.want(r.AttemptsPerRequest <= 1.15, "retry-budget: %.3f attempts per request", r.AttemptsPerRequest)
					f.healthy(f.until(0)+5, f.end(), "retry-budget")
				}},
			{Phase: After, Says: "Dropping expired work alone does not: the retries still triple the load",
				Checks: "drop-expired: >= 3 attempts per request and goodput under 10% from 1.5 s after the slowdown",
				check: func(f *facts) {
					w := f.window("drop-expired", f.until(0)+1.5, f.end())
					f.want(w.AttemptsPerRequest() >= 3 && w.Goodput() < 0.1, "drop-expired: %.2f attempts per request, goodput %.3f", w.AttemptsPerRequest(), w.Goodput())
				}},
			{Phase: After, Says: "and a FIFO queue serves requests just before they expire, too late to help.",
				Checks: "drop-expired: over a quarter of its served attempts after the slowdown are wasted",
				check: func(f *facts) {
					w := f.window("drop-expired", f.until(0)+1.5, f.end())
					f.serverWaste()
					f.want(w.Wasted*4 > w.Attempts-w.Timeouts, "drop-expired: %d wasted of %d attempts (%d timed out)", w.Wasted, w.Attempts, w.Timeouts)
				}},
			{Phase: After, Says: "Together with the budget it clears the dead backlog sooner.",
				Checks: "budget-drop-expired's goodput in the 2.5 s after the slowdown above retry-budget's",
				check: func(f *facts) {
					t := f.until(0)
					a, b := f.window("budget-drop-expired", t, t+2.5), f.window("retry-budget", t, t+2.5)
					f.want(a.Goodput() > b.Goodput(), "goodput after the slowdown: budget+drop-expired %.3f, budget %.3f", a.Goodput(), b.Goodput())
				}},
		},
		"metastable-map": {
			{Phase: Before, Says: "every server slows to some speed for some time from 5 s.",
				Checks: "before 5 s every bin of every setting has >= 95% goodput",
				check: func(f *facts) {
					f.healthy(0, f.at(0), f.settings()...)
				}},
			{Phase: After, Says: "A shallow or a short slowdown is survived: 0.8x for 1.5 s or for 3 s, 0.6x for 0.5 s.",
				Checks: "0.8x-1.5s, 0.8x-3s and 0.6x-0.5s recover (the recovery verdict on each one's own slowdown)",
				check: func(f *facts) {
					for _, n := range []string{"0.8x-1.5s", "0.8x-3s", "0.6x-0.5s"} {
						f.want(f.recovered(n), "%s did not recover", n)
					}
				}},
			{Phase: After, Says: "A deeper and longer one tips the fleet into a retry storm that outlives it: 0.6x or half speed for 1.5 s, half speed for 4 s.",
				Checks: "0.6x-1.5s, 0.5x-1.5s and 0.5x-4s do not recover, with >= 3 attempts per request from 1.5 s after their slowdown",
				check: func(f *facts) {
					for _, n := range []string{"0.6x-1.5s", "0.5x-1.5s", "0.5x-4s"} {
						e := f.trigger(n)
						w := f.window(n, (e.At+e.For).Seconds()+1.5, f.end())
						f.want(!f.recovered(n) && w.AttemptsPerRequest() >= 3, "%s: recovered %v, %.2f attempts per request after its slowdown", n, f.recovered(n), w.AttemptsPerRequest())
					}
				}},
			{Phase: After, Says: "Recovery is monotone: every slowdown no deeper and no longer than one the fleet survives is survived too.",
				Checks: "over the settings that change only the slowdown, none survived has a milder (speed >= and for <=) one that did not",
				check:  func(f *facts) { f.monotone() }},
			{Phase: After, Says: "A 10% retry budget moves the line out past the whole map: it survives 0.3x for 4 s.",
				Checks: "budget-0.3x-4s recovers, its slowdown deeper and as long as or longer than every cell's",
				check: func(f *facts) {
					b := f.trigger("budget-0.3x-4s")
					f.want(f.recovered("budget-0.3x-4s"), "budget-0.3x-4s did not recover")
					for _, n := range f.triggerCells() {
						e := f.trigger(n)
						f.want(b.Speed < e.Speed && b.For >= e.For, "budget's slowdown (%v for %v) is not past %s's (%v for %v)", b.Speed, b.For, n, e.Speed, e.For)
					}
				}},
			{Phase: After, Says: "And at 400 requests/s instead of 700 the fleet survives the half-speed 1.5 s that tips it at 70% load.",
				Checks: "400rps-0.5x-1.5s recovers where 0.5x-1.5s, the same slowdown at 700/s, does not",
				check: func(f *facts) {
					f.want(f.trigger("400rps-0.5x-1.5s").String() == f.trigger("0.5x-1.5s").String(), "the two settings' slowdowns differ")
					f.want(f.recovered("400rps-0.5x-1.5s") && !f.recovered("0.5x-1.5s"), "400/s recovered %v, 700/s recovered %v",
						f.recovered("400rps-0.5x-1.5s"), f.recovered("0.5x-1.5s"))
				}},
		},
		"breaker": {
			{Phase: Before, Says: "At 5 s s2 starts answering every request with a fast 500.",
				Checks: "no error before 5 s and every bin >= 95% in both settings; errors after",
				check: func(f *facts) {
					f.healthy(0, f.at(0), "no-breaker", "breaker")
					for _, n := range []string{"no-breaker", "breaker"} {
						pre, in := f.window(n, 0, f.at(0)), f.window(n, f.at(0), f.at(1))
						f.want(pre.Errors == 0 && in.Errors > 0, "%s: %d errors before %g s, %d during", n, pre.Errors, f.at(0), in.Errors)
					}
				}},
			{Phase: During, Says: "Its outstanding count stays near zero, so least-outstanding sends it more and more: a sinkhole.",
				Checks: "no-breaker: s2's share over the run >= 0.24 although it fails for 7 of 20 s; over a quarter of the attempts in the failure fail",
				check: func(f *facts) {
					s, w := f.share("no-breaker", "s2"), f.window("no-breaker", f.at(0), f.at(1))
					f.want(s >= 0.24 && w.Errors*4 > w.Attempts, "no-breaker: s2's share %.3f, %d errors of %d attempts while it fails", s, w.Errors, w.Attempts)
				}},
			{Phase: During, Says: "With breakers on, s2's breaker opens after half of its last 20 results failed, half-opens after 1 s to let 3 probes through, re-opens while s2 still fails,",
				Checks: "breaker: s2's log starts closed -> open (within 1 s of 5 s), open -> half-open, half-open -> open; errors 10x below no-breaker's",
				check: func(f *facts) {
					log := f.logs("breaker", "breaker s2: ")
					want := []string{"closed -> open", "open -> half-open", "half-open -> open"}
					for i, w := range want {
						f.want(i < len(log) && log[i].Text == w, "breaker s2 transitions %v, want to start with %v", log, want)
					}
					if len(log) > 1 {
						f.want(log[0].T >= f.at(0) && log[0].T < f.at(0)+1, "s2's breaker opened at %.2f s", log[0].T)
						f.want(math.Abs(log[1].T-log[0].T-1) < 0.05, "s2's breaker half-opened %.2f s after opening, want 1 s", log[1].T-log[0].T)
					}
					on, off := f.run("breaker").Errors, f.run("no-breaker").Errors
					f.want(on*10 <= off, "breaker errors %d vs %d without", on, off)
				}},
			{Phase: After, Says: "and closes once s2 recovers at 12 s.",
				Checks: "breaker: the last s2 transition is half-open -> closed, after 12 s; both settings >= 95% per bin from 1 s after",
				check: func(f *facts) {
					log := f.logs("breaker", "breaker s2: ")
					f.want(len(log) > 0 && log[len(log)-1].Text == "half-open -> closed" && log[len(log)-1].T >= f.at(1),
						"s2's breaker transitions %v, want the last one half-open -> closed after %g s", log, f.at(1))
					f.healthy(f.at(1)+1, f.end(), "no-breaker", "breaker")
				}},
		},
		"hedging": {
			{Phase: Throughout, Says: "Service times are lognormal with a long tail.",
				Checks: "no-hedge: p99 over 4x p50",
				check: func(f *facts) {
					l := f.run("no-hedge").Latency
					f.want(l.P99 > 4*l.P50, "no-hedge: p50 %.1f, p99 %.1f ms", l.P50, l.P99)
				}},
			{Phase: Throughout, Says: "A hedge at the live p95 ... takes the first answer: p99 falls for a few percent more attempts.",
				Checks: "hedge-p95: p99 under 0.85x no-hedge's, 1.01 to 1.10 attempts per request",
				check: func(f *facts) {
					r := f.run("hedge-p95")
					f.want(r.Latency.P99 < 0.85*f.p99("no-hedge"), "hedge-p95 p99 %.1f ms vs %.1f ms", r.Latency.P99, f.p99("no-hedge"))
					f.want(r.AttemptsPerRequest > 1.01 && r.AttemptsPerRequest < 1.10, "hedge-p95: %.3f attempts per request", r.AttemptsPerRequest)
				}},
			{Phase: Throughout, Says: "Hedging after 1 ms copies nearly every request and doubles the work.",
				Checks: "hedge-1ms: >= 1.8 attempts per request",
				check: func(f *facts) {
					a := f.run("hedge-1ms").AttemptsPerRequest
					f.want(a >= 1.8, "hedge-1ms: %.3f attempts per request", a)
				}},
		},
		"adaptive": {
			{Phase: Throughout, Says: "Without a limit every server's queue grows for the whole run and latency with it.",
				Checks: "no-limit: the highest bin p99 of the last quarter of the run over 3x that of its first quarter, and over 1 s",
				check: func(f *facts) {
					q := f.end() / 4
					a, b := f.window("no-limit", 0, q), f.window("no-limit", 3*q, f.end())
					f.want(b.P99 > 3*a.P99 && b.P99 > 1000, "no-limit: bin p99 up to %.0f ms early, %.0f ms late", a.P99, b.P99)
				}},
			{Phase: Throughout, Says: "An adaptive concurrency limit finds the knee and answers the excess with a fast 503, so the requests it admits stay quick.",
				Checks: "aimd, gradient2: 503s, goodput >= 0.7, p99 5x below no-limit's and under 500 ms in the last quarter",
				check: func(f *facts) {
					q := f.end() / 4
					for _, n := range []string{"aimd", "gradient2"} {
						r, w := f.run(n), f.window(n, 3*q, f.end())
						f.want(r.Rejected > 0 && r.Goodput >= 0.7, "%s: %d rejected, goodput %.3f", n, r.Rejected, r.Goodput)
						f.want(5*r.Latency.P99 <= f.p99("no-limit") && w.P99 < 500, "%s: p99 %.1f ms (no limit %.1f), late bins up to %.0f ms", n, r.Latency.P99, f.p99("no-limit"), w.P99)
					}
				}},
		},
		"shedding": {
			{Phase: Throughout, Says: "An unbounded FIFO queue soon holds only requests whose clients have left, and serves them anyway.",
				Checks: "unbounded-fifo: goodput under 5% after the first quarter, over half its attempts wasted",
				check: func(f *facts) {
					w := f.window("unbounded-fifo", f.end()/4, f.end())
					f.serverWaste()
					f.want(w.Goodput() < 0.05 && 2*w.Wasted > w.Attempts, "unbounded-fifo: goodput %.3f, %d of %d attempts wasted", w.Goodput(), w.Wasted, w.Attempts)
				}},
			{Phase: Throughout, Says: "A bounded queue rejects the excess at once and LIFO serves the newest first: both keep most requests within the deadline.",
				Checks: "bounded-fifo rejects (503s); bounded-fifo and bounded-lifo goodput >= 0.6",
				check: func(f *facts) {
					f.want(f.run("bounded-fifo").Rejected > 0, "bounded-fifo rejected nothing")
					for _, n := range []string{"bounded-fifo", "bounded-lifo"} {
						f.want(f.run(n).Goodput >= 0.6, "%s: goodput %.3f", n, f.run(n).Goodput)
					}
				}},
			{Phase: Throughout, Says: "Dropping expired requests skips the dead ones, but a FIFO queue then serves requests just before they expire, too late to help;",
				Checks: "fifo-drop-expired: less waste than unbounded-fifo but goodput under 0.3",
				check: func(f *facts) {
					r, u := f.run("fifo-drop-expired"), f.run("unbounded-fifo")
					f.serverWaste()
					f.want(r.Wasted < u.Wasted && r.Goodput < 0.3, "fifo-drop-expired: %d wasted (unbounded %d), goodput %.3f", r.Wasted, u.Wasted, r.Goodput)
				}},
			{Phase: Throughout, Says: "with LIFO ... it keeps most of the goodput and wastes no work.",
				Checks: "lifo-drop-expired: goodput >= 0.6, under 0.5% of attempts wasted",
				check: func(f *facts) {
					r := f.run("lifo-drop-expired")
					f.serverWaste()
					f.want(r.Goodput >= 0.6 && float64(r.Wasted) < 0.005*float64(r.Attempts), "lifo-drop-expired: goodput %.3f, %d of %d attempts wasted", r.Goodput, r.Wasted, r.Attempts)
				}},
		},
		"slow-server": {
			{Phase: Throughout, Says: "Each server has 4 workers and 24 queue slots, so a full queue answers 503.",
				Checks: "round-robin sends slow 0.2 +- 0.01 and gets 503s",
				check: func(f *facts) {
					s := f.share("round-robin", "slow")
					f.want(math.Abs(s-0.2) <= 0.01 && f.run("round-robin").Rejected > 0, "round-robin: slow's share %.3f, %d rejected", s, f.run("round-robin").Rejected)
				}},
			{Phase: Throughout, Says: "Watch which algorithms notice it and how many 503s each one causes.",
				Checks: "least-outstanding, p2c, p2c-peak-ewma, weighted-round-robin, least-response-time: slow's share under 0.13, fewer 503s than round robin",
				check: func(f *facts) {
					for _, n := range []string{"least-outstanding", "p2c", "p2c-peak-ewma", "weighted-round-robin", "least-response-time"} {
						s, rej := f.share(n, "slow"), f.run(n).Rejected
						f.want(s < 0.13 && rej < f.run("round-robin").Rejected, "%s: slow's share %.3f, %d rejected (round robin %d)", n, s, rej, f.run("round-robin").Rejected)
					}
				}},
		},
		"mixed-fleet": {
			{Phase: Throughout, Says: "Round robin and random split requests evenly, so the slow half works twice as hard;",
				Checks: "round-robin sends the fast half 0.5 +- 0.01, random 0.5 +- 0.03",
				check: func(f *facts) {
					for n, tol := range map[string]float64{"round-robin": 0.01, "random": 0.03} {
						s := fastHalf(f, n)
						f.want(math.Abs(s-0.5) <= tol, "%s sends %.3f to the fast half", n, s)
					}
				}},
			{Phase: Throughout, Says: "weighted round robin follows the weights (the speeds);",
				Checks: "weighted-round-robin sends the fast half 2/3 +- 0.01",
				check: func(f *facts) {
					s := fastHalf(f, "weighted-round-robin")
					f.want(math.Abs(s-2.0/3) <= 0.01, "weighted-round-robin sends %.3f to the fast half", s)
				}},
			{Phase: Throughout, Says: "least-outstanding and P2C find the fast half on their own.",
				Checks: "least-outstanding, p2c, p2c-peak-ewma send the fast half over 0.55",
				check: func(f *facts) {
					for _, n := range []string{"least-outstanding", "p2c", "p2c-peak-ewma"} {
						s := fastHalf(f, n)
						f.want(s > 0.55, "%s sends %.3f to the fast half", n, s)
					}
				}},
		},
		"client-side": {
			{Phase: Throughout, Says: "Random ignores load; p2c-stale uses the piggybacked counts when they are fresh",
				Checks: "client-p2c-stale's p99 under 0.8x client-random's",
				check: func(f *facts) {
					f.want(f.p99("client-p2c-stale") < 0.8*f.p99("client-random"), "p2c-stale p99 %.1f ms, random %.1f ms", f.p99("client-p2c-stale"), f.p99("client-random"))
				}},
			{Phase: Throughout, Says: "Random subsets give some servers more clients than others (16 to 32 here) and so more load;",
				Checks: "client-p2c: clients per server spread by >= 8; cv of the shares over twice the aperture's",
				check: func(f *facts) {
					lo, hi := f.peers("client-p2c")
					f.want(hi-lo >= 8, "random subsets: %d to %d clients per server", lo, hi)
					f.want(f.spread("client-p2c") > 2*f.spread("client-p2c-aperture"), "cv of the shares: subsets %.3f, aperture %.3f", f.spread("client-p2c"), f.spread("client-p2c-aperture"))
				}},
			{Phase: Throughout, Says: "an aperture of 5 (Finagle's deterministic subsetting) gives every server the same number of clients (29) and the same load.",
				Checks: "client-p2c-aperture: 28 to 29 clients per server, cv of the shares under 0.03",
				check: func(f *facts) {
					lo, hi := f.peers("client-p2c-aperture")
					f.want(lo >= 28 && hi <= 29, "aperture: %d to %d clients per server", lo, hi)
					f.want(f.spread("client-p2c-aperture") < 0.03, "aperture: cv of the shares %.3f", f.spread("client-p2c-aperture"))
				}},
			{Phase: Throughout, Says: "Two balancers in front see every request and keep fresh counts, at the price of an extra hop.",
				Checks: "balancers-p2c: p99 under client-p2c-stale's, each server talks to 2 balancers",
				check: func(f *facts) {
					f.want(f.p99("balancers-p2c") < f.p99("client-p2c-stale"), "balancers p99 %.1f ms, stale clients %.1f ms", f.p99("balancers-p2c"), f.p99("client-p2c-stale"))
					lo, hi := f.peers("balancers-p2c")
					f.want(lo == 2 && hi == 2, "balancers-p2c: servers talk to %d to %d balancers", lo, hi)
				}},
		},
		"handshakes": {
			{Phase: Throughout, Says: "With a subset of 5 it meets each server often enough to keep most of its connections warm; picking from all 20 it meets each one rarely and pays a handshake on two requests in three,",
				Checks: "all-20 pays >= 0.5 handshakes per request and twice subset-5's",
				check: func(f *facts) {
					s, a := f.connections("subset-5").PerRequest, f.connections("all-20").PerRequest
					f.want(a >= 0.5 && a >= 2*s, "handshakes per request: subset %.3f, all 20 %.3f", s, a)
				}},
			{Phase: Throughout, Says: "so the best-balanced choice is dearer than it looks (all-20-free is the same without the cost).",
				Some:   true,
				Checks: "subset-5 beats all-20 at p50 and p99; all-20-free beats subset-5 at both",
				check: func(f *facts) {
					s, a, fr := f.run("subset-5").Latency, f.run("all-20").Latency, f.run("all-20-free").Latency
					f.want(s.P50 < a.P50 && s.P99 < a.P99, "subset p50/p99 %.1f/%.1f ms, all 20 %.1f/%.1f", s.P50, s.P99, a.P50, a.P99)
					f.want(fr.P50 < s.P50 && fr.P99 < s.P99, "all-20-free p50/p99 %.1f/%.1f ms, subset %.1f/%.1f", fr.P50, fr.P99, s.P50, s.P99)
				}},
			{Phase: Throughout, Says: "An aperture of 5 ... pays about as few handshakes, and spreads the load as evenly as picking from all 20.",
				Some:   true,
				Checks: "aperture-5: handshakes per request <= 1.25x subset-5's; cv of shares under half the subset's and <= 1.25x all-20's",
				check: func(f *facts) {
					a, s := f.connections("aperture-5").PerRequest, f.connections("subset-5").PerRequest
					f.want(a <= 1.25*s, "handshakes per request: aperture %.3f, subset %.3f", a, s)
					ap, sub, all := f.spread("aperture-5"), f.spread("subset-5"), f.spread("all-20")
					f.want(2*ap <= sub && ap <= 1.25*all, "cv of the shares: aperture %.3f, subset %.3f, all 20 %.3f", ap, sub, all)
				}},
			{Phase: Throughout, Says: "Sticking to a pick for 10 requests saves most handshakes but balances on older news: watch its p99.9.",
				Some:   true,
				Checks: "all-20-sticky: under a third of all-20's handshakes per request, p99.9 above all-20's",
				check: func(f *facts) {
					s, a := f.connections("all-20-sticky").PerRequest, f.connections("all-20").PerRequest
					f.want(3*s < a, "handshakes per request: sticky %.3f, all 20 %.3f", s, a)
					f.want(f.run("all-20-sticky").Latency.P999 > f.run("all-20").Latency.P999, "p99.9: sticky %.1f ms, all 20 %.1f ms", f.run("all-20-sticky").Latency.P999, f.run("all-20").Latency.P999)
				}},
			{Phase: Throughout, Says: "Two balancers keep warm connections to every server and the clients keep theirs to a balancer: nearly no handshakes,",
				Checks: "balancers-2: the clients open under half a subset's connections per request",
				check: func(f *facts) {
					c, s := f.connections("balancers-2"), f.connections("subset-5").PerRequest
					per := float64(c.ByClients) / math.Max(1, float64(f.run("balancers-2").Requests))
					f.want(per < s/2, "balancers-2: clients open %.3f per request, subset %.3f", per, s)
				}},
			{Phase: Throughout, Says: "Over TCP that hop costs about what the cold clients' handshakes do; with TLS the balancers win.",
				Some:   true,
				Checks: "balancers-2 p99 within 10% of all-20's; balancers-2-tls beats all-20-tls at p50, mean and p99",
				check: func(f *facts) {
					b, a := f.p99("balancers-2"), f.p99("all-20")
					f.want(math.Abs(b-a) <= 0.1*a, "TCP p99: balancers %.1f ms, all 20 %.1f ms", b, a)
					l, t := f.run("balancers-2-tls").Latency, f.run("all-20-tls").Latency
					f.want(l.P50 < t.P50 && l.Mean < t.Mean && l.P99 < t.P99, "TLS: balancers p50/mean/p99 %.1f/%.1f/%.1f ms, all 20 %.1f/%.1f/%.1f", l.P50, l.Mean, l.P99, t.P50, t.Mean, t.P99)
				}},
		},
		"gray-failure": {
			{Phase: Before, Says: "At 4 s the server \"gray\" drops to a quarter of its speed.",
				Checks: "before 4 s every bin of every setting has >= 95% goodput",
				check: func(f *facts) {
					f.healthy(0, f.at(0), f.settings()...)
				}},
			{Phase: During, Says: "It still answers every request with a 200, only slowly: a gray failure. Round robin keeps giving it a fifth of the traffic, its queue grows and so does the tail.",
				Checks: "round-robin: no error, gray's share 0.2 +- 0.01, highest bin p99 after 4 s over 10x that before",
				check: func(f *facts) {
					r, s := f.run("round-robin"), f.share("round-robin", "gray")
					f.want(r.Errors == 0 && math.Abs(s-0.2) <= 0.01, "round-robin: %d errors, gray's share %.3f", r.Errors, s)
					a, b := f.window("round-robin", 0, f.at(0)), f.window("round-robin", f.at(0), f.end())
					f.want(b.P99 > 10*a.P99, "round-robin: bin p99 up to %.0f ms before, %.0f ms after", a.P99, b.P99)
				}},
			{Phase: During, Says: "Circuit breakers count failures, and there are none, so they never open.",
				Checks: "breaker: no breaker transition logged, no error, p99 within 10% of round robin's",
				check: func(f *facts) {
					_, text, ok := f.logAt("breaker", "breaker ")
					f.want(!ok, "a breaker moved: %s", text)
					b, r := f.p99("breaker"), f.p99("round-robin")
					f.want(f.run("breaker").Errors == 0 && math.Abs(b-r) <= 0.1*r, "breaker: %d errors, p99 %.1f ms vs %.1f", f.run("breaker").Errors, b, r)
				}},
			{Phase: After, Says: "Outlier ejection compares each server's mean latency with its peers' every second and ejects gray once it is more than 1.5 standard deviations above the mean, for 5 s, then 10 s, and so on.", Some: true,
				Checks: "outlier (round robin with ejection): gray's first ejection is for 5 s, within 2 s of 4 s; a later one for 10 s",
				check:  func(f *facts) { ejectsGray(f, "outlier") }},
			{Phase: After, Says: "Outlier ejection ... ejects gray ... for 5 s, then 10 s", Some: true,
				Checks: "p2c-peak-ewma+outlier: as for outlier",
				check:  func(f *facts) { ejectsGray(f, "p2c-peak-ewma+outlier") }},
			{Phase: After, Says: "p2c-peak-ewma routes around gray on its own, with or without ejection.",
				Checks: "p2c-peak-ewma, p2c-peak-ewma+outlier: gray's share under 0.1, p99 5x below round robin's",
				check: func(f *facts) {
					for _, n := range []string{"p2c-peak-ewma", "p2c-peak-ewma+outlier"} {
						s := f.share(n, "gray")
						f.want(s < 0.1 && 5*f.p99(n) <= f.p99("round-robin"), "%s: gray's share %.3f, p99 %.1f ms (round robin %.1f)", n, s, f.p99(n), f.p99("round-robin"))
					}
				}},
		},
		"slow-start": {
			{Phase: Before, Says: "The load ramps up to 2000 requests/s at 4 s, once the caches are warm.",
				Checks: "every setting: every bin >= 95% until the kill at 6 s; 2000 +- 10% requests/s offered from 4 s to 6 s",
				check: func(f *facts) {
					f.healthy(0, f.at(1), f.settings()...)
					for _, n := range f.settings() {
						w := f.window(n, f.at(0), f.at(1))
						rate := float64(w.Offered) / (f.at(1) - f.at(0))
						f.want(math.Abs(rate-2000) <= 200, "%s: %.0f requests/s offered after the ramp", n, rate)
					}
				}},
			{Phase: During, Says: "At 6 s s5 is killed; at 9 s it restarts with an empty cache and the health checks put it back in rotation at their next round, within half a second.",
				Checks: "every setting logs \"health s5: up\" within 0.6 s of the restart (a round every 500 ms, and a live restart's few ms)",
				check: func(f *facts) {
					for _, n := range f.settings() {
						t, _, ok := f.logAt(n, "health s5: up")
						f.want(ok && t >= f.at(2) && t <= f.at(2)+0.6, "%s: s5 back in rotation at %.2f s (logged: %v)", n, t, ok)
					}
				}},
			{Phase: After, Says: "Weighted round robin hands it a full fifth of the traffic at once: its queue grows for seconds while its cache warms.",
				Checks: "weighted-round-robin: s5 holds >= 40 requests in the 5 s after the restart, 4x what it holds with slow start; the highest bin p99 then 1.5x wrr+slow-start's",
				check: func(f *facts) {
					n, ss := f.inServer("weighted-round-robin", "s5", f.at(2), f.at(2)+5), f.inServer("wrr+slow-start", "s5", f.at(2), f.at(2)+5)
					f.want(n >= 40 && n >= 4*ss, "s5 held at most %d after the restart (with slow start %d)", n, ss)
					a, b := f.window("weighted-round-robin", f.at(2), f.at(2)+5), f.window("wrr+slow-start", f.at(2), f.at(2)+5)
					f.want(a.P99 >= 1.5*b.P99, "bin p99 after the restart: wrr up to %.1f ms, with slow start %.1f ms", a.P99, b.P99)
				}},
			{Phase: After, Says: "With slow start its weight ramps from a tenth to full over 10 s and its queue stays short.",
				Checks: "wrr+slow-start: s5 holds at most 10; its share under weighted round robin's",
				check: func(f *facts) {
					n := f.inServer("wrr+slow-start", "s5", f.at(2), f.at(2)+5)
					f.want(n <= 10, "wrr+slow-start: s5 held up to %d after the restart", n)
					f.want(f.share("wrr+slow-start", "s5") < f.share("weighted-round-robin", "s5"), "s5's share with slow start %.3f, without %.3f", f.share("wrr+slow-start", "s5"), f.share("weighted-round-robin", "s5"))
				}},
			{Phase: After, Says: "p2c sees the queue building and partly protects it on its own; slow start protects it from the first request.",
				Checks: "p2c: s5 holds at most 20; p2c+slow-start less than p2c",
				check: func(f *facts) {
					a, b := f.inServer("p2c", "s5", f.at(2), f.at(2)+5), f.inServer("p2c+slow-start", "s5", f.at(2), f.at(2)+5)
					f.want(a <= 20 && b < a, "s5 held up to %d under p2c, %d with slow start", a, b)
				}},
		},
		"balls-bins": {
			{Phase: Throughout, Says: "Nothing ever finishes: each request stays where it was put.",
				Checks: "no request succeeds in any setting",
				check: func(f *facts) {
					for _, n := range f.settings() {
						f.want(f.run(n).Succeeded == 0, "%s: %d requests finished", n, f.run(n).Succeeded)
					}
				}},
			{Phase: Throughout, Says: "With one random choice the fullest of 1,000 bins ends far above the average of 100;",
				Checks: "one-choice: fullest bin >= average + 20",
				check: func(f *facts) {
					most, mean := fullest(f, "one-choice")
					f.want(most >= mean+20, "one choice: fullest %.0f, average %.1f", most, mean)
				}},
			{Phase: Throughout, Says: "with two choices (pick the emptier of two) it stays within a few;",
				Checks: "two-choices: fullest bin <= average + 3",
				check: func(f *facts) {
					most, mean := fullest(f, "two-choices")
					f.want(most <= mean+3, "two choices: fullest %.0f, average %.1f", most, mean)
				}},
			{Phase: Throughout, Says: "a third choice helps only a little more",
				Checks: "three-choices: fullest bin no fuller than two choices', and at most 2 less",
				check: func(f *facts) {
					two, _ := fullest(f, "two-choices")
					three, _ := fullest(f, "three-choices")
					f.want(three <= two && two-three <= 2, "fullest: two choices %.0f, three %.0f", two, three)
				}},
		},
		"playground": {
			{Phase: Throughout, Says: "Nothing happens on its own here",
				Checks: "every bin >= 95% goodput, every request succeeds, no bin's p99 over 3x the run's",
				check: func(f *facts) {
					n := f.settings()
					for _, name := range n {
						f.healthy(0, f.end(), name)
						r := f.run(name)
						w := f.window(name, 1, f.end())
						f.want(r.Goodput >= 0.999 && w.P99 <= 3*r.Latency.P99, "%s: goodput %.4f, worst bin p99 %.1f ms (run %.1f ms)", name, r.Goodput, w.P99, r.Latency.P99)
					}
				}},
		},
	}
	addFailModeClaims(m)
	addReportedLoadClaims(m)
	addZoneClaims(m)
	for name, cs := range rankingClaims() {
		m[name] = append(m[name], cs...)
	}
	return m
}

// ejectsGray wants gray-failure's setting n to eject gray for 5 s within
// 2 s of the slowdown, and later for 10 s.
func ejectsGray(f *facts, n string) {
	t, text, ok := f.logAt(n, "outlier gray: ")
	f.want(ok && t >= f.at(0) && t <= f.at(0)+2, "%s: gray's first ejection %q at %.2f s", n, text, t)
	f.want(ok && strings.HasPrefix(text, "outlier gray: ejected for 5s"), "%s: gray's first ejection %q, want for 5s", n, text)
	_, _, again := f.logAt(n, "outlier gray: ejected for 10s")
	f.want(again, "%s: gray never ejected again for 10 s", n)
}

// fastHalf is the share setting name sends to mixed-fleet's fast half.
func fastHalf(f *facts, name string) float64 {
	return f.share(name, "s1") + f.share(name, "s2") + f.share(name, "s3")
}

// fullest is setting name's most-sent server and the average.
func fullest(f *facts, name string) (most, mean float64) {
	r := f.run(name)
	for _, s := range r.Servers {
		most = math.Max(most, float64(s.Sent))
		mean += float64(s.Sent)
	}
	if len(r.Servers) > 0 {
		mean /= float64(len(r.Servers))
	}
	return most, mean
}
