package report

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
)

// Map is the metastability map of one setting: a sweep over two axes (a
// trigger's size and its length, say) whose every cell says on how many
// seeds the fleet recovered from the script's first event that ends, and
// how long it took, with the boundary between the cells where most seeds
// recovered and those where most did not (docs/sweeps.md).
type Map struct {
	Setting string `json:"setting"`
	// Slice is the third axis's value the map holds (path=value), when the
	// sweep has a third axis (load, say): one map per setting and value.
	Slice string    `json:"slice,omitempty"`
	Cells []MapCell `json:"cells"` // row by row: the second axis's values, each over the first's
	// Boundary are the steps between neighbouring cells on either side of
	// it: along the first axis within a row, along the second within a
	// column.
	Boundary []MapStep `json:"boundary"`
	// Recovering counts the cells where most seeds recovered: how much of
	// the grid a setting (a mitigation) keeps on the safe side.
	Recovering int `json:"recovering_cells"`
}

// MapCell is one cell of a map: a grid point under the map's setting.
type MapCell struct {
	X     string `json:"x"` // the first axis's value
	Y     string `json:"y"` // the second axis's value
	Event string `json:"event"`
	// Recovered of Seeds recovered; MedianAfterS is the median over those
	// seeds of the time from the event's end until back (null when none).
	Recovered    int      `json:"recovered"`
	Seeds        int      `json:"seeds"`
	MedianAfterS *float64 `json:"median_after_s"`
}

// Recovers says whether the cell recovered on most of its seeds.
func (c MapCell) Recovers() bool { return 2*c.Recovered > c.Seeds }

// MapStep is one step of a map's boundary: two neighbouring cells, one
// that recovered on most seeds and one that did not.
type MapStep struct {
	Axis     string `json:"axis"`     // the axis the step goes along
	At       string `json:"at"`       // the other axis's value
	Recovers string `json:"recovers"` // the value of Axis on the side that recovered
	Fails    string `json:"fails"`    // the neighbouring value, where most seeds did not
}

// Title names the map: its setting, and its slice of the third axis.
func (m *Map) Title() string {
	if m.Slice == "" {
		return m.Setting
	}
	return m.Setting + " at " + m.Slice
}

// FindMaps fills Maps, one per setting, when the sweep has two axes and its
// points carry recovery verdicts; with a third axis (load, say), one per
// setting and value of it, in the order of its values: the map sliced.
func (s *Sweep) FindMaps() {
	s.Maps = nil
	if len(s.Axes) != 2 && len(s.Axes) != 3 {
		return
	}
	xs, ys := s.Axes[0].Values, s.Axes[1].Values
	slices3 := []string{""}
	if len(s.Axes) == 3 {
		slices3 = s.Axes[2].Values
	}
	var names []string
	for _, p := range s.Points {
		if !slices.Contains(names, p.Name) {
			names = append(names, p.Name)
		}
	}
	for _, z := range slices3 {
		for _, name := range names {
			s.findMap(name, z, xs, ys)
		}
	}
}

// findMap adds the map of setting name, at value z of the third axis
// ("" without one), when every cell of it has a verdict.
func (s *Sweep) findMap(name, z string, xs, ys []string) {
	m := Map{Setting: name}
	if z != "" {
		m.Slice = s.Axes[2].Path + "=" + z
	}
	cells := map[[2]string]MapCell{}
	for _, p := range s.Points {
		if p.Name != name || p.Recovery == nil || z != "" && (len(p.Values) < 3 || p.Values[2] != z) {
			continue
		}
		c := MapCell{X: p.Values[0], Y: p.Values[1], Event: p.Recovery.Event, Recovered: p.Recovery.Recovered, Seeds: p.Recovery.Seeds}
		c.MedianAfterS = p.Recovery.MedianAfter()
		cells[[2]string{c.X, c.Y}] = c
	}
	if len(cells) != len(xs)*len(ys) {
		return // no verdicts (a script without a transient)
	}
	for _, y := range ys {
		for _, x := range xs {
			c := cells[[2]string{x, y}]
			m.Cells = append(m.Cells, c)
			if c.Recovers() {
				m.Recovering++
			}
		}
	}
	m.Boundary = m.steps(s.Axes[0].Path, s.Axes[1].Path, len(xs), len(ys))
	s.Maps = append(s.Maps, m)
}

// Cell is the map's cell at column i (first axis) and row j (second).
func (m *Map) Cell(i, j, nx int) MapCell { return m.Cells[j*nx+i] }

// steps finds the boundary: every pair of neighbours on either side of it.
func (m *Map) steps(xPath, yPath string, nx, ny int) []MapStep {
	var out []MapStep
	side := func(a, b MapCell, axis, at, va, vb string) {
		if a.Recovers() == b.Recovers() {
			return
		}
		st := MapStep{Axis: axis, At: at, Recovers: va, Fails: vb}
		if !a.Recovers() {
			st.Recovers, st.Fails = vb, va
		}
		out = append(out, st)
	}
	for j := range ny {
		for i := 0; i+1 < nx; i++ {
			a, b := m.Cell(i, j, nx), m.Cell(i+1, j, nx)
			side(a, b, xPath, a.Y, a.X, b.X)
		}
	}
	for i := range nx {
		for j := 0; j+1 < ny; j++ {
			a, b := m.Cell(i, j, nx), m.Cell(i, j+1, nx)
			side(a, b, yPath, a.X, a.Y, b.Y)
		}
	}
	return out
}

// writeMaps prints each setting's map: a row per value of the second axis,
// a column per value of the first, each cell the seeds that recovered and
// the median time it took, a | between two cells of a row on either side
// of the boundary; then the boundary along the first axis, row by row.
func (s *Sweep) writeMaps(w io.Writer) error {
	if len(s.Maps) == 0 {
		return nil
	}
	xs, ys := s.Axes[0], s.Axes[1]
	for _, m := range s.Maps {
		event := s.Trigger(m.Cells[0].Event)
		fmt.Fprintf(w, "\nmetastability map of %s: seeds that recovered from %s, and the median time to recover after it ended\n", m.Title(), event)
		tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', tabwriter.AlignRight)
		head := ys.Path + " \\ " + xs.Path + "\t"
		for _, x := range xs.Values {
			head += "\t" + x + "\t"
		}
		fmt.Fprintln(tw, "  "+head)
		for j, y := range ys.Values {
			row := "  " + y + "\t"
			for i := range xs.Values {
				c := m.Cell(i, j, len(xs.Values))
				sep := " "
				if i > 0 && c.Recovers() != m.Cell(i-1, j, len(xs.Values)).Recovers() {
					sep = "|"
				}
				took := "-"
				if c.MedianAfterS != nil {
					took = fmt.Sprintf("%gs", *c.MedianAfterS)
				}
				row += sep + "\t" + fmt.Sprintf("%d/%d %s", c.Recovered, c.Seeds, took) + "\t"
			}
			fmt.Fprintln(tw, row)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintf(w, "  boundary (| above; most seeds recover on one side, not on the other), %d of %d cells recover:\n", m.Recovering, len(m.Cells))
		for j, y := range ys.Values {
			var parts []string
			for _, st := range m.Boundary {
				if st.Axis == xs.Path && st.At == y {
					parts = append(parts, fmt.Sprintf("recovers at %s, not at %s", st.Recovers, st.Fails))
				}
			}
			if len(parts) == 0 {
				word := "none: most seeds recover at every " + xs.Path
				if !m.Cell(0, j, len(xs.Values)).Recovers() {
					word = "none: most seeds stay down at every " + xs.Path
				}
				parts = append(parts, word)
			}
			fmt.Fprintf(w, "    %s=%s: %s\n", ys.Path, y, strings.Join(parts, "; "))
		}
	}
	return s.writeMapsCompared(w)
}

// writeMapsCompared prints, with two maps or more (a setting each: the
// lab's mitigations), each setting's boundary along the first axis row by
// row side by side, and how many cells recover: how far each moves it.
func (s *Sweep) writeMapsCompared(w io.Writer) error {
	if len(s.Maps) < 2 {
		return nil
	}
	xs, ys := s.Axes[0], s.Axes[1]
	fmt.Fprintf(w, "\nthe boundary by setting: along %s at each %s (stays down|recovers), and the cells where most seeds recover\n", xs.Path, ys.Path)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := "  setting\t"
	for _, y := range ys.Values {
		head += y + "\t"
	}
	fmt.Fprintln(tw, head+"recover")
	for _, m := range s.Maps {
		row := "  " + m.Title() + "\t"
		for j, y := range ys.Values {
			var parts []string
			for _, st := range m.Boundary {
				if st.Axis == xs.Path && st.At == y {
					parts = append(parts, st.Fails+"|"+st.Recovers)
				}
			}
			switch {
			case len(parts) > 0:
			case m.Cell(0, j, len(xs.Values)).Recovers():
				parts = []string{"all"}
			default:
				parts = []string{"none"}
			}
			row += strings.Join(parts, ",") + "\t"
		}
		fmt.Fprintf(tw, "%s%d of %d\n", row, m.Recovering, len(m.Cells))
	}
	return tw.Flush()
}
