package plan

import (
	"bytes"
	"context"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/sim"
	"github.com/lblab/lblab/scenarios"
)

func TestParseSeeds(t *testing.T) {
	for spec, want := range map[string][]uint64{
		"3":        {1, 2, 3},
		"1-4":      {1, 2, 3, 4},
		"7,9,11":   {7, 9, 11},
		"1-3, 9":   {1, 2, 3, 9},
		"0-1":      {0, 1},
		"10-11,5":  {10, 11, 5},
		" 2 ":      {1, 2},
		"100-101":  {100, 101},
		"5,6-7,12": {5, 6, 7, 12},
	} {
		got, err := ParseSeeds(spec)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("%q: %v, %v; want %v", spec, got, err, want)
		}
	}
	for _, spec := range []string{"", "0", "1", "5-3", "1-", "-3", "1,,2", "2,2", "1-3,2", "x", "1-20000", "18446744073709551615"} {
		if got, err := ParseSeeds(spec); err == nil {
			t.Errorf("%q: %v, want an error", spec, got)
		}
	}
}

func TestParseVary(t *testing.T) {
	for spec, want := range map[string]Axis{
		"clients.rate=100:400:100":        {Path: "clients.rate", Values: []string{"100", "200", "300", "400"}, Nums: []float64{100, 200, 300, 400}},
		"clients.budget=0.1:0.3:0.1":      {Path: "clients.budget", Values: []string{"0.1", "0.2", "0.3"}, Nums: []float64{0.1, 0.2, 0.3}},
		"clients.rate=100:350:100":        {Path: "clients.rate", Values: []string{"100", "200", "300"}, Nums: []float64{100, 200, 300}},
		"clients.timeout=50ms:150ms:50ms": {Path: "clients.timeout", Values: []string{"50ms", "100ms", "150ms"}, Nums: []float64{50, 100, 150}, Unit: "ms"},
		"clients.timeout=1s:2s:500ms":     {Path: "clients.timeout", Values: []string{"1s", "1.5s", "2s"}, Nums: []float64{1000, 1500, 2000}, Unit: "ms"},
		"algorithm=p2c, round-robin":      {Path: "algorithm", Values: []string{"p2c", "round-robin"}, Unit: "text"},
		"clients.retries=0,2,1":           {Path: "clients.retries", Values: []string{"0", "2", "1"}, Nums: []float64{0, 2, 1}},
		"network.hop=1ms,5ms":             {Path: "network.hop", Values: []string{"1ms", "5ms"}, Nums: []float64{1, 5}, Unit: "ms"},
	} {
		got, err := ParseVary(spec)
		if err != nil || got.Path != want.Path || !slices.Equal(got.Values, want.Values) || !slices.Equal(got.Nums, want.Nums) || got.Unit != want.Unit {
			t.Errorf("%q: %+v, %v; want %+v", spec, got, err, want)
		}
	}
	for _, spec := range []string{"", "clients.rate", "=1,2", "clients.rate=", "clients.rate=1:2", "clients.rate=1:2:3:4",
		"clients.rate=1:2:0", "clients.rate=1:2:-1", "clients.rate=3:1:1", "clients.rate=1:100000:1", "x=1,,2", "x=a,a",
		"clients.timeout=1s:2:1s", "clients.rate=NaN:1:1"} {
		if got, err := ParseVary(spec); err == nil {
			t.Errorf("%q: %+v, want an error", spec, got)
		}
	}
}

// The pool returns each lab's runs in setting order, exactly as one
// sequential compare per seed does, and a failing run is reported (run
// under -race, this also checks the workers share nothing).
func TestBatchSimulateMatchesSequential(t *testing.T) {
	lab, err := scenarios.Lab("rr-slow")
	if err != nil {
		t.Fatal(err)
	}
	if err := lab.Apply("duration", "6s"); err != nil {
		t.Fatal(err)
	}
	var settings []labfile.Setting
	for _, a := range []string{"round-robin", "p2c", "least-outstanding"} {
		settings = append(settings, labfile.Setting{Name: a, Algorithm: a})
	}
	b := Batch{What: "test", Labs: WithSeeds(lab, []uint64{3, 1, 2, 9}), Settings: settings}
	var progress bytes.Buffer
	pool := Sim{Options: func(int) sim.Options { return sim.Options{} }}
	reps, err := pool.Run(context.Background(), b, &progress)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(progress.String(), "test: 12 runs in") {
		t.Errorf("progress %q", progress.String())
	}
	for i, l := range b.Labs {
		want, err := sim.Compare(l, settings, sim.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if reps[i].Seed != l.Seed || !reflect.DeepEqual(reps[i].Runs, want.Runs) {
			t.Errorf("seed %d: the pool's runs differ from a sequential compare", l.Seed)
		}
	}
	bad := labfile.Setting{Name: "broken", Set: map[string]string{"clients.rate": "-1"}}
	b.Settings = append(b.Settings, bad)
	if _, err := pool.Run(context.Background(), b, io.Discard); err == nil || !strings.Contains(err.Error(), "broken") {
		t.Errorf("a failing setting: %v", err)
	}
}

// On a terminal a batch's progress is one line redrawn in place with the
// count, the rate and the time left; elsewhere (a pipe, a file: --json's
// stdout is never touched) steps print nothing and only the summary shows.
func TestProgressLine(t *testing.T) {
	var buf bytes.Buffer
	p := &Progress{w: &buf, tty: true, what: "lab torture", total: 40, Units: "labs", start: time.Now().Add(-2 * time.Second)}
	p.Step()
	got := buf.String()
	if !strings.HasPrefix(got, "\r\033[Klab torture: 1 of 40 labs, 2s, 0.5 labs/s, about 1m18s left") {
		t.Errorf("progress line %q", got)
	}
	p.Clear()
	if !strings.HasSuffix(buf.String(), "\r\033[K") {
		t.Errorf("clear left %q", buf.String())
	}
	buf.Reset()
	q := NewProgress(&buf, "lab sweep x", 3) // not a terminal
	q.Step()
	q.Clear()
	if buf.Len() != 0 {
		t.Errorf("off a terminal a step printed %q", buf.String())
	}
	q.Finish("on 1 workers")
	if !strings.HasPrefix(buf.String(), "lab sweep x: 1 runs in ") {
		t.Errorf("summary %q", buf.String())
	}
}
