package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteTable prints the human report: one row per setting ranked by p99,
// then each server's share of the attempts per setting.
func (r *Report) WriteTable(w io.Writer) error {
	if r.Seeds != nil {
		return r.writeSeedsTable(w)
	}
	fmt.Fprintf(w, "lab %s (%s, seed %d, %gs)\n", r.Lab, r.Mode, r.Seed, r.DurationS)
	if r.Narration != "" {
		fmt.Fprintf(w, "\n%s\n", wrap(r.Narration, 78))
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "setting\tp50\tp95\tp99\tp99.9\tmean\tgoodput\tatt/req\ttimeouts\t503s\t5xx\tretries\thedges\twasted\t")
	for _, run := range r.Ranked() {
		l := run.Latency
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%.1f%%\t%.3f\t%d\t%d\t%d\t%d\t%d\t%d\t\n",
			run.Name, ms(l.P50), ms(l.P95), ms(l.P99), ms(l.P999), ms(l.Mean),
			100*run.Goodput, run.AttemptsPerRequest, run.Timeouts, run.Rejected, run.Errors,
			run.Retries, run.Hedges, run.Wasted)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nshare of attempts per server")
	r.writeShares(w)
	r.writeCache(w)
	for _, run := range r.Runs {
		if k := run.KeysMoved; k != nil {
			fmt.Fprintf(w, "\n%s: %d -> %d servers moved %.1f%% of keys (hash mod N would move %.1f%%)\n",
				run.Name, k.From, k.To, 100*k.Share, 100*k.ModNShare)
		}
	}
	return nil
}

func (r *Report) writeShares(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	var names []string
	seen := map[string]bool{}
	for _, run := range r.Runs {
		for _, s := range run.Servers {
			if !seen[s.Name] {
				seen[s.Name] = true
				names = append(names, s.Name)
			}
		}
	}
	fmt.Fprintf(tw, "setting\t%s\t\n", strings.Join(names, "\t"))
	for _, run := range r.Ranked() {
		share := map[string]float64{}
		for _, s := range run.Servers {
			share[s.Name] = s.Share
		}
		cells := make([]string, len(names))
		for i, n := range names {
			cells[i] = fmt.Sprintf("%.1f%%", 100*share[n])
		}
		fmt.Fprintf(tw, "%s\t%s\t\n", run.Name, strings.Join(cells, "\t"))
	}
	tw.Flush()
}

func ms(v float64) string {
	switch {
	case v >= 1000:
		return fmt.Sprintf("%.2fs", v/1000)
	case v >= 100:
		return fmt.Sprintf("%.0fms", v)
	default:
		return fmt.Sprintf("%.1fms", v)
	}
}

// writeCache prints each run's cache hit ratio when servers cache keys.
func (r *Report) writeCache(w io.Writer) {
	any := false
	for _, run := range r.Runs {
		any = any || run.HitRatio() > 0
	}
	if !any {
		return
	}
	fmt.Fprintln(w, "\ncache hit ratio")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, run := range r.Ranked() {
		fmt.Fprintf(tw, "%s\t%.1f%%\t\n", run.Name, 100*run.HitRatio())
	}
	tw.Flush()
}

// wrap breaks text into lines of at most width characters.
func wrap(text string, width int) string {
	var b strings.Builder
	line := 0
	for _, word := range strings.Fields(text) {
		if line > 0 && line+1+len(word) > width {
			b.WriteByte('\n')
			line = 0
		} else if line > 0 {
			b.WriteByte(' ')
			line++
		}
		b.WriteString(word)
		line += len(word)
	}
	return b.String()
}
