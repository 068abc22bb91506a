package sim

import (
	"reflect"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/labfile"
)

// latencyLab is a short p2c lab on a few servers.
func latencyLab(t *testing.T, algorithm string) *labfile.Lab {
	t.Helper()
	lab := labfile.Default()
	lab.Duration = 2 * time.Second
	for _, kv := range [][2]string{{"clients.rate", "800"}, {"servers[0].count", "4"}, {"balancers.algorithm", algorithm}} {
		if err := lab.Apply(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	return lab
}

// kept runs lab as run does but with the balancers' latency averages kept
// whatever its algorithms read: the reference the unkept run must equal.
func kept(t *testing.T, lab *labfile.Lab) Result {
	t.Helper()
	w, err := newWorld(lab.Clone(), lab.Balancers.Algorithm, Options{Series: true})
	if err != nil {
		t.Fatal(err)
	}
	w.start()
	w.loop()
	res, err := w.result()
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// unkept reports whether run leaves lab's latency averages unkept, and
// returns its result.
func unkept(t *testing.T, lab *labfile.Lab) (bool, Result) {
	t.Helper()
	w, err := newWorld(lab.Clone(), lab.Balancers.Algorithm, Options{Series: true})
	if err != nil {
		t.Fatal(err)
	}
	w.unkeepLatency()
	off := true
	for _, b := range w.bals {
		off = off && b.Loads().Unkept
	}
	w.start()
	w.loop()
	res, err := w.result()
	if err != nil {
		t.Fatal(err)
	}
	return off, res
}

// TestUnkeptLatencyChangesNoReport: a run whose algorithms read no latency
// average leaves them unkept, with the report of a run that keeps them; a
// run whose algorithm reads them, or with a script that may switch to one,
// keeps them.
func TestUnkeptLatencyChangesNoReport(t *testing.T) {
	lab := latencyLab(t, "p2c")
	off, res := unkept(t, lab)
	if !off {
		t.Fatal("p2c without a script keeps the latency averages nobody reads")
	}
	if want := kept(t, lab); !reflect.DeepEqual(res.Run, want.Run) {
		t.Fatalf("unkept latency averages changed the report:\n got %+v\nwant %+v", res.Run, want.Run)
	}
	if res.Run.Requests < 1000 {
		t.Fatalf("only %d requests: the lab does not exercise the balancer", res.Run.Requests)
	}

	if off, _ := unkept(t, latencyLab(t, "p2c-peak-ewma")); off {
		t.Fatal("p2c-peak-ewma reads the latency averages, but the run left them unkept")
	}
	scripted := latencyLab(t, "p2c")
	scripted.Events = []labfile.Event{{At: time.Second, Action: labfile.ActionAlgorithm, Algorithm: "least-latency"}}
	if off, _ := unkept(t, scripted); off {
		t.Fatal("a script may switch to an algorithm that reads the latency averages, but the run left them unkept")
	}
}
