package dash

import (
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/report"
)

// The dashboard's goodput is report.Goodput over the last 2 s: when
// requests keep being started and none ends (all of them stuck), it is 0,
// as in a bin of the report, not unknown; only a window where nothing was
// started or ended has none (null).
func TestWindowGoodputIsTheReports(t *testing.T) {
	start := time.Unix(1000, 0)
	var d Deriver
	var offered uint64
	for i := 0; i <= 20; i++ { // 5 s at 100 requests/s; the first 50 succeed, then nothing ends
		d.Add(1, start, fakeReading(start, time.Duration(i)*250*time.Millisecond, offered, min(offered, 50), 0, 0, 0))
		offered += 25
	}
	if w := d.window(); w.Offered == 0 || float64(w.Goodput) != 0 {
		t.Errorf("stuck window: %d offered, goodput %v, want 0", w.Offered, w.Goodput)
	}
	var idle Deriver
	for i := 0; i <= 20; i++ {
		idle.Add(1, start, fakeReading(start, time.Duration(i)*250*time.Millisecond, 0, 0, 0, 0, 0))
	}
	if g := idle.window().Goodput; !math.IsNaN(float64(g)) {
		t.Errorf("idle window: goodput %v, want null", g)
	}
}

// Every figure of the report's table that names a dashboard key is a
// field of the snapshot's window, and every figure the window carries is
// one of the table's (the rest of the window is named here with why).
func TestWindowFiguresAreTheTables(t *testing.T) {
	notFigures := map[string]string{
		"seconds":       "the window's length",
		"offered_per_s": "a rate, the offered figure per second",
		"latency_note":  "where the percentiles come from",
	}
	typ := reflect.TypeFor[Window]()
	var keys []string
	for i := range typ.NumField() {
		keys = append(keys, strings.Split(typ.Field(i).Tag.Get("json"), ",")[0])
	}
	declared := map[string]bool{}
	for _, f := range report.Figures {
		if f.Dashboard == "" {
			continue
		}
		declared[f.Dashboard] = true
		if !slices.Contains(keys, f.Dashboard) {
			t.Errorf("figure %s: the snapshot's window has no %q", f.Name, f.Dashboard)
		}
	}
	for _, k := range keys {
		if !declared[k] && notFigures[k] == "" {
			t.Errorf("the snapshot's window carries %q, which is no figure of report.Figures", k)
		}
	}
}
