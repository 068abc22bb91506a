package report

import (
	"bytes"
	"encoding/csv"
	"reflect"
	"strings"
	"testing"
)

// mapSweep is a sweep of a trigger's speed (x) and length (y) under two
// settings, each cell recovering on the seeds given per setting as
// recovered[setting][y][x] of 4, each recovery taking 1 s + 0.5 s per row.
func mapSweep(recovered map[string][][]int) *Sweep {
	s := &Sweep{Axes: []SweepAxis{{Path: "events[0].speed", Values: []string{"0.4", "0.6", "0.8"}},
		{Path: "events[0].for", Values: []string{"1s", "2s"}, Unit: "ms"}}, Seeds: []uint64{1, 2, 3, 4}}
	for _, name := range []string{"retries", "budget"} {
		for j, y := range s.Axes[1].Values {
			for i, x := range s.Axes[0].Values {
				r := &PointRecovery{Event: "slow all speed=" + x + " for=" + y, Recovered: recovered[name][j][i], Seeds: 4}
				for k := range 4 {
					var after *float64
					if k < r.Recovered {
						a := 1 + 0.5*float64(j) + float64(k)
						after = &a
					}
					r.AfterS = append(r.AfterS, after)
				}
				s.Points = append(s.Points, SweepPoint{Values: []string{x, y}, X: []float64{0.4, 0.6, 0.8}[i],
					Line: name + ", events[0].for=" + y, Summary: Summary{Name: name}, Recovery: r})
			}
		}
	}
	return s
}

// The map: one per setting, its cells row by row with the share of seeds
// that recovered and the median time of those that did, the boundary as
// every pair of neighbours on either side of it (along a row and along a
// column), and the table, which marks it with | and compares the settings.
func TestMetastabilityMap(t *testing.T) {
	s := mapSweep(map[string][][]int{
		"retries": {{1, 3, 4}, {0, 2, 4}}, // at 1 s it recovers from 0.6 on, at 2 s from 0.8
		"budget":  {{4, 4, 4}, {3, 4, 4}},
	})
	s.FindMaps()
	if len(s.Maps) != 2 || s.Maps[0].Setting != "retries" || s.Maps[1].Setting != "budget" {
		t.Fatalf("maps %+v: want retries and budget", s.Maps)
	}
	m := s.Maps[0]
	if c := m.Cell(1, 0, 3); c.X != "0.6" || c.Y != "1s" || c.Recovered != 3 || c.MedianAfterS == nil || *c.MedianAfterS != 2 {
		t.Errorf("cell (0.6, 1s) %+v: want 3 of 4, median 2 s (1, 2, 3)", c)
	}
	if c := m.Cell(0, 1, 3); c.Recovered != 0 || c.MedianAfterS != nil {
		t.Errorf("cell (0.4, 2s) %+v: want none and no time", c)
	}
	want := []MapStep{
		{Axis: "events[0].speed", At: "1s", Recovers: "0.6", Fails: "0.4"},
		{Axis: "events[0].speed", At: "2s", Recovers: "0.8", Fails: "0.6"},
		{Axis: "events[0].for", At: "0.6", Recovers: "1s", Fails: "2s"},
	}
	if !reflect.DeepEqual(m.Boundary, want) || m.Recovering != 3 {
		t.Errorf("boundary %+v, %d cells recover; want %+v and 3", m.Boundary, m.Recovering, want)
	}
	if b := s.Maps[1]; len(b.Boundary) != 0 || b.Recovering != 6 {
		t.Errorf("budget's map %+v: want no boundary, every cell recovering", b)
	}
	var buf bytes.Buffer
	if err := s.writeMaps(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, line := range []string{
		"metastability map of retries: seeds that recovered from slow all speed=… for=…, and the median time to recover after it ended",
		"1s   1/4 1s | 3/4 2s   4/4 2.5s",
		"2s    0/4 -   2/4 2s |   4/4 3s",
		"events[0].for=2s: recovers at 0.8, not at 0.6",
		"events[0].for=1s: none: most seeds recover at every events[0].speed",
		"retries  0.4|0.6  0.6|0.8  3 of 6",
		"budget   all      all      6 of 6",
	} {
		if !strings.Contains(out, line) {
			t.Errorf("the table lacks %q:\n%s", line, out)
		}
	}
	s.Axes = s.Axes[:1] // one axis: no map
	if s.FindMaps(); s.Maps != nil {
		t.Errorf("a map of one axis: %+v", s.Maps)
	}
}

// Along an axis on which the trigger gets milder (a slowdown's speed) the
// lowest point stays down and the highest recovers: the boundary is turned
// round (recovers_above) rather than reported as found nowhere, and the
// CSV carries each point's recovered seeds and median time.
func TestBoundaryRecoversAbove(t *testing.T) {
	s := mapSweep(map[string][][]int{"retries": {{1, 3, 4}, {0, 2, 4}}, "budget": {{4, 4, 4}, {4, 4, 4}}})
	s.FindBoundaries()
	if len(s.Boundaries) != 4 {
		t.Fatalf("boundaries %+v: want one a line", s.Boundaries)
	}
	if b := s.Boundaries[0]; !b.Found || !b.RecoversAbove || b.RecoversValue != "0.6" || b.FailsValue != "0.4" {
		t.Errorf("retries at 1 s: %+v; want recovering from 0.6, down at 0.4", b)
	}
	if b := s.Boundaries[1]; !b.RecoversAbove || b.RecoversValue != "0.8" || b.FailsValue != "0.6" {
		t.Errorf("retries at 2 s: %+v; want recovering from 0.8, down at 0.6", b)
	}
	if b := s.Boundaries[2]; b.RecoversAbove || !b.Beyond {
		t.Errorf("budget at 1 s: %+v; want recovering everywhere", b)
	}
	var buf bytes.Buffer
	if err := s.writeBoundaries(&buf); err != nil {
		t.Fatal(err)
	}
	if out := buf.String(); !strings.Contains(out, "where along events[0].speed most seeds stop recovering from slow all speed=… for=…") ||
		!strings.Contains(out, "between 0.4 and 0.6, recovering above") || !strings.Contains(out, "above 0.8: every point recovered") {
		t.Errorf("boundaries:\n%s", out)
	}
	buf.Reset()
	if err := s.WriteCSV(&buf); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	head, row := rows[0], rows[2] // retries at (0.6, 1s)
	if head[len(head)-2] != "recovered" || head[len(head)-1] != "median_after_s" || row[len(row)-2] != "3" || row[len(row)-1] != "2" {
		t.Errorf("CSV head %v, row %v: want recovered 3, median_after_s 2 last", head[len(head)-2:], row[len(row)-2:])
	}
}

// With a third axis (load) the map is sliced: one per setting and value of
// it, each holding only its own points, named by the slice in the table.
func TestMetastabilityMapSliced(t *testing.T) {
	low := mapSweep(map[string][][]int{"retries": {{4, 4, 4}, {1, 4, 4}}, "budget": {{4, 4, 4}, {4, 4, 4}}})
	high := mapSweep(map[string][][]int{"retries": {{1, 3, 4}, {0, 2, 4}}, "budget": {{4, 4, 4}, {3, 4, 4}}})
	s := &Sweep{Axes: append(low.Axes, SweepAxis{Path: "clients.rate", Values: []string{"300", "700"}}), Seeds: low.Seeds}
	for _, half := range []struct {
		rate string
		from *Sweep
	}{{"300", low}, {"700", high}} {
		for _, p := range half.from.Points {
			p.Values = append(p.Values, half.rate)
			s.Points = append(s.Points, p)
		}
	}
	s.FindMaps()
	var titles []string
	for _, m := range s.Maps {
		titles = append(titles, m.Title())
	}
	want := []string{"retries at clients.rate=300", "budget at clients.rate=300", "retries at clients.rate=700", "budget at clients.rate=700"}
	if !reflect.DeepEqual(titles, want) {
		t.Fatalf("maps %v, want %v", titles, want)
	}
	if r300, r700 := s.Maps[0], s.Maps[2]; r300.Recovering != 5 || r700.Recovering != 3 || len(r700.Boundary) != 3 {
		t.Errorf("retries: %d cells recover at 300/s, %d at 700/s (boundary %+v); want 5 and 3, the boundary of the unsliced map", r300.Recovering, r700.Recovering, r700.Boundary)
	}
	var buf bytes.Buffer
	if err := s.writeMaps(&buf); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"metastability map of retries at clients.rate=700: seeds that recovered", "retries at clients.rate=700  0.4|0.6  0.6|0.8  3 of 6"} {
		if !strings.Contains(buf.String(), line) {
			t.Errorf("the table lacks %q:\n%s", line, buf.String())
		}
	}
}
