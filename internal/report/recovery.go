package report

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"text/tabwriter"

	"github.com/lblab/lblab/internal/labfile"
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

// Transients lists lab's script events that end, in script order: those
// time-boxed with for, and drills on servers whose undo is another drill
// (slow, kill, fail: the drill table's undo, labfile.Undo) that the script
// takes later on the same target.
func Transients(lab *labfile.Lab) []Transient {
	var out []Transient
	for i, e := range lab.Events {
		t := Transient{Event: e.String(), From: e.At.Seconds(), To: -1}
		if e.For > 0 {
			t.To = (e.At + e.For).Seconds()
		} else if undo, ok := serverUndo(lab, e); ok {
			for _, u := range lab.Events[i+1:] {
				if u.Action == undo && u.Target == e.Target {
					t.To = u.At.Seconds()
					break
				}
			}
		}
		if t.To >= t.From {
			out = append(out, t)
		}
	}
	return out
}

// HasTransients reports whether lab's script has an event that ends, so
// that a run needs its series for the recovery verdicts.
func HasTransients(lab *labfile.Lab) bool { return len(Transients(lab)) > 0 }

// serverUndo is the drill that ends e, when e is a drill on servers whose
// undo is a drill of its own (restore, restart, recover), not the same
// action with other values (errors).
func serverUndo(lab *labfile.Lab, e labfile.Event) (labfile.Action, bool) {
	d, ok := labfile.DrillOf(e.Action)
	if !ok || d.Scope != labfile.OnServers || !d.Undoable() {
		return "", false
	}
	u, err := labfile.Undo(lab, e)
	if err != nil || u.Action == e.Action {
		return "", false
	}
	return u.Action, true
}

// AddRecovery gives every run of r that has a series its verdict on each
// transient of its lab's script: lab under the setting of the run's name,
// from settings (lab.Compare when none are given), since a setting may
// change the script (events[0].for); lab itself for a run of no setting.
func (r *Report) AddRecovery(lab *labfile.Lab, settings ...labfile.Setting) {
	if len(settings) == 0 {
		settings = lab.Compare
	}
	for i := range r.Runs {
		ts := Transients(lab)
		if k := slices.IndexFunc(settings, func(s labfile.Setting) bool { return s.Name == r.Runs[i].Name }); k >= 0 {
			if l, err := lab.WithSetting(settings[k]); err == nil {
				ts = Transients(l)
			}
		}
		if run := &r.Runs[i]; len(run.Series) > 0 && len(ts) > 0 {
			run.Recovery = nil
			for _, t := range ts {
				if v, ok := run.recover(t); ok {
					run.Recovery = append(run.Recovery, v)
				}
			}
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

// RecoveryLines are the event-log lines of the verdicts on lab's transients
// that the bins so far decide, for a dashboard on either clock: a recovery
// as soon as the bins show it (at the end of the hold that proves it), and,
// once the run has ended, the transients that did not recover or ended too
// late to tell, at the run's end. The lines are in time order.
func RecoveryLines(lab *labfile.Lab, bins []Bin, ended bool) []LogLine {
	ts := Transients(lab)
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
// seed in the order of r.Seeds.List (each with AddRecovery's verdicts),
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
