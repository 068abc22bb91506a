package torture

import (
	"fmt"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/assemble"
	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/balance"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/labfile/labyaml"
	"github.com/lblab/lblab/internal/sim"
)

// heapNow is the live heap after two collections.
func heapNow() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// The sizes the memory guard weighs a run's items with (assemble.Held,
// assemble.Built) are what the heap grows by: labs each dominated by one
// item, played in a session to an instant, hold what the heap says within
// assemble.MemorySlack either way.
func TestHeldMatchesTheHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("measures the heap of labs up to 100 MB")
	}
	cases := []struct {
		name, yaml string
		at         time.Duration
		frames     int
	}{
		{"a small lab", "name: small\nduration: 2s\nclients: {rate: 100}\nservers: [{count: 2}]\n", time.Second, 0},
		{"many servers", "name: fleet\nduration: 1s\nclients: {rate: 100}\nbalancers: {algorithm: round-robin}\nservers: [{count: 10000}]\n", 500 * time.Millisecond, 0},
		{"a ring", "name: ring\nduration: 1s\nclients: {rate: 100}\nbalancers: {algorithm: ring-hash, vnodes: 2000}\nservers: [{count: 2000}]\n", 500 * time.Millisecond, 0},
		{"a flood", "name: flood\nduration: 1s\nclients: {rate: 100000}\nservers: [{count: 1, speed: 0.1}]\n", 800 * time.Millisecond, 0},
		{"a long series", "name: series\nduration: 400s\nclients: {rate: 1}\nservers: [{count: 300}]\n", 399 * time.Second, 0},
		{"the page's frames", "name: frames\nduration: 30s\nclients: {rate: 100}\nbalancers: {count: 2}\nservers: [{count: 1000}]\n", 25 * time.Second, 81},
	}
	for _, c := range cases {
		lab, err := labyaml.Parse(c.name+".yaml", []byte(c.yaml))
		if err != nil {
			t.Fatal(err)
		}
		before := heapNow()
		sess, err := sim.NewSession(lab, sim.SessionOptions{Frames: c.frames, LatencyBins: min(c.frames, 8)})
		if err != nil {
			t.Fatal(err)
		}
		if err := sess.AdvanceTo(clock.Instant(c.at)); err != nil {
			t.Fatal(err)
		}
		held := float64(heapNow() - before)
		counted := sess.Memory()
		runtime.KeepAlive(sess)
		t.Logf("%s: the heap grew %s, the guard counts %s (ratio %.2f)", c.name, assemble.Bytes(held), assemble.Bytes(counted), counted/held)
		if counted > assemble.MemorySlack*held || held > assemble.MemorySlack*counted {
			t.Errorf("%s: the heap grew %s, the guard counts %s: not within %g times", c.name, assemble.Bytes(held), assemble.Bytes(counted), assemble.MemorySlack)
		}
	}
}

// The cost estimate's calibration (issue 33): labs drawn by the generator,
// run as lab torture runs them, each do at most assemble.EstimateSlack
// times the work the estimate counts (events and scanning picks' visits)
// and hold at most assemble.MemorySlack times its memory, and every
// algorithm, of the tier or of the clients, is among them. Their CPU time,
// added up by algorithm, is logged beside what the estimate says it costs:
// it depends on the machine, so BenchmarkEstimateCPU measures it.
func TestEstimateCalibration(t *testing.T) {
	const labs = 200
	type tally struct {
		labs                 int
		cpu, est             time.Duration
		worstWork, worstMem  float64
		worstWSeed, worstMSd uint64
	}
	by := map[string]*tally{}
	for seed := uint64(1); seed <= labs; seed++ {
		lab, err := labyaml.Parse(labName(seed), Draw(seed).Tree.YAML())
		if err != nil {
			t.Fatal(err)
		}
		if len(lab.Compare) > 0 {
			if lab, err = lab.WithSetting(settingOf(lab)); err != nil {
				t.Fatal(err)
			}
		}
		algorithm := lab.Balancers.Algorithm
		if assemble.ClientSide(lab) {
			algorithm = "clients " + lab.Clients.Algorithm
		}
		start := cpuTime()
		res, err := sim.Run(lab, sim.Options{MaxPending: options.MaxPending}) // as lab sim runs it: no invariants checked
		spent := cpuTime() - start
		if err != nil {
			t.Errorf("seed %d (%s): %v", seed, algorithm, err)
			continue
		}
		est, detail := Uncovered(lab, res)
		if detail != "" {
			t.Errorf("seed %d (%s): %s", seed, algorithm, detail)
		}
		tl := by[algorithm]
		if tl == nil {
			tl = &tally{}
			by[algorithm] = tl
		}
		tl.labs++
		tl.cpu += spent
		tl.est += est.CPU
		if r := res.Work / est.Work(); r > tl.worstWork {
			tl.worstWork, tl.worstWSeed = r, seed
		}
		if r := res.Memory / est.Memory; r > tl.worstMem {
			tl.worstMem, tl.worstMSd = r, seed
		}
	}
	for _, a := range labfile.Algorithms {
		if by[a] == nil {
			t.Errorf("no lab of seeds 1-%d balances with %s: the calibration must cover every algorithm", labs, a)
		}
	}
	for a, tl := range by {
		t.Logf("%-28s %3d labs: CPU %v, estimated %v; the largest work ratio %.2f (seed %d), memory ratio %.2f (seed %d)",
			a, tl.labs, tl.cpu.Round(time.Millisecond), tl.est.Round(time.Millisecond), tl.worstWork, tl.worstWSeed, tl.worstMem, tl.worstMSd)
	}
}

// cpuTime is the process's CPU time so far (user and system).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkEstimateCPU measures, algorithm by algorithm, the CPU time a
// run takes against the CPU its cost estimate says (assemble.Estimate):
// labs of 2,000 requests a second for 20 s (280,000 events) on 50 servers
// (about 70% of the fleet's capacity) and on 2,000 (where a pick's scan, a
// ring's or a table's build outweighs the events), balanced by a tier of
// one and, where the algorithm allows it, by the clients themselves. Its metric
// "x-estimate" is CPU / estimate: the estimate charges every event the
// same (assemble's eventCost) and scanning picks' visits their own
// (scanCost), so the spread of this metric across algorithms is how far
// their events' real costs differ, and a figure above
// assemble.EstimateSlack is an algorithm whose labs the CPU budget
// under-counts by more than the slack the guard allows. It is a speed
// figure, so a benchmark, not a test (docs/BENCHMARKS.md); the test above
// checks what does not depend on the machine (events, work, memory).
func BenchmarkEstimateCPU(b *testing.B) {
	for _, a := range labfile.Algorithms {
		sides := []string{"tier"}
		if !balance.CapsOf(a).TierOnly() {
			sides = append(sides, "clients")
		}
		for _, side := range sides {
			for _, servers := range []int{50, 2000} {
				yaml := fmt.Sprintf("name: calibrate\nduration: 20s\nclients: {rate: 2000}\nbalancers: {algorithm: %s}\nservers: [{count: %d}]\n", a, servers)
				if side == "clients" {
					yaml = fmt.Sprintf("name: calibrate\nduration: 20s\nclients: {rate: 2000, algorithm: %s}\nservers: [{count: %d}]\n", a, servers)
				}
				b.Run(fmt.Sprintf("%s/%s/servers=%d", side, a, servers), func(b *testing.B) {
					lab, err := labyaml.Parse("calibrate.yaml", []byte(yaml))
					if err != nil {
						b.Fatal(err)
					}
					est := assemble.Estimate(lab, nil, true)
					runtime.GC()
					b.ResetTimer()
					start := cpuTime()
					for i := 0; i < b.N; i++ {
						if _, err := sim.Run(lab, sim.Options{MaxPending: options.MaxPending}); err != nil {
							b.Fatal(err)
						}
					}
					spent := cpuTime() - start
					b.ReportMetric(float64(spent)/float64(b.N)/float64(est.CPU), "x-estimate")
				})
			}
		}
	}
}
