package sim

import (
	"math"
	"strings"
	"testing"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/report"
)

func simRun(t *testing.T, lab *labfile.Lab) report.Run {
	t.Helper()
	res, err := Run(lab, Options{Series: true, Check: true})
	if err != nil {
		t.Fatal(err)
	}
	return res.Run
}

const oneServer = `name: timed
seed: 3
duration: 10s
clients: {rate: 50, work: {dist: constant, mean: 10ms}}
servers: [{count: 1, workers: 1}]
`

// A time-boxed slow is a slow and a restore For later: the same run as the
// two events written out, and the log shows the undo at that instant.
func TestTimedSlowRestoresAtItsEnd(t *testing.T) {
	timed := simRun(t, parseLab(t, oneServer+"events: [{at: 2s, action: slow, target: s1, speed: 0.25, for: 2s}]\n"))
	split := simRun(t, parseLab(t, oneServer+`events:
  - {at: 2s, action: slow, target: s1, speed: 0.25}
  - {at: 4s, action: restore, target: s1}
`))
	var undoAt float64 = -1
	for _, l := range timed.Log {
		if l.Text == "restore s1 (end of slow s1 speed=0.25 for=2s)" {
			undoAt = l.T
		}
	}
	if undoAt != 4 {
		t.Fatalf("the undo is not logged at 4s: %+v", timed.Log)
	}
	timed.Log, split.Log = nil, nil
	if timed.Latency != split.Latency || timed.Requests != split.Requests || timed.Series[15].P99 != split.Series[15].P99 {
		t.Errorf("slow for 2s differs from slow then restore: %+v vs %+v", timed.Latency, split.Latency)
	}
	// At a quarter speed the server (busy half the time) falls behind; after
	// the restore it catches up.
	slowBin, lateBin := timed.Series[15], timed.Series[35] // 3.75s and 8.75s
	if !(slowBin.P50 > 100 && lateBin.P50 < 50) {
		t.Errorf("p50 at 3.75s %gms and at 8.75s %gms: want slow then restored", slowBin.P50, lateBin.P50)
	}
}

// An added server is removed at the end of its time box.
func TestTimedAddServer(t *testing.T) {
	run := simRun(t, parseLab(t, oneServer+"events: [{at: 2s, action: add-server, target: extra, for: 3s}]\n"))
	var text []string
	for _, l := range run.Log {
		text = append(text, l.Text)
	}
	if !strings.Contains(strings.Join(text, "|"), "remove-server extra (end of add-server extra for=3s)") {
		t.Fatalf("log: %q", text)
	}
	for _, b := range run.Series {
		if b.T >= 5.5 && len(b.InServer) > 1 && b.InServer[1] != 0 {
			t.Fatalf("the removed server still holds requests at %gs", b.T)
		}
	}
}

// clients.faults: the marked shares come back with their status or delay.
func TestFaultShares(t *testing.T) {
	plain := simRun(t, parseLab(t, oneServer))
	faulty := strings.Replace(oneServer, "mean: 10ms}", "mean: 10ms}, faults: [{share: 0.1, status: 503}, {share: 0.2, delay: 300ms}]", 1)
	run := simRun(t, parseLab(t, faulty))
	if r := float64(run.Rejected) / float64(run.Requests); math.Abs(r-0.1) > 0.03 {
		t.Errorf("503 for %.3f of the requests, want 0.1", r)
	}
	if plain.Rejected != 0 || plain.Latency.P95 > 100 {
		t.Fatalf("the plain lab already rejects or is slow: %+v", plain.Latency)
	}
	// A fifth of the requests wait 300 ms more: p95 is one of them, p50 not.
	if run.Latency.P95 < 300 || run.Latency.P50 > 100 {
		t.Errorf("latency with a 20%% delay share: p50 %g p95 %g", run.Latency.P50, run.Latency.P95)
	}
	if s := run.Servers[0]; s.Completed >= s.Sent {
		t.Errorf("faulted answers counted as served: %+v", s)
	}
}

// An open-loop profile sets the offered load of each bin.
func TestRateProfile(t *testing.T) {
	run := simRun(t, parseLab(t, `duration: 20s
clients: {profile: {shape: steps, levels: [100, 400, 0, 200], every: 5s}}
servers: [{count: 4, workers: 4}]
`))
	for _, w := range []struct{ from, to, want float64 }{{0, 5, 100}, {5, 10, 400}, {10, 15, 0}, {15, 20, 200}} {
		var n uint64
		for _, b := range run.Series {
			if b.T >= w.from && b.T < w.to {
				n += b.Offered
			}
		}
		got := float64(n) / (w.to - w.from)
		if math.Abs(got-w.want) > 4*math.Sqrt(w.want*5)/5+0.01 {
			t.Errorf("offered %g/s in [%gs, %gs), the profile says %g", got, w.from, w.to, w.want)
		}
	}
}

// A closed-loop profile sets the number of users: users beyond the count
// stop after their request, new ones start.
func TestUsersProfile(t *testing.T) {
	run := simRun(t, parseLab(t, `duration: 12s
clients: {mode: closed, think: 100ms, work: {dist: constant, mean: 10ms}, profile: {shape: steps, levels: [2, 8, 1], every: 4s}}
servers: [{count: 8, workers: 1}]
`))
	rate := func(from, to float64) float64 {
		var n uint64
		for _, b := range run.Series {
			if b.T >= from && b.T < to {
				n += b.Offered
			}
		}
		return float64(n) / (to - from)
	}
	// Each user sends about one request per think + service + hops (~130 ms).
	lo, hi, last := rate(1, 4), rate(5, 8), rate(9, 12)
	if !(hi > 3*lo && hi < 5.5*lo && last < 0.8*lo && last > 0.3*lo) {
		t.Errorf("requests/s with 2, 8, 1 users: %.1f, %.1f, %.1f", lo, hi, last)
	}
}
