package sim

import (
	"bytes"
	"testing"
)

// Options.Progress hears the share of a Compare done: from 0 up to 1,
// never back, with each run's end at its place (1/3, 2/3, 1 for three
// settings) and the virtual time of the run going on in between; and the
// report is the same byte for byte with it or without.
func TestProgressCountsTheRuns(t *testing.T) {
	lab := loadScenario(t, "rr-slow")
	settings := allSettings(lab)
	if len(settings) < 2 {
		t.Fatalf("rr-slow has %d settings; the test needs several", len(settings))
	}
	var heard []float64
	with, err := Report(lab, settings, Options{Progress: func(f float64) { heard = append(heard, f) }})
	if err != nil {
		t.Fatal(err)
	}
	without, err := Report(lab, settings, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	if err := with.WriteJSON(&a); err != nil {
		t.Fatal(err)
	}
	if err := without.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("the report with Progress set differs from the one without")
	}
	n := float64(len(settings))
	ends, inside := 0, 0
	for i, f := range heard {
		if f < 0 || f > 1 || i > 0 && f < heard[i-1] {
			t.Fatalf("progress %d is %g after %v: want 0 to 1, never back", i, f, heard[max(0, i-3):i])
		}
		if k := f * n; k == float64(int(k)) && f > 0 {
			ends++
		} else {
			inside++
		}
	}
	if len(heard) == 0 || heard[len(heard)-1] != 1 {
		t.Fatalf("progress heard %d times, last %v: want it to end at 1", len(heard), heard[max(0, len(heard)-1):])
	}
	if ends < len(settings) || inside < 10*len(settings) {
		t.Errorf("%d run ends and %d steps inside the runs heard, want %d ends and each run's virtual time on the way", ends, inside, len(settings))
	}
	// a single run, too
	heard = nil
	if _, err := Run(lab, Options{Progress: func(f float64) { heard = append(heard, f) }}); err != nil {
		t.Fatal(err)
	}
	if len(heard) < 10 || heard[len(heard)-1] != 1 || heard[0] > heard[len(heard)/2] {
		t.Errorf("Run's progress: %d steps, first %v, last %v: want it to grow to 1", len(heard), heard[:min(1, len(heard))], heard[max(0, len(heard)-1):])
	}
}
