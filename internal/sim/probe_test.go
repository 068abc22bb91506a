package sim

import (
	"reflect"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/balance"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/policy"
)

// Prequal against round robin on fleets of uneven capacity, with every
// invariant checked: its probes find the slow servers, so its tail is far
// shorter and the slow servers get less than their even share; the probes
// cost probe_rate per request, every one answered by an up server.
func TestPrequalBeatsRoundRobinOnUnevenFleets(t *testing.T) {
	for _, c := range []struct {
		scenario string
		slow     []string
	}{
		{"slow-server", []string{"slow"}},           // one server at 40% speed, bounded queues
		{"mixed-fleet", []string{"s4", "s5", "s6"}}, // half the fleet at half the speed of the other
	} {
		t.Run(c.scenario, func(t *testing.T) {
			lab := loadScenario(t, c.scenario)
			rep, err := Compare(lab, []labfile.Setting{{Name: "round-robin", Algorithm: "round-robin"},
				{Name: "prequal", Algorithm: "prequal"}}, Options{Check: true})
			if err != nil {
				t.Fatal(err)
			}
			rr, pq := runOf(t, rep, "round-robin"), runOf(t, rep, "prequal")
			if pq.Latency.P99 > 0.7*rr.Latency.P99 || pq.Goodput < rr.Goodput {
				t.Errorf("prequal p99 %.1f ms, goodput %.3f; round robin %.1f ms, %.3f: want prequal's p99 under 70%% of round robin's",
					pq.Latency.P99, pq.Goodput, rr.Latency.P99, rr.Goodput)
			}
			for _, s := range c.slow {
				if share(t, pq, s) > 0.75*share(t, rr, s) {
					t.Errorf("prequal sent %.3f to the slow server %s, round robin %.3f", share(t, pq, s), s, share(t, rr, s))
				}
			}
			if rr.Probes != nil {
				t.Errorf("round robin reports probes: %+v", rr.Probes)
			}
			p := pq.Probes
			if p == nil || p.PerRequest < 2.99 || p.PerRequest > 3.01 || p.Answered > p.Sent || p.Sent-p.Answered > 20 {
				t.Errorf("prequal's probes %+v over %d requests, want 3 a request (probe_rate), nearly all answered", p, pq.Requests)
			}
		})
	}
}

// A probe is two hops of the network, each delayed as the probe's own leg
// says; a server that is down answers none; and the same lab gives the
// same run, probes and all.
func TestPrequalProbesOverTheNetwork(t *testing.T) {
	lab := loadScenario(t, "slow-server")
	lab.Compare = nil
	lab.Duration = 6 * time.Second
	for _, kv := range [][2]string{{"balancers.algorithm", "prequal"}, {"network.jitter", "4ms"},
		{"balancers.prequal.probe_rate", "1.5"}} {
		if err := lab.Apply(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	lab.Events = []labfile.Event{{At: 2 * time.Second, Action: labfile.ActionKill, Target: "s1"}}
	a, err := Run(lab, Options{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Run(lab, Options{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a.Run, b.Run) {
		t.Fatal("two runs of the same lab differ")
	}
	p := a.Run.Probes
	if p == nil || p.PerRequest < 1.45 || p.PerRequest > 1.55 {
		t.Fatalf("probes %+v, want 1.5 a request", p)
	}
	// s1 is down from 2 s of 6: the probes sent to it then (about a fifth of
	// two thirds of them) get no answer.
	lost := float64(p.Sent-p.Answered) / float64(p.Sent)
	if lost < 0.05 || lost > 0.2 {
		t.Errorf("%d of %d probes unanswered, want about an eighth (those to the killed s1)", p.Sent-p.Answered, p.Sent)
	}
}

// One pick's probes, event by event: each reaches its server after its own
// leg's delay (policy.ProbeLeg(k, false) with the pick's number), is
// answered at once with the server's requests in flight, and its answer
// reaches the balancer after the way back's delay; the answers are then in
// the balancer's pool.
func TestProbeEventsRideTheirLegs(t *testing.T) {
	lab := loadScenario(t, "mixed-fleet")
	lab.Compare = nil
	for _, kv := range [][2]string{{"balancers.algorithm", "prequal"}, {"network.hop", "3ms"}, {"network.jitter", "5ms"}} {
		if err := lab.Apply(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	w, err := newWorld(lab, "probes", Options{})
	if err != nil {
		t.Fatal(err)
	}
	w.q = eventQueue{} // only the probes from here
	next := func() event {
		if _, src := w.q.earliest(); src == fromFIFO {
			return w.q.fifo.take()
		}
		return w.q.pop()
	}
	const pick = 17*16 + 1
	w.now = 0
	w.sendProbes(0, 0, balance.Request{Seq: pick})
	targets := append([]int(nil), w.probeBuf...)
	if len(targets) != 3 {
		t.Fatalf("a pick sent %d probes, want probe_rate 3", len(targets))
	}
	out := map[int]clock.Instant{} // by server, when its probe arrives
	for k, si := range targets {
		out[si] = clock.Instant(w.net.Delay(pick, policy.ProbeLeg(k, false)))
	}
	back := map[int]clock.Instant{}
	for range targets {
		e := next()
		p := w.probes.Get(e.h)
		if e.kind != evProbeAtServer || e.at != out[int(p.server)] {
			t.Fatalf("event %+v for server %d, want its probe at %v", e, p.server, out[int(p.server)])
		}
		w.now = e.at
		w.step(e)
		back[int(p.server)] = e.at + clock.Instant(w.net.Delay(pick, policy.ProbeLeg(int(p.k), true)))
	}
	for range targets {
		e := next()
		p := w.probes.Get(e.h)
		if e.kind != evProbeAtLB || e.at != back[int(p.server)] {
			t.Fatalf("event %+v for server %d, want its answer back at %v", e, p.server, back[int(p.server)])
		}
		w.now = e.at
		w.step(e)
	}
	if w.q.Len() != 0 {
		t.Errorf("%d events left after the probes", w.q.Len())
	}
	pool := w.bals[0].Pool()
	if len(pool) != len(targets) {
		t.Fatalf("pool %+v, want the %d answers", pool, len(targets))
	}
	for _, e := range pool {
		if e.At != back[e.Member] || e.RIF != 0 {
			t.Errorf("answer %+v, want server %d's, idle, arrived at %v", e, e.Member, back[e.Member])
		}
	}
}
