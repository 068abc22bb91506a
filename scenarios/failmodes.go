package scenarios

import "math"

// The claims of the scenarios drawn from balancing failures users have
// reported in proxies' trackers (each lab file's narration cites its
// report). Each compares the setting with the model feature the failure
// needs against lblab's default, before, during and after the trigger.
func addFailModeClaims(claims map[string][]Claim) {
	claims["p2c-replacement"] = []Claim{
		{Phase: Before, Says: "While both servers are healthy it does not matter.",
			Checks: "before 5 s both settings have >= 95% goodput in every bin, and the highest bin p99 of replacement is within 1.5x of distinct's",
			check: func(f *facts) {
				f.healthy(0, f.at(0), "distinct", "replacement")
				d, r := f.window("distinct", 0, f.at(0)), f.window("replacement", 0, f.at(0))
				f.want(r.P99 <= 1.5*d.P99, "bin p99 before the slowdown: replacement %.0f ms, distinct %.0f ms", r.P99, d.P99)
			}},
		{Phase: Before, Says: "While both servers are healthy it does not matter.",
			Checks: "(per-server series) before 5 s neither setting holds over 10 requests in s2",
			check: func(f *facts) {
				for _, n := range []string{"distinct", "replacement"} {
					f.want(f.inServer(n, "s2", 0, f.at(0)) <= 10, "%s: s2 held %d before the slowdown", n, f.inServer(n, "s2", 0, f.at(0)))
				}
			}},
		{Phase: During, Says: "drawn with replacement, it still gets at least a quarter of the requests, more than it can now finish, and its queue and the tail grow for as long as the slowdown lasts;",
			Checks: "replacement: p99 over the run over 3x distinct's; its highest bin p99 in the slowdown's second half over that of its first",
			check: func(f *facts) {
				from, to := f.at(0), f.until(0)
				f.want(f.p99("replacement") >= 3*f.p99("distinct"), "p99: replacement %.0f ms, distinct %.0f ms", f.p99("replacement"), f.p99("distinct"))
				a, b := f.window("replacement", from, (from+to)/2), f.window("replacement", (from+to)/2, to)
				f.want(b.P99 > a.P99, "replacement: bin p99 up to %.0f ms in the first half of the slowdown, %.0f ms in the second", a.P99, b.P99)
			}},
		{Phase: During, Says: "drawn with replacement, it still gets at least a quarter of the requests, more than it can now finish, and its queue and the tail grow for as long as the slowdown lasts;",
			Checks: "(per-server series) replacement: s2 holds >= 50, and more in the slowdown's second half than in its first",
			check: func(f *facts) {
				from, to := f.at(0), f.until(0)
				mid := (from + to) / 2
				a, b := f.inServer("replacement", "s2", from, mid), f.inServer("replacement", "s2", mid, to)
				f.want(b >= 50 && b > a, "replacement: s2 held up to %d in the first half of the slowdown, %d in the second", a, b)
			}},
		{Phase: During, Says: "lblab's distinct draws always compare both servers and send it only what it can take.",
			Checks: "distinct: every bin of the slowdown >= 95% goodput, its highest bin p99 there 1.5x below replacement's",
			check: func(f *facts) {
				from, to := f.at(0), f.until(0)
				f.healthy(from, to, "distinct")
				d, r := f.window("distinct", from, to), f.window("replacement", from, to)
				f.want(1.5*d.P99 <= r.P99, "bin p99 in the slowdown: distinct %.0f ms, replacement %.0f ms", d.P99, r.P99)
			}},
		{Phase: During, Says: "lblab's distinct draws always compare both servers and send it only what it can take.",
			Checks: "(per-server series) distinct: s2 holds at most 15 in the slowdown, a fifth of what it holds with replacement",
			check: func(f *facts) {
				from, to := f.at(0), f.until(0)
				d, r := f.inServer("distinct", "s2", from, to), f.inServer("replacement", "s2", from, to)
				f.want(d <= 15 && 5*d <= r, "s2 held up to %d under distinct draws, %d with replacement", d, r)
			}},
		{Phase: After, Says: "Once s2 is back to full speed its queue drains within a few seconds.",
			Checks: "from 3 s after the slowdown ends: both settings >= 95% per bin, replacement's highest bin p99 within 1.5x of distinct's",
			check: func(f *facts) {
				from := f.until(0) + 3
				f.healthy(from, f.end(), "distinct", "replacement")
				d, r := f.window("distinct", from, f.end()), f.window("replacement", from, f.end())
				f.want(r.P99 <= 1.5*d.P99, "bin p99 after the slowdown: replacement %.0f ms, distinct %.0f ms", r.P99, d.P99)
			}},
		{Phase: After, Says: "Once s2 is back to full speed its queue drains within a few seconds.",
			Checks: "(per-server series) from 3 s after the slowdown ends s2 holds at most 10 in both settings",
			check: func(f *facts) {
				from := f.until(0) + 3
				for _, n := range []string{"distinct", "replacement"} {
					f.want(f.inServer(n, "s2", from, f.end()) <= 10, "%s: s2 held %d after the slowdown", n, f.inServer(n, "s2", from, f.end()))
				}
			}},
	}
	claims["ewma-fast-failure"] = []Claim{
		{Phase: Before, Says: "Before 5 s every server answers in about 20 ms and the traffic is even.",
			Checks: "before 5 s both settings have >= 95% goodput in every bin and no error (virtually the same series: the penalty changes nothing while nothing fails)",
			check: func(f *facts) {
				f.healthy(0, f.at(0), "peak-ewma", "failure-penalty")
				a, b := f.window("peak-ewma", 0, f.at(0)), f.window("failure-penalty", 0, f.at(0))
				f.want(a.Errors == 0 && b.Errors == 0, "errors before the failure: peak-ewma %d, failure-penalty %d", a.Errors, b.Errors)
			}},
		{Phase: During, Says: "its latency average falls and it looks like the fastest server, so it wins nearly every pair it is drawn in and takes over a third of the traffic,",
			Checks: "peak-ewma: over 30% of the requests that end in the failure fail (s2's share: no retries); s2's share over the run above every other server's",
			check: func(f *facts) {
				w := f.window("peak-ewma", f.at(0), f.until(0))
				f.want(float64(w.Errors) >= 0.3*float64(w.Ended), "peak-ewma: %d of %d requests failed in the failure", w.Errors, w.Ended)
				s2 := f.share("peak-ewma", "s2")
				for _, s := range []string{"s1", "s3", "s4", "s5"} {
					f.want(s2 > f.share("peak-ewma", s), "peak-ewma: s2's share %.3f, %s's %.3f", s2, s, f.share("peak-ewma", s))
				}
			}},
		{Phase: During, Says: "With a failure penalty of 1 s every failed answer counts as a 1 s response in s2's average, so it looks slow at its first error and gets only the rare request that probes it once its average has decayed: far fewer requests fail.",
			Checks: "failure-penalty: at most 5% of the requests that end in the failure fail, 8x fewer than peak-ewma's",
			check: func(f *facts) {
				p, w := f.window("failure-penalty", f.at(0), f.until(0)), f.window("peak-ewma", f.at(0), f.until(0))
				f.want(float64(p.Errors) <= 0.05*float64(p.Ended) && 8*p.Errors <= w.Errors, "failures in the failure: failure-penalty %d of %d, peak-ewma %d", p.Errors, p.Ended, w.Errors)
			}},
		{Phase: During, Says: "With a failure penalty of 1 s every failed answer counts as a 1 s response in s2's average, so it looks slow at its first error and gets only the rare request that probes it",
			Checks: "(per-server series) failure-penalty: from 0.5 s into the failure s2 holds no request at the end of any bin",
			check: func(f *facts) {
				f.want(f.inServer("failure-penalty", "s2", f.at(0)+0.5, f.until(0)) == 0, "failure-penalty: s2 held %d in the failure", f.inServer("failure-penalty", "s2", f.at(0)+0.5, f.until(0)))
			}},
		{Phase: After, Says: "Once s2 recovers at 12 s its average decays back within a few seconds, and both settings are even and healthy again.",
			Checks: "from 3 s after the recovery: both settings >= 95% per bin, no error",
			check: func(f *facts) {
				from := f.until(0) + 3
				f.healthy(from, f.end(), "peak-ewma", "failure-penalty")
				a, b := f.window("peak-ewma", from, f.end()), f.window("failure-penalty", from, f.end())
				f.want(a.Errors == 0 && b.Errors == 0, "errors after the recovery: peak-ewma %d, failure-penalty %d", a.Errors, b.Errors)
			}},
		{Phase: After, Says: "Once s2 recovers at 12 s its average decays back within a few seconds, and both settings are even and healthy again.",
			Checks: "(per-server series) from 3 s after the recovery s2 holds requests again in both settings",
			check: func(f *facts) {
				from := f.until(0) + 3
				for _, n := range []string{"peak-ewma", "failure-penalty"} {
					f.want(f.inServer(n, "s2", from, f.end()) > 0, "%s: s2 holds nothing after the recovery", n)
				}
			}},
	}
	claims["grpc-scale-up"] = []Claim{
		{Phase: Before, Says: "Before 5 s that is even enough and every request succeeds.",
			Checks: "before 5 s every setting has >= 95% goodput in every bin and no failure",
			check: func(f *facts) {
				f.healthy(0, f.at(0), f.settings()...)
				for _, n := range f.settings() {
					w := f.window(n, 0, f.at(0))
					f.want(w.Succeeded == w.Ended, "%s before the jump: %d of %d succeeded", n, w.Succeeded, w.Ended)
				}
			}},
		{Phase: During, Says: "The clients keep their connections, so the new servers get nothing, the old three queue and the tail grows to seconds",
			Checks: "per-connection: s4, s5 and s6 get no attempt; the highest bin p99 of the spike's second half over 1 s and over that of its first",
			check: func(f *facts) {
				f.want(newShare(f, "per-connection") == 0, "per-connection: the new servers took %.3f", newShare(f, "per-connection"))
				from, to := f.at(0), f.until(0)
				a, b := f.window("per-connection", from, (from+to)/2), f.window("per-connection", (from+to)/2, to)
				f.want(b.P99 > 1000 && b.P99 > a.P99, "per-connection: bin p99 up to %.0f ms in the first half of the spike, %.0f ms in the second", a.P99, b.P99)
			}},
		{Phase: During, Says: "The clients keep their connections, so the new servers get nothing, the old three queue",
			Checks: "(per-server series) per-connection: an old server holds >= 100 in the spike",
			check: func(f *facts) {
				from, to := f.at(0), f.until(0)
				f.want(oldMost(f, "per-connection", from, to) >= 100, "per-connection: the old servers held at most %d in the spike", oldMost(f, "per-connection", from, to))
			}},
		{Phase: During, Says: "With a maximum connection age of 2 s (sticky_age, gRPC's MAX_CONNECTION_AGE) each client picks again within about 2 s, the new servers take their part of the load, the old three's queues drain within 3 s of the jump and from then on the tail stays under half a second, if not as short as when every request is balanced:",
			Checks: "max-age-2s: the new servers take >= 30% of the attempts (per-request: >= 35%); from 3 s after the jump to the spike's end the highest bin p99 is under 500 ms",
			check: func(f *facts) {
				f.want(newShare(f, "max-age-2s") >= 0.3 && newShare(f, "per-request") >= 0.35, "the new servers took %.3f with max-age-2s, %.3f per request", newShare(f, "max-age-2s"), newShare(f, "per-request"))
				from, to := f.at(0)+3, f.until(0)
				m := f.window("max-age-2s", from, to)
				f.want(m.P99 < 500, "max-age-2s: bin p99 up to %.0f ms from 3 s into the spike", m.P99)
			}},
		{Phase: During, Says: "the old three's queues drain within 3 s of the jump",
			Checks: "(per-server series) max-age-2s: from 3 s after the jump to the spike's end no old server holds over 60 (per-connection: >= 100)",
			check: func(f *facts) {
				from, to := f.at(0)+3, f.until(0)
				f.want(oldMost(f, "max-age-2s", from, to) <= 60, "max-age-2s: an old server held %d after the first 3 s of the spike", oldMost(f, "max-age-2s", from, to))
			}},
		{Phase: After, Says: "After the spike the new servers still get nothing from the clients that never reconnect.",
			Checks: "(per-server series) after the spike: per-connection's new servers hold nothing at the end of any bin, max-age-2s's and per-request's hold requests",
			check: func(f *facts) {
				from := f.until(0)
				f.want(newMost(f, "per-connection", from, f.end()) == 0, "per-connection: the new servers held %d after the spike", newMost(f, "per-connection", from, f.end()))
				for _, n := range []string{"max-age-2s", "per-request"} {
					f.want(newMost(f, n, from, f.end()) > 0, "%s: the new servers held nothing after the spike", n)
				}
			}},
		{Phase: After, Says: "After the spike the new servers still get nothing from the clients that never reconnect.",
			Checks: "from 1 s after the spike: max-age-2s is healthy with a highest bin p99 within 2x of per-request's; per-connection's p99 over the run 5x per-request's",
			check: func(f *facts) {
				from := f.until(0)
				f.want(f.p99("per-connection") >= 5*f.p99("per-request"), "p99: per-connection %.0f ms, per-request %.0f ms", f.p99("per-connection"), f.p99("per-request"))
				f.healthy(from+1, f.end(), "max-age-2s")
				m, r := f.window("max-age-2s", from+1, f.end()), f.window("per-request", from+1, f.end())
				f.want(m.P99 <= 2*r.P99, "bin p99 after the spike: max-age-2s %.0f ms, per-request %.0f ms", m.P99, r.P99)
			}},
	}
	claims["retry-same-host"] = []Claim{
		{Phase: Before, Says: "Before 5 s every request succeeds at once.",
			Checks: "before 5 s every setting: every request that ends succeeds, no retry, >= 95% goodput in every bin",
			check: func(f *facts) {
				f.healthy(0, f.at(0), f.settings()...)
				for _, n := range f.settings() {
					w := f.window(n, 0, f.at(0))
					f.want(w.Succeeded == w.Ended && w.Retries == 0, "%s before the failure: %d of %d succeeded, %d retries", n, w.Succeeded, w.Ended, w.Retries)
				}
			}},
		{Phase: During, Says: "With ring hash every retry of a key goes to the key's owner, so the requests whose keys s2 owns fail three times over;",
			Checks: "ring-hash: over 2% of the requests that end in the failure fail, and its 5xx there are at least 2.9x its failed requests (three attempts each)",
			check: func(f *facts) {
				w := f.window("ring-hash", f.at(0), f.until(0))
				failed := w.Ended - w.Succeeded
				f.want(float64(failed) > 0.02*float64(w.Ended) && float64(w.Errors) >= 2.9*float64(failed), "ring-hash in the failure: %d of %d requests failed, %d 5xx", failed, w.Ended, w.Errors)
			}},
		{Phase: During, Says: "with p2c-peak-ewma s2 answers fast, looks fast, and catches a share of the retries too.",
			Checks: "p2c-peak-ewma: over 1% of the requests that end in the failure fail after their two retries",
			check: func(f *facts) {
				w := f.window("p2c-peak-ewma", f.at(0), f.until(0))
				failed := w.Ended - w.Succeeded
				f.want(float64(failed) > 0.01*float64(w.Ended), "p2c-peak-ewma in the failure: %d of %d requests failed", failed, w.Ended)
			}},
		{Phase: During, Says: "Retries that avoid the previous host (retry_other, Envoy's previous_hosts predicate) land elsewhere and nearly every request succeeds.",
			Checks: "ring-hash+retry-other and p2c-peak-ewma+retry-other: >= 95% goodput in every bin of the failure, at most 0.2% of its requests fail, 10x fewer than without retry_other",
			check: func(f *facts) {
				for _, n := range []string{"ring-hash", "p2c-peak-ewma"} {
					a, b := f.window(n, f.at(0), f.until(0)), f.window(n+"+retry-other", f.at(0), f.until(0))
					fa, fb := a.Ended-a.Succeeded, b.Ended-b.Succeeded
					f.want(float64(fb) <= 0.002*float64(b.Ended) && 10*fb <= fa, "in the failure %s lost %d requests, %s+retry-other %d of %d", n, fa, n, fb, b.Ended)
					f.healthy(f.at(0), f.until(0), n+"+retry-other")
				}
			}},
		{Phase: After, Says: "Once s2 recovers at 12 s every setting is healthy again.",
			Checks: "from 0.5 s after the recovery: every setting has >= 95% goodput in every bin and no 5xx",
			check: func(f *facts) {
				from := f.until(0) + 0.5
				f.healthy(from, f.end(), f.settings()...)
				for _, n := range f.settings() {
					w := f.window(n, from, f.end())
					f.want(w.Errors == 0, "%s: %d 5xx after the recovery", n, w.Errors)
				}
			}},
	}
	claims["ewma-new-endpoint"] = []Claim{
		{Phase: Before, Says: "Before 5 s every request succeeds quickly.",
			Checks: "before 5 s every setting: >= 95% goodput in every bin, every request that ends succeeds, highest bin p99 under 100 ms",
			check: func(f *facts) {
				f.healthy(0, f.at(0), f.settings()...)
				for _, n := range f.settings() {
					w := f.window(n, 0, f.at(0))
					f.want(w.Succeeded == w.Ended && w.P99 < 100, "%s before the new server: %d of %d succeeded, bin p99 up to %.0f ms", n, w.Succeeded, w.Ended, w.P99)
				}
			}},
		{Phase: During, Says: "With a default RTT of 1 s every pair the new server is drawn in has an old server that costs less, so it gets little or nothing (nothing at all unless an old server's estimate happens to pass a second, when it is tried and joins)",
			Checks: "default-rtt-1s: s4 gets under 10% of the attempts; finagle and default-rtt-30ms send it >= 15%",
			check: func(f *facts) {
				f.want(f.share("default-rtt-1s", "s4") < 0.1, "default-rtt-1s sent s4 %.3f", f.share("default-rtt-1s", "s4"))
				for _, n := range []string{"finagle", "default-rtt-30ms"} {
					f.want(f.share(n, "s4") >= 0.15, "%s sent s4 %.3f", n, f.share(n, "s4"))
				}
			}},
		{Phase: During, Says: "and the old three stay as loaded, their queues and the tail as long, as if the fleet had not grown.",
			Checks: "default-rtt-1s: its mean latency and p95 over the run above finagle's",
			check: func(f *facts) {
				x, y := f.run("default-rtt-1s").Latency, f.run("finagle").Latency
				f.want(x.Mean > y.Mean && x.P95 > y.P95, "mean %.1f ms with default-rtt-1s, %.1f ms with finagle; p95 %.1f, %.1f ms", x.Mean, y.Mean, x.P95, y.P95)
			}},
		{Phase: During, Says: "and the old three stay as loaded, their queues and the tail as long, as if the fleet had not grown.",
			Checks: "(per-server series) after 5 s: default-rtt-1s's old servers hold up to 1.2x what finagle's do",
			check: func(f *facts) {
				from := f.at(0)
				a, b := oldMost(f, "default-rtt-1s", from, f.end()), oldMost(f, "finagle", from, f.end())
				f.want(float64(a) >= 1.2*float64(b), "after the new server: an old server held up to %d with default-rtt-1s, %d with finagle", a, b)
			}},
		{Phase: After, Says: "With an estimate near the real latency (30 ms), or lblab's default (a server with no answer yet costs nothing while idle, Finagle's rule), it is tried at once, answers, and takes its part; the two balance alike.",
			Checks: "finagle and default-rtt-30ms: s4's shares within 0.02 of each other",
			check: func(f *facts) {
				a, b := f.share("finagle", "s4"), f.share("default-rtt-30ms", "s4")
				f.want(math.Abs(a-b) <= 0.02, "s4's share %.3f (finagle) and %.3f (30 ms)", a, b)
			}},
		{Phase: After, Says: "it is tried at once, answers, and takes its part;",
			Checks: "(per-server series) finagle and default-rtt-30ms: s4 holds requests within 0.5 s of its joining",
			check: func(f *facts) {
				for _, n := range []string{"finagle", "default-rtt-30ms"} {
					f.want(f.inServer(n, "s4", f.at(0), f.at(0)+0.5) > 0, "%s: s4 held nothing in its first half second", n)
				}
			}},
	}
}

// newShare is the share of setting name's attempts that grpc-scale-up's
// added servers took.
func newShare(f *facts, name string) float64 {
	return f.share(name, "s4") + f.share(name, "s5") + f.share(name, "s6")
}

// oldMost and newMost are the most requests one of grpc-scale-up's first
// three (added three) servers held at the end of a bin of [from, to).
func oldMost(f *facts, name string, from, to float64) int {
	return max(f.inServer(name, "s1", from, to), f.inServer(name, "s2", from, to), f.inServer(name, "s3", from, to))
}

func newMost(f *facts, name string, from, to float64) int {
	return max(f.inServer(name, "s4", from, to), f.inServer(name, "s5", from, to), f.inServer(name, "s6", from, to))
}
