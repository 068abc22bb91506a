package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"text/tabwriter"
)

// Sweep is the report of `lab sweep`: a lab run over a grid of one or two
// varied settings (axes), every point under each compare setting and on
// each seed. Points on one line (the same setting and second-axis value)
// form a curve over the first axis: p99 against load, the hockey stick.
type Sweep struct {
	Mode       string       `json:"mode"` // sim | live
	Lab        string       `json:"lab"`
	DurationS  float64      `json:"duration_s"`
	Seeds      []uint64     `json:"seeds"`
	Method     string       `json:"method"`     // "student-t" (intervals only with two seeds or more)
	Confidence float64      `json:"confidence"` // 0.95
	Axes       []SweepAxis  `json:"axes"`
	Points     []SweepPoint `json:"points"` // line by line, each in the first axis's order
	Knee       KneeRule     `json:"knee_rule"`
	Knees      []Knee       `json:"knees"` // one per line; none when the first axis is not numeric
	// Boundaries is each line's metastability boundary (boundary.go); only
	// when the script has an event that ends.
	Boundaries []Boundary `json:"metastability,omitempty"`
	// Maps is each setting's metastability map (map.go): only with two
	// axes and verdicts.
	Maps []Map `json:"maps,omitempty"`
	// RecoveryRate: the first axis is the rate a script event sets after
	// the trigger has ended; Hysteresis then gives each line's recovery
	// rate beside the rate that tipped it (hysteresis.go).
	RecoveryRate bool         `json:"recovery_rate,omitempty"`
	Hysteresis   []Hysteresis `json:"hysteresis,omitempty"`
}

// SweepAxis is one varied setting.
type SweepAxis struct {
	Path   string   `json:"path"`   // a lab path (docs/labfile.md) or "algorithm"
	Values []string `json:"values"` // as applied, in order
	Unit   string   `json:"unit"`   // "ms" when the values are durations (x is then in ms), "" for plain numbers, "text" when not numeric
}

// SweepPoint is one grid point under one setting, over the seeds.
type SweepPoint struct {
	Values []string `json:"values"` // the value of each axis
	X      float64  `json:"x"`      // the first axis's value as a number (0 when it is not numeric)
	Line   string   `json:"line"`   // the curve this point is on
	Summary
	Recovery *PointRecovery `json:"recovery,omitempty"` // from the script's first event that ends, over the seeds
}

// KneeRule is the p99 bound that defines a line's knee: a fixed bound, or
// a factor of the line's own p99 at its lowest point.
type KneeRule struct {
	Factor  float64 `json:"factor,omitempty"`   // e.g. 10: 10x the p99 at the lowest first-axis value
	BoundMS float64 `json:"bound_ms,omitempty"` // a fixed bound
}

func (k KneeRule) String() string {
	if k.BoundMS > 0 {
		return ms(k.BoundMS)
	}
	return strconv.FormatFloat(k.Factor, 'g', -1, 64) + "x the p99 at the lowest point"
}

// Knee is a line's knee: the highest first-axis value whose mean p99 stays
// under the bound, as does every lower value's.
type Knee struct {
	Line    string  `json:"line"`
	BoundMS float64 `json:"bound_ms"`
	Found   bool    `json:"found"`  // false: even the lowest point is over the bound
	Beyond  bool    `json:"beyond"` // the line never crosses the bound: its knee lies past the last point
	X       float64 `json:"x"`      // the knee's first-axis value (when found)
	Value   string  `json:"value"`  // the same as applied
	P99     float64 `json:"p99_ms"` // the mean p99 there
}

// Lines returns the names of the lines in order of first appearance.
func (s *Sweep) Lines() []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range s.Points {
		if !seen[p.Line] {
			seen[p.Line] = true
			out = append(out, p.Line)
		}
	}
	return out
}

// line returns the points of one line sorted by x.
func (s *Sweep) line(name string) []SweepPoint {
	var pts []SweepPoint
	for _, p := range s.Points {
		if p.Line == name {
			pts = append(pts, p)
		}
	}
	sort.SliceStable(pts, func(i, j int) bool { return pts[i].X < pts[j].X })
	return pts
}

// Numeric reports whether the first axis has numbers (curves and knees
// need them).
func (s *Sweep) Numeric() bool { return len(s.Axes) > 0 && s.Axes[0].Unit != "text" }

// FindKnees fills Knees by Knee's rule for every line (none when the first
// axis is not numeric).
func (s *Sweep) FindKnees() {
	s.Knees = nil
	if !s.Numeric() {
		return
	}
	for _, name := range s.Lines() {
		s.Knees = append(s.Knees, findKnee(name, s.line(name), s.Knee))
	}
}

func findKnee(name string, pts []SweepPoint, rule KneeRule) Knee {
	k := Knee{Line: name, BoundMS: rule.BoundMS}
	if len(pts) == 0 {
		return k
	}
	if k.BoundMS == 0 {
		k.BoundMS = rule.Factor * pts[0].Figures["p99"].Mean
	}
	for i, p := range pts {
		if p99 := p.Figures["p99"].Mean; p99 > k.BoundMS {
			return k
		}
		k.Found, k.X, k.Value, k.P99 = true, p.X, p.Values[0], p.Figures["p99"].Mean
		k.Beyond = i == len(pts)-1
	}
	return k
}

// WriteJSON writes the sweep as indented JSON.
func (s *Sweep) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}

// WriteTable prints one row per point and setting, line by line, then each
// line's knee.
func (s *Sweep) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "lab sweep %s (%s, %s, %gs)\n", s.Lab, s.Mode, seedsText(s.Seeds), s.DurationS)
	for _, a := range s.Axes {
		fmt.Fprintf(w, "  %s: %s\n", a.Path, joinValues(a.Values))
	}
	fmt.Fprintf(w, "\n%s\n", IntervalNote(len(s.Seeds), s.Confidence))
	heads := []string{"line", s.Axes[0].Path}
	rows := make([]labeled, len(s.Points))
	for i, p := range s.Points {
		rows[i] = labeled{labels: []string{p.Line, p.Values[0]}, sum: p.Summary}
	}
	if err := writeSummaries(w, heads, rows); err != nil {
		return err
	}
	if len(s.Knees) == 0 {
		return s.writeVerdicts(w)
	}
	fmt.Fprintf(w, "\nknee: the highest %s whose mean p99 stays under %s\n", s.Axes[0].Path, s.Knee)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, k := range s.Knees {
		switch {
		case !k.Found:
			fmt.Fprintf(tw, "  %s\tnone\t(over %s from the lowest point on)\n", k.Line, ms(k.BoundMS))
		case k.Beyond:
			fmt.Fprintf(tw, "  %s\t>= %s\t(p99 %s, still under %s at the last point)\n", k.Line, k.Value, ms(k.P99), ms(k.BoundMS))
		default:
			fmt.Fprintf(tw, "  %s\t%s\t(p99 %s; bound %s)\n", k.Line, k.Value, ms(k.P99), ms(k.BoundMS))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return s.writeVerdicts(w)
}

// writeVerdicts prints the maps when there are (their rows are the lines'
// boundaries), else each line's boundary.
func (s *Sweep) writeVerdicts(w io.Writer) error {
	if len(s.Maps) > 0 {
		if err := s.writeMaps(w); err != nil {
			return err
		}
	} else if err := s.writeBoundaries(w); err != nil {
		return err
	}
	return s.writeHysteresis(w)
}

func seedsText(seeds []uint64) string {
	if len(seeds) == 1 {
		return fmt.Sprintf("seed %d", seeds[0])
	}
	return fmt.Sprintf("%d seeds: %s", len(seeds), SeedList(seeds))
}

func joinValues(vs []string) string {
	out := ""
	for i, v := range vs {
		if i > 0 {
			out += ", "
		}
		out += v
	}
	return out
}

// WriteCSV writes one row per point and setting: the axes' values, the
// line, the setting, the number of seeds, then each figure (FigureNames)
// as its mean and, with two seeds or more, its interval (_lo, _hi; empty
// for one seed); when the points carry recovery verdicts, the seeds that
// recovered and the median time they took (empty when none did).
func (s *Sweep) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	head := []string{}
	for _, a := range s.Axes {
		head = append(head, a.Path)
	}
	head = append(head, "line", "setting", "seeds")
	var figs []*FigureSpec
	for _, f := range seedFigures() {
		if f.Optional && !slices.ContainsFunc(s.Points, func(p SweepPoint) bool { _, ok := p.Figures[f.Name]; return ok }) {
			continue // a figure none of the points has (the cross-zone shares of a lab without zones)
		}
		figs = append(figs, f)
	}
	for _, f := range figs {
		head = append(head, f.Name, f.Name+"_lo", f.Name+"_hi")
	}
	verdicts := slices.ContainsFunc(s.Points, func(p SweepPoint) bool { return p.Recovery != nil })
	if verdicts {
		head = append(head, "recovered", "median_after_s")
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	for _, p := range s.Points {
		row := append([]string{}, p.Values...)
		row = append(row, p.Line, p.Name, strconv.Itoa(len(s.Seeds)))
		for _, f := range figs {
			fig := p.Figures[f.Name]
			lo, hi := "", ""
			if len(fig.PerSeed) >= 2 {
				lo, hi = num(fig.Lo), num(fig.Hi)
			}
			row = append(row, num(fig.Mean), lo, hi)
		}
		if verdicts {
			row = append(row, recoveryCSV(p.Recovery)...)
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// recoveryCSV is a point's recovered seeds and their median time to
// recover, as CSV fields.
func recoveryCSV(r *PointRecovery) []string {
	if r == nil {
		return []string{"", ""}
	}
	took := ""
	if m := r.MedianAfter(); m != nil {
		took = num(*m)
	}
	return []string{strconv.Itoa(r.Recovered), took}
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
