package scenarios

// The claims of the scenarios drawn from balancing failures users have
// reported in proxies' trackers (each lab file's narration cites its
// report). Each compares the setting with the model feature the failure
// needs against lblab's default, before, during and after the trigger.
func init() {
	claims["p2c-replacement"] = []Claim{
		{Phase: Before, Says: "While both servers are healthy it does not matter.",
			Checks: "before 5 s both settings have >= 95% goodput in every bin, neither holds over 10 requests in s2, and the highest bin p99 of replacement is within 1.5x of distinct's",
			check: func(f *facts) {
				f.healthy(0, f.at(0), "distinct", "replacement")
				for _, n := range []string{"distinct", "replacement"} {
					f.want(f.inServer(n, "s2", 0, f.at(0)) <= 10, "%s: s2 held %d before the slowdown", n, f.inServer(n, "s2", 0, f.at(0)))
				}
				d, r := f.window("distinct", 0, f.at(0)), f.window("replacement", 0, f.at(0))
				f.want(r.P99 <= 1.5*d.P99, "bin p99 before the slowdown: replacement %.0f ms, distinct %.0f ms", r.P99, d.P99)
			}},
		{Phase: During, Says: "drawn with replacement, it still gets at least a quarter of the requests, more than it can now finish, and its queue and the tail grow for as long as the slowdown lasts;",
			Checks: "replacement: s2 holds >= 50, and more in the slowdown's second half than in its first; p99 over the run over 3x distinct's",
			check: func(f *facts) {
				from, to := f.at(0), f.until(0)
				mid := (from + to) / 2
				a, b := f.inServer("replacement", "s2", from, mid), f.inServer("replacement", "s2", mid, to)
				f.want(b >= 50 && b > a, "replacement: s2 held up to %d in the first half of the slowdown, %d in the second", a, b)
				f.want(f.p99("replacement") >= 3*f.p99("distinct"), "p99: replacement %.0f ms, distinct %.0f ms", f.p99("replacement"), f.p99("distinct"))
			}},
		{Phase: During, Says: "lblab's distinct draws always compare both servers and send it only what it can take.",
			Checks: "distinct: s2 holds at most 15 in the slowdown, a fifth of what it holds with replacement; every bin >= 95% goodput",
			check: func(f *facts) {
				from, to := f.at(0), f.until(0)
				d, r := f.inServer("distinct", "s2", from, to), f.inServer("replacement", "s2", from, to)
				f.want(d <= 15 && 5*d <= r, "s2 held up to %d under distinct draws, %d with replacement", d, r)
				f.healthy(from, to, "distinct")
			}},
		{Phase: After, Says: "Once s2 is back to full speed its queue drains within a few seconds.",
			Checks: "from 3 s after the slowdown ends: both settings >= 95% per bin, s2 holds at most 10, replacement's highest bin p99 within 1.5x of distinct's",
			check: func(f *facts) {
				from := f.until(0) + 3
				f.healthy(from, f.end(), "distinct", "replacement")
				for _, n := range []string{"distinct", "replacement"} {
					f.want(f.inServer(n, "s2", from, f.end()) <= 10, "%s: s2 held %d after the slowdown", n, f.inServer(n, "s2", from, f.end()))
				}
				d, r := f.window("distinct", from, f.end()), f.window("replacement", from, f.end())
				f.want(r.P99 <= 1.5*d.P99, "bin p99 after the slowdown: replacement %.0f ms, distinct %.0f ms", r.P99, d.P99)
			}},
	}
}
