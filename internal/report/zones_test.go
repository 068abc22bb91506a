package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// The cross-zone figures are in a report only when a run counts zones: the
// table's columns, the run's JSON, the figures over seeds and a sweep's
// CSV. Without zones a report is as it was before they existed.
func TestCrossZoneOnlyWithZones(t *testing.T) {
	for _, zoned := range []bool{true, false} {
		runs := figureRuns()
		if !zoned {
			for i := range runs {
				runs[i].CrossZone = nil
			}
		}
		rep := &Report{Lab: "z", Runs: runs}
		var table, js bytes.Buffer
		if err := rep.WriteTable(&table); err != nil {
			t.Fatal(err)
		}
		if err := json.NewEncoder(&js).Encode(rep); err != nil {
			t.Fatal(err)
		}
		seeded, err := CombineSeeds([]uint64{1, 2}, []*Report{{Runs: runs}, {Runs: runs}})
		if err != nil {
			t.Fatal(err)
		}
		var csv bytes.Buffer
		sw := &Sweep{Seeds: []uint64{1, 2}, Axes: []SweepAxis{{Path: "clients.rate"}},
			Points: []SweepPoint{{Values: []string{"50"}, Line: "a", Summary: seeded.Seeds.Settings[0]}}}
		if err := sw.WriteCSV(&csv); err != nil {
			t.Fatal(err)
		}
		_, overSeeds := seeded.Seeds.Settings[0].Figures["cross_zone_requests"]
		for what, has := range map[string]bool{
			"the table's column": strings.Contains(table.String(), "x-zone-req"),
			"the JSON's object":  strings.Contains(js.String(), `"cross_zone"`),
			"the seeds' figure":  overSeeds,
			"the sweep's column": strings.Contains(csv.String(), "cross_zone_attempts"),
		} {
			if has != zoned {
				t.Errorf("zones %v: %s is there: %v", zoned, what, has)
			}
		}
		if zoned && !strings.Contains(table.String(), "30.0%") { // 300 of 1000 requests
			t.Errorf("the table does not give a's 30.0%% of requests crossed:\n%s", table.String())
		}
	}
}
