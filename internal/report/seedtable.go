package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// writeSeedsTable prints a report run on several seeds: every figure as
// mean ±half-interval, the ranking verdicts, and the mean server shares.
func (r *Report) writeSeedsTable(w io.Writer) error {
	s := r.Seeds
	fmt.Fprintf(w, "lab %s (%s, %d seeds: %s, %gs)\n", r.Lab, r.modeText(), len(s.List), SeedList(s.List), r.DurationS)
	if r.Narration != "" {
		fmt.Fprintf(w, "\n%s\n", wrap(r.Narration, 78))
	}
	fmt.Fprintf(w, "\n%s\n", IntervalNote(len(s.List), s.Confidence))
	ranked := Ranked(s.Settings, r.SeedsFigure())
	rows := make([]labeled, len(ranked))
	for i, x := range ranked {
		rows[i] = labeled{labels: []string{x.Name}, sum: x}
	}
	if err := writeSummaries(w, []string{"setting"}, rows); err != nil {
		return err
	}
	if len(s.Ranking) > 0 {
		fmt.Fprintln(w)
		if err := WriteVerdicts(w, s.Ranking); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "\nshare of attempts per server (mean of %d seeds)\n", len(s.List))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	var names []string
	for _, srv := range ranked[0].Servers {
		names = append(names, srv.Name)
	}
	fmt.Fprintf(tw, "setting\t%s\t\n", strings.Join(names, "\t"))
	for _, x := range ranked {
		cells := make([]string, len(x.Servers))
		for i, srv := range x.Servers {
			cells[i] = fmt.Sprintf("%.1f%%", 100*srv.Share.Mean)
		}
		fmt.Fprintf(tw, "%s\t%s\t\n", x.Name, strings.Join(cells, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	r.writeSeedRecovery(w)
	return nil
}

// IntervalNote says how to read the ± of a table over n seeds.
func IntervalNote(n int, level float64) string {
	if n < 2 {
		return "one seed: no intervals (give --seeds N for them)"
	}
	return fmt.Sprintf("mean of %d seeds ±half its %g%% confidence interval, relative to the mean\n"+
		"(Student's t on the per-seed values; each seed's percentiles are that run's own)", n, 100*level)
}

// labeled is a summary with the labels of its table row.
type labeled struct {
	labels []string
	sum    Summary
}

// writeSummaries prints one row per summary: its labels (under heads),
// then the figures with a column (Figures' Head): the latencies and goodput
// as mean ±interval, attempts per request as its mean, and the counts as
// their means, each only when it is not zero everywhere.
func writeSummaries(w io.Writer, heads []string, rows []labeled) error {
	var cols []*FigureSpec
	for _, f := range tableFigures() {
		if f.Unit == Count && !slices.ContainsFunc(rows, func(x labeled) bool { return x.sum.Figures[f.Name].Mean != 0 }) {
			continue
		}
		if f.Optional && !slices.ContainsFunc(rows, func(x labeled) bool { _, ok := x.sum.Figures[f.Name]; return ok }) {
			continue
		}
		cols = append(cols, f)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s\t", strings.Join(heads, "\t"))
	for _, f := range cols {
		fmt.Fprintf(tw, "%s\t", f.Head)
	}
	fmt.Fprintln(tw)
	for _, x := range rows {
		fmt.Fprintf(tw, "%s\t", strings.Join(x.labels, "\t"))
		for _, f := range cols {
			fig := x.sum.Figures[f.Name]
			cell := f.Unit.Text(fig.Mean)
			if f.Unit == Millis || f.Unit == Share {
				cell = withPM(fig, f.Unit.Text)
			}
			fmt.Fprintf(tw, "%s\t", cell)
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

// withPM formats a figure as "mean ±x%" (x: the half-interval relative to
// the mean), or the mean alone for a single seed.
func withPM(f Figure, format func(float64) string) string {
	if len(f.PerSeed) < 2 {
		return format(f.Mean)
	}
	half := (f.Hi - f.Lo) / 2
	if f.Mean == 0 {
		if half == 0 {
			return format(0) + " ±0%"
		}
		return format(0) + " ±" + format(half)
	}
	rel := 100 * half / math.Abs(f.Mean)
	prec := 0
	if rel < 10 {
		prec = 1
	}
	return format(f.Mean) + " ±" + strconv.FormatFloat(rel, 'f', prec, 64) + "%"
}

// count formats the mean of a count: whole numbers and large ones without
// decimals.
func count(v float64) string {
	if v == math.Trunc(v) || math.Abs(v) >= 100 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// WriteVerdicts prints one line per verdict, in the manner of benchstat:
//
//	least-outstanding's p99 < p2c's  (28/30 seeds; diff -52ms [-61ms, -43ms] paired; 95% CIs disjoint)
func WriteVerdicts(w io.Writer, vs []Verdict) error {
	if len(vs) == 0 {
		return nil
	}
	fmt.Fprintf(w, "%s, ranked by mean, each against the next on the same seeds\n", vs[0].Figure)
	if slices.ContainsFunc(vs, func(v Verdict) bool { return v.Figure != vs[0].Figure }) {
		fmt.Fprintf(w, "(a setting that serves under %.0f%% of its requests ranks below those that serve, by goodput)\n", 100*MinServed)
	}
	fmt.Fprintln(w, "(distinguishable: the paired 95% interval of the per-seed differences excludes 0)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, v := range vs {
		f, _ := FigureOf(v.Figure)
		rel, way, diff := "<", "lower", signedMs
		if f != nil && f.Higher {
			rel, way = ">", "higher"
		}
		if f != nil && f.Unit == Share {
			diff = signedPoints
		}
		if !v.Distinguishable {
			rel = "~"
		}
		cis := "CIs overlap"
		if v.Disjoint {
			cis = "95% CIs disjoint"
		}
		verdict := ""
		if !v.Distinguishable {
			verdict = "; not distinguishable"
		}
		fmt.Fprintf(tw, "  %s's %s %s %s's\t(%d/%d seeds %s; diff %s [%s, %s] %s; %s%s)\n",
			v.Better, v.Figure, rel, v.Worse, v.Wins, v.Seeds, way, diff(v.Diff.Mean),
			diff(v.Diff.Lo), diff(v.Diff.Hi), signedPct(v.DiffRatio), cis, verdict)
	}
	return tw.Flush()
}

func signedMs(v float64) string {
	if v < 0 {
		return "-" + ms(-v)
	}
	return "+" + ms(v)
}

// signedPoints is a difference of shares in percentage points: "+78.8 pts".
func signedPoints(v float64) string { return fmt.Sprintf("%+.1f pts", 100*v) }

func signedPct(v float64) string { return fmt.Sprintf("%+.0f%%", 100*v) }

// SeedList writes seeds compactly: runs of consecutive seeds as ranges
// ("1-30", "1-5, 9, 11").
func SeedList(seeds []uint64) string {
	var parts []string
	for i := 0; i < len(seeds); {
		j := i
		for j+1 < len(seeds) && seeds[j+1] == seeds[j]+1 {
			j++
		}
		switch {
		case j == i:
			parts = append(parts, strconv.FormatUint(seeds[i], 10))
		default:
			parts = append(parts, fmt.Sprintf("%d-%d", seeds[i], seeds[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}
