package report

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"text/tabwriter"
)

// WideFleet is the most servers the share table shows one column each;
// above it the table shows the busiest and the idlest server and the
// spread instead (balls-bins has 1,000).
const WideFleet = 12

// WriteTable prints the human report: one row per setting with a column
// per figure that has one (Figures' Head), ranked by the lab's headline
// figure (p99 unless it names another), then each server's share of the
// attempts per setting.
func (r *Report) WriteTable(w io.Writer) error {
	if r.Seeds != nil {
		return r.writeSeedsTable(w)
	}
	mark := ""
	if r.Interrupted {
		mark = ", INTERRUPTED"
	}
	fmt.Fprintf(w, "lab %s (%s, seed %d, %gs%s)\n", r.Lab, r.modeText(), r.Seed, r.DurationS, mark)
	if r.Narration != "" {
		fmt.Fprintf(w, "\n%s\n", wrap(r.Narration, 78))
	}
	fmt.Fprintln(w)
	h := r.headline()
	if h.column != "" || h.higher {
		fmt.Fprintf(w, "ranked by %s\n", h.caption)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "setting\t"
	if h.column != "" {
		head += h.column + "\t"
	}
	var cols []*FigureSpec
	for _, f := range tableFigures() {
		if f.shown(r.Runs) {
			cols = append(cols, f)
		}
	}
	for _, f := range cols {
		head += f.Head + "\t"
	}
	fmt.Fprintln(tw, head)
	var none []string // settings where no request succeeded
	for _, run := range r.Ranked() {
		row := run.Name + "\t"
		if run.Interrupted {
			row = run.Name + " (interrupted)\t"
		}
		if h.column != "" {
			row += headlineCell(r.Headline, &run) + "\t"
		}
		if run.Succeeded == 0 {
			none = append(none, run.Name)
		}
		for _, f := range cols {
			row += f.Text(&run) + "\t"
		}
		fmt.Fprintln(tw, row)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(none) > 0 {
		fmt.Fprintf(w, "\n%s\n", wrap(fmt.Sprintf("No request succeeded in %s, so there is no latency (-). A request still "+
			"queued or in service when the run ended counts as a timeout.", strings.Join(none, ", ")), 78))
	}
	r.writeInterrupted(w)
	r.writeShares(w)
	r.writeCache(w)
	r.writeConnections(w)
	r.writeProbes(w)
	r.writeAnnouncements(w)
	r.writeRecovery(w)
	for _, run := range r.Runs {
		if k := run.KeysMoved; k != nil {
			fmt.Fprintf(w, "\n%s: %d -> %d servers moved %.1f%% of keys (hash mod N would move %.1f%%)\n",
				run.Name, k.From, k.To, 100*k.Share, 100*k.ModNShare)
		}
	}
	return nil
}

// serverNames lists the servers of every run, in first-seen order.
func (r *Report) serverNames() []string {
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
	return names
}

// writeShares prints each server's share of the attempts per setting, or
// for a fleet wider than WideFleet a summary per setting.
func (r *Report) writeShares(w io.Writer) {
	names := r.serverNames()
	if len(names) > WideFleet {
		r.writeSpread(w, len(names))
		return
	}
	fmt.Fprintln(w, "\nshare of attempts per server")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
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

// writeSpread summarises the shares of a wide fleet: the busiest and the
// idlest server with their shares as a multiple of an even share, and the
// coefficient of variation (standard deviation / mean) of all the shares.
func (r *Report) writeSpread(w io.Writer, servers int) {
	fmt.Fprintf(w, "\nshare of attempts per server: %d servers, so the busiest, the idlest and the spread\n", servers)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "setting\tbusiest\tshare\tx even\tidlest\tshare\tx even\tcv\t")
	for _, run := range r.Ranked() {
		if len(run.Servers) == 0 {
			fmt.Fprintf(tw, "%s\t-\t-\t-\t-\t-\t-\t-\t\n", run.Name)
			continue
		}
		s := append([]Server(nil), run.Servers...)
		sort.SliceStable(s, func(i, j int) bool { return s[i].Share > s[j].Share })
		busy, idle := s[0], s[len(s)-1]
		even := 1 / float64(len(s))
		var mean, sq float64
		for _, x := range s {
			mean += x.Share / float64(len(s))
		}
		for _, x := range s {
			sq += (x.Share - mean) * (x.Share - mean) / float64(len(s))
		}
		cv := 0.0
		if mean > 0 {
			cv = math.Sqrt(sq) / mean
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.2f\t%s\t%s\t%.2f\t%.1f%%\t\n", run.Name, busy.Name, pct(busy.Share), busy.Share/even,
			idle.Name, pct(idle.Share), idle.Share/even, 100*cv)
	}
	tw.Flush()
}

// pct writes a share with enough digits for a thousandth of a fleet.
func pct(share float64) string {
	if share < 0.01 {
		return fmt.Sprintf("%.3f%%", 100*share)
	}
	return fmt.Sprintf("%.1f%%", 100*share)
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

// writeInterrupted says, under the table of a run stopped early, how long
// each interrupted setting ran and which never started.
func (r *Report) writeInterrupted(w io.Writer) {
	if !r.Interrupted {
		return
	}
	var parts []string
	for _, run := range r.Runs {
		if run.Interrupted {
			parts = append(parts, fmt.Sprintf("%s ran %gs (its figures cover only that)", run.Name, run.DurationS))
		}
	}
	if len(r.NotRun) > 0 {
		parts = append(parts, strings.Join(r.NotRun, ", ")+" did not run")
	}
	fmt.Fprintf(w, "\n%s\n", wrap("INTERRUPTED: "+strings.Join(parts, "; ")+".", 78))
}

// modeText is the mode as the header says it: "live through HAProxy" when
// every run went through one external proxy.
func (r *Report) modeText() string {
	if r.Through == "" {
		return r.Mode
	}
	return r.Mode + " through " + r.Through
}
