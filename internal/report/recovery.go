package report

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"text/tabwriter"
)

// The recovery verdict's rules, each written once (docs/report.md):
const (
	// RecoveryGoodputBand: a bin is back when its goodput is at most this
	// far below the baseline's...
	RecoveryGoodputBand = 0.05
	// RecoveryP99Band: ... and its p99 at most this many times the
	// baseline's.
	RecoveryP99Band = 2.0
	// RecoveryHold is how long every bin must stay back: the recovery is
	// the first bin of the first such stretch.
	RecoveryHold = 2.0 // seconds
	// baselineSkip leaves the run's first second (its warm-up) out of a
	// baseline, when the trigger comes late enough to leave one.
	baselineSkip = 1.0 // seconds
)

// The verdicts.
const (
	Recovered  = "recovered"
	Metastable = "metastable" // did not recover within the run
	TooShort   = "too-short"  // the run ends less than RecoveryHold after the trigger does
)

// Transient is a script event with an end: one with for, or one that a
// later event undoes (slow -> restore, kill -> restart, fail -> recover on
// the same target).
type Transient struct {
	Event string  `json:"event"`  // the event, as the event log writes it
	From  float64 `json:"from_s"` // when it applies
	To    float64 `json:"to_s"`   // when it ends
}

// Recovery is one setting's verdict on one transient.
type Recovery struct {
	Transient
	Baseline Baseline `json:"baseline"`
	Verdict  string   `json:"verdict"` // recovered, metastable or too-short
	// AfterS is the time from the transient's end until goodput and p99
	// were back in the band for RecoveryHold; null unless recovered.
	AfterS *float64 `json:"recovered_after_s"`
}

// Baseline is a setting's figures before a transient, from its bins in
// [1 s, the trigger) (from 0 when the trigger comes within 2 s).
type Baseline struct {
	Goodput float64 `json:"goodput"`
	P99     float64 `json:"p99_ms"` // the median of the bins' p99s
}

// JudgeRecovery gives the run its verdict on each of ts, the transients of
// the script it ran (internal/report/verdict reads them off a lab), when
// it has a series and ts is not empty; otherwise it leaves the run as it
// is.
func (r *Run) JudgeRecovery(ts []Transient) {
	if len(r.Series) == 0 || len(ts) == 0 {
		return
	}
	r.Recovery = nil
	for _, t := range ts {
		if v, ok := r.recover(t); ok {
			r.Recovery = append(r.Recovery, v)
		}
	}
}

// recover is the run's verdict on t; ok is false when no bin comes before
// t (no baseline).
func (r *Run) recover(t Transient) (Recovery, bool) {
	from := 0.0
	if t.From >= 2*baselineSkip {
		from = baselineSkip
	}
	w, err := r.Window(from, t.From)
	if err != nil {
		return Recovery{}, false
	}
	var p99s []float64
	for _, b := range r.Series {
		if b.T >= from && b.T < t.From && b.Succeeded > 0 {
			p99s = append(p99s, b.P99)
		}
	}
	base := Baseline{Goodput: w.Goodput(), P99: median(p99s)}
	v := Recovery{Transient: t, Baseline: base, Verdict: Metastable}
	back := func(b Bin) bool {
		if b.Offered == 0 && b.Succeeded+b.Failed == 0 {
			return true // nothing asked, nothing to miss
		}
		return b.Goodput() >= base.Goodput-RecoveryGoodputBand && (b.Succeeded == 0 || b.P99 <= RecoveryP99Band*base.P99)
	}
	hold := int(math.Round(RecoveryHold / BinWidth.Seconds()))
	bins := r.Series
	first := slices.IndexFunc(bins, func(b Bin) bool { return b.T >= t.To-1e-9 })
	if first < 0 || len(bins)-first < hold {
		v.Verdict = TooShort
		return v, true
	}
	run := 0
	for i := first; i < len(bins); i++ {
		if !back(bins[i]) {
			run = 0
			continue
		}
		if run++; run == hold {
			after := math.Max(0, bins[i-hold+1].T-t.To)
			v.Verdict, v.AfterS = Recovered, &after
			return v, true
		}
	}
	return v, true
}

// Says is the verdict in words, as the recovery table and the event log
// print it.
func (v Recovery) Says() string {
	switch v.Verdict {
	case Recovered:
		return fmt.Sprintf("back %gs after it ended", *v.AfterS)
	case TooShort:
		return fmt.Sprintf("the run ends under %gs after it: too soon to tell", RecoveryHold)
	}
	return "did not recover within the run (metastable)"
}

// RecoveryLog is the event-log lines of the verdicts on the transients ts
// that the bins so far decide, for a dashboard on either clock: a recovery
// as soon as the bins show it (at the end of the hold that proves it), and,
// once the run has ended, the transients that did not recover or ended too
// late to tell, at the run's end. The lines are in time order.
func RecoveryLog(ts []Transient, bins []Bin, ended bool) []LogLine {
	if len(ts) == 0 || len(bins) == 0 {
		return nil
	}
	run := &Run{Series: bins}
	end := bins[len(bins)-1].T + BinWidth.Seconds()
	var out []LogLine
	for _, t := range ts {
		v, ok := run.recover(t)
		if !ok || v.Verdict != Recovered && !ended {
			continue
		}
		at := end
		if v.Verdict == Recovered {
			at = t.To + *v.AfterS + RecoveryHold
		}
		out = append(out, LogLine{T: at, Text: fmt.Sprintf("recovery from %s (%gs to %gs): %s (goodput %s, p99 %s before)",
			t.Event, t.From, t.To, v.Says(), Share.Text(v.Baseline.Goodput), Millis.Text(v.Baseline.P99))})
	}
	slices.SortStableFunc(out, func(a, b LogLine) int { return cmp.Compare(a.T, b.T) })
	return out
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	} else {
		return (s[n/2-1] + s[n/2]) / 2
	}
}

// writeRecovery prints, per transient, each setting's baseline and verdict.
func (r *Report) writeRecovery(w io.Writer) {
	var ts []Transient
	for _, run := range r.Runs {
		for _, v := range run.Recovery {
			if !slices.Contains(ts, v.Transient) {
				ts = append(ts, v.Transient)
			}
		}
	}
	for _, t := range ts {
		fmt.Fprintf(w, "\nrecovery from %s (%gs to %gs): back when goodput is within %g of the baseline and p99 within %gx, for %gs\n",
			t.Event, t.From, t.To, RecoveryGoodputBand, RecoveryP99Band, RecoveryHold)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "setting\tgoodput before\tp99 before\tverdict\t")
		for _, run := range r.Ranked() {
			for _, v := range run.Recovery {
				if v.Transient != t {
					continue
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t\n", run.Name, Share.Text(v.Baseline.Goodput), Millis.Text(v.Baseline.P99), v.Says())
			}
		}
		tw.Flush()
	}
}

// SeedRecovery is one setting's verdicts on one transient over the seeds.
type SeedRecovery struct {
	Setting string `json:"setting"`
	Transient
	Recovered int `json:"recovered"` // the seeds on which it recovered
	Seeds     int `json:"seeds"`
	// AfterS is each seed's recovered_after_s, in the order of seeds.list
	// (null where it did not recover).
	AfterS []*float64 `json:"recovered_after_s"`
}

// AddSeedRecovery summarises the recovery verdicts of reps, one report per
// seed in the order of r.Seeds.List (each with its runs' verdicts),
// into r.Seeds.
func (r *Report) AddSeedRecovery(reps []*Report) {
	if r.Seeds == nil || len(reps) == 0 {
		return
	}
	r.Seeds.Recovery = nil
	for j, run := range reps[0].Runs {
		for k, v := range run.Recovery {
			sr := SeedRecovery{Setting: run.Name, Transient: v.Transient, Seeds: len(reps)}
			for _, rep := range reps {
				var after *float64
				if j < len(rep.Runs) && k < len(rep.Runs[j].Recovery) && rep.Runs[j].Recovery[k].Verdict == Recovered {
					after = rep.Runs[j].Recovery[k].AfterS
					sr.Recovered++
				}
				sr.AfterS = append(sr.AfterS, after)
			}
			r.Seeds.Recovery = append(r.Seeds.Recovery, sr)
		}
	}
}

// writeSeedRecovery prints, per transient, on how many seeds each setting
// recovered and how long it took.
func (r *Report) writeSeedRecovery(w io.Writer) {
	var ts []Transient
	for _, sr := range r.Seeds.Recovery {
		if !slices.Contains(ts, sr.Transient) {
			ts = append(ts, sr.Transient)
		}
	}
	for _, t := range ts {
		fmt.Fprintf(w, "\nrecovery from %s (%gs to %gs), as for one seed (docs/report.md)\n", t.Event, t.From, t.To)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "setting\trecovered on\tafter (median, range)\t")
		for _, sr := range r.Seeds.Recovery {
			if sr.Transient != t {
				continue
			}
			var after []float64
			for _, a := range sr.AfterS {
				if a != nil {
					after = append(after, *a)
				}
			}
			took := "-"
			if len(after) > 0 {
				took = fmt.Sprintf("%gs (%gs-%gs)", median(after), slices.Min(after), slices.Max(after))
			}
			fmt.Fprintf(tw, "%s\t%d of %d seeds\t%s\t\n", sr.Setting, sr.Recovered, sr.Seeds, took)
		}
		tw.Flush()
	}
}
