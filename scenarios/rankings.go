package scenarios

import (
	"fmt"
	"slices"
	"strings"

	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/report/verdict"
)

// A ranking is an order of settings a scenario's narration states: each
// setting of better ranks above each of worse in the report's table
// (report.Ranked, by the lab's headline and the report's one ranking rule,
// internal/report/rank.go). Each is a claim of its scenario (rankingClaims),
// so `lab sim --claims` and the scenario tests check the table's order as
// well as the figures behind it.
type ranking struct {
	phase         Phase
	says          string
	better, worse []string
	some          bool // it holds on some seeds only (Claim.Some)
}

// rankings are the orders the narrations state, per scenario. A narration
// that compares no settings (breaker, playground, slow-start's p2c) states
// none.
func rankings() map[string][]ranking {
	return map[string][]ranking{
		"adaptive": {{Throughout, "An adaptive concurrency limit finds the knee and answers the excess with a fast 503, so the requests it admits stay quick.",
			[]string{"gradient2", "aimd"}, []string{"no-limit"}, false}},
		"balls-bins": {{Throughout, "with two choices (pick the emptier of two) it stays within a few;",
			[]string{"two-choices", "three-choices"}, []string{"one-choice"}, false}},
		"ch-bounded": {{After, "Bounded loads (eps 0.25) spill the excess clockwise and keep most of the hits;",
			[]string{"ring-hash-bounded"}, []string{"ring-hash"}, false}},
		"client-side": {{Throughout, "Random ignores load; p2c-stale uses the piggybacked counts",
			[]string{"client-p2c-stale"}, []string{"client-random"}, false}},
		"ewma-fast-failure": {{After, "far fewer requests fail.",
			[]string{"failure-penalty"}, []string{"peak-ewma"}, false}},
		"ewma-new-endpoint": {{After, "it is tried at once, answers, and takes its part;",
			[]string{"default-rtt-30ms", "finagle"}, []string{"default-rtt-1s"}, false}},
		"gc-ewma": {{Throughout, "least-outstanding and peak-EWMA P2C notice its count (or its latency) jump and go elsewhere.",
			[]string{"least-outstanding", "p2c-peak-ewma"}, []string{"round-robin"}, false}},
		"gray-failure": {
			{After, "Outlier ejection compares each server's mean latency with its peers' every second and ejects gray",
				[]string{"outlier"}, []string{"round-robin", "breaker"}, false},
			{After, "p2c-peak-ewma routes around gray on its own, with or without ejection.",
				[]string{"p2c-peak-ewma", "p2c-peak-ewma+outlier"}, []string{"round-robin", "breaker", "outlier"}, false},
		},
		"grpc-scale-up": {
			{After, "the new servers take their part of the load,",
				[]string{"max-age-2s"}, []string{"per-connection"}, false},
			{After, "if not as short as when every request is balanced:",
				[]string{"per-request"}, []string{"max-age-2s"}, false},
		},
		"handshakes": {
			{Throughout, "so the best-balanced choice is dearer than it looks",
				[]string{"subset-5", "aperture-5"}, []string{"all-20"}, false},
			{Throughout, "with TLS the balancers win.",
				[]string{"balancers-2-tls"}, []string{"all-20-tls"}, true}, // 9 of 10 seeds, as the figures behind it
		},
		"hedging": {{Throughout, "p99 falls for a few percent more attempts.",
			[]string{"hedge-p95"}, []string{"no-hedge"}, false}},
		"herd": {{Throughout, "P2C's random pair spreads the traffic; random ignores the stale numbers altogether. With fresh, local counts least-outstanding is fine again.",
			[]string{"p2c", "random", "least-outstanding-local"}, []string{"least-outstanding"}, false}},
		"jiq": {{Throughout, "and queue far less than under p2c, whose three balancers each count only their own requests",
			[]string{"jiq-sq2", "jiq"}, []string{"p2c", "random"}, false}},
		"mixed-fleet": {{Throughout, "weighted round robin follows the weights (the speeds); least-outstanding and P2C find the fast half on their own.",
			[]string{"weighted-round-robin", "least-outstanding", "p2c"}, []string{"round-robin", "random"}, false}},
		"orca-weights": {{After, "Round robin keeps the slow half queueing for the whole run.",
			[]string{"wrr-orca", "p2c"}, []string{"round-robin"}, false}},
		"p2c-replacement": {{After, "lblab's distinct draws always compare both servers",
			[]string{"distinct"}, []string{"replacement"}, false}},
		"retry-same-host": {{After, "Retries that avoid the previous host (retry_other, Envoy's previous_hosts predicate) land elsewhere and nearly every request succeeds.",
			[]string{"ring-hash+retry-other", "p2c-peak-ewma+retry-other"}, []string{"ring-hash", "p2c-peak-ewma"}, false}},
		"prequal-testbed": {{During, "so its tail stays far below the deadline at every step;",
			[]string{"prequal"}, []string{"p2c", "p2c-peak-ewma", "wrr-orca", "round-robin"}, false}},
		"wrr-orca-scale-up": {{During, "Without the blackout (no-blackout) the new servers weigh twice the old ones from their first reports and the old four's queues are gone within 4 s.",
			[]string{"no-blackout"}, []string{"wrr-orca"}, false}},
		"prequal-qrif": {{Throughout, "and the median and the tail are over 1.3 times as long.",
			[]string{"q-rif-0.6", "one-balancer-0.84"}, []string{"q-rif-0.84", "q-rif-0.9"}, false}},
		"rr-slow": {{After, "least-outstanding and P2C see its count rise and send elsewhere.",
			[]string{"least-outstanding", "p2c"}, []string{"round-robin"}, false}},
		"shedding": {
			{Throughout, "A bounded queue rejects the excess at once and LIFO serves the newest first: both keep most requests within the deadline.",
				[]string{"bounded-fifo", "bounded-lifo"}, []string{"unbounded-fifo"}, false},
			{Throughout, "with LIFO (adaptive LIFO, as in Facebook's \"Fail at Scale\") it keeps most of the goodput",
				[]string{"lifo-drop-expired"}, []string{"fifo-drop-expired"}, false},
		},
		"slow-server": {{Throughout, "Watch which algorithms notice it",
			[]string{"least-outstanding", "p2c", "least-response-time"}, []string{"round-robin", "random"}, false}},
		"slow-start": {{After, "With slow start its weight ramps from a tenth to full over 10 s and its queue stays short.",
			[]string{"wrr+slow-start"}, []string{"weighted-round-robin"}, false}},
	}
}

// rankingClaims are the rankings as claims.
func rankingClaims() map[string][]Claim {
	out := map[string][]Claim{}
	for name, rs := range rankings() {
		for _, r := range rs {
			out[name] = append(out[name], Claim{Phase: r.phase, Says: r.says, Some: r.some,
				Checks: fmt.Sprintf("the table ranks %s above %s", strings.Join(r.better, ", "), strings.Join(r.worse, ", ")),
				check:  func(f *facts) { f.ranksAbove(r.better, r.worse) }})
		}
	}
	return out
}

// ranksAbove records a failure unless the report's table ranks each of
// better above each of worse (by the lab's headline: a live report read
// back from JSON does not carry it).
func (f *facts) ranksAbove(better, worse []string) {
	for _, n := range slices.Concat(better, worse) {
		f.run(n) // a setting missing from the report: unmeasured
	}
	if f.err != nil {
		return
	}
	rep := *f.rep
	rep.Headline = f.lab.Report.Headline
	order := map[string]int{}
	for i, r := range rep.Ranked() {
		order[r.Name] = i + 1
	}
	for _, b := range better {
		for _, w := range worse {
			f.want(order[b] < order[w], "the table ranks %s #%d, below %s #%d", b, order[b], w, order[w])
		}
	}
}

// collapsesRankLast records a failure unless the report's table ranks every
// setting that did not recover from a transient of the script (its verdict
// metastable) below every setting that recovered from all of them; a report
// without a series (where the verdicts come from) cannot tell.
func (f *facts) collapsesRankLast() {
	rep := *f.rep
	rep.Runs = slices.Clone(rep.Runs)
	verdict.AddRecovery(&rep, f.lab) // the verdicts lab sim and lab run print, from the series
	var recovered, collapsed []string
	for _, r := range rep.Runs {
		if len(r.Recovery) == 0 {
			f.fail(fmt.Errorf("%s has no recovery verdict (no series): %w", r.Name, report.ErrUnmeasured))
			return
		}
		if slices.ContainsFunc(r.Recovery, func(v report.Recovery) bool { return v.Verdict == "metastable" }) {
			collapsed = append(collapsed, r.Name)
		} else {
			recovered = append(recovered, r.Name)
		}
	}
	f.want(len(collapsed) > 0, "no setting collapsed")
	f.ranksAbove(recovered, collapsed)
}
