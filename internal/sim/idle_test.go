package sim

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/assemble"
	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/server"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/policy"
)

// jiqLab is the jiq scenario cut short: 4 balancers, 12 servers at 70%.
func jiqLab(t *testing.T) *labfile.Lab {
	t.Helper()
	lab := loadScenario(t, "jiq")
	lab.Compare, lab.Events, lab.Captions = nil, nil, nil
	lab.Duration = 3 * time.Second
	for _, kv := range [][2]string{{"balancers.count", "4"}, {"clients.rate", "84"}, {"network.jitter", "4ms"}} {
		if err := lab.Apply(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	lab.Servers[0].Count = 12
	return lab
}

// One server's announcement, event by event: a reply that leaves it idle
// sends one, on the server -> balancer hop drawn from its own leg
// (policy.IdleLeg with the announcement's number), to the balancer
// balancers.jiq chooses; it lands in that balancer's idle queue, and the
// next pick there takes it.
func TestIdleAnnouncementRidesItsHop(t *testing.T) {
	lab := jiqLab(t)
	w, err := newWorld(lab, "idle", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !w.announcing {
		t.Fatal("a jiq lab's servers do not announce")
	}
	w.q = eventQueue{} // only the announcement from here
	const si = 5
	at := clock.Instant(40 * time.Millisecond)
	w.now = at
	w.announce(si, at)
	number := policy.Announcement(w.servers[si].spec.Name, 0)
	want := assemble.JIQ(lab).Sample(lab.Seed, number, 4, nil)[0]
	e := w.q.pop()
	if e.kind != evIdleAtLB || int(e.h) != want || e.a != si || e.at != at.Add(w.net.Delay(number, policy.IdleLeg)) {
		t.Fatalf("event %+v, want server %d's announcement to balancer %d at %v", e, si, want, at.Add(w.net.Delay(number, policy.IdleLeg)))
	}
	if e.at == at.Add(lab.Network.Hop) {
		t.Errorf("the announcement took the hop without its jitter")
	}
	w.now = e.at
	w.step(e)
	if q := w.bals[want].IdleQueue(nil); len(q) != 1 || q[0] != si {
		t.Fatalf("balancer %d's idle queue %v, want [%d]", want, q, si)
	}
	if w.servers[si].announced != 1 || w.announcements != 1 {
		t.Errorf("counted %d announcements of the server, %d in all", w.servers[si].announced, w.announcements)
	}
	// A reply that leaves the server idle announces it; one that leaves it
	// down (killed) does not.
	w.replyBuf = append(w.replyBuf[:0], server.Reply{At: e.at})
	w.idleAfterReplies(si)
	w.replyBuf = w.servers[si].core.Kill(e.at, w.replyBuf[:0])
	w.replyBuf = append(w.replyBuf, server.Reply{At: e.at})
	w.idleAfterReplies(si)
	if w.announcements != 2 || w.q.Len() != 1 {
		t.Errorf("%d announcements (%d events), want one more for the idle server and none once it is down", w.announcements, w.q.Len())
	}
}

// With join shortest every announcement goes to the shorter of the two
// queues it samples.
func TestIdleAnnouncementJoinsTheShortest(t *testing.T) {
	lab := jiqLab(t)
	if err := lab.Apply("balancers.jiq.join", "shortest"); err != nil {
		t.Fatal(err)
	}
	w, err := newWorld(lab, "idle", Options{})
	if err != nil {
		t.Fatal(err)
	}
	w.q = eventQueue{}
	for i := range 3 { // balancer 0 holds 3 idle servers, the others none
		w.bals[0].Idle(0, i)
	}
	for si := 3; si < 12; si++ {
		w.announce(si, 0)
		e := w.q.pop()
		sampled := assemble.JIQ(lab).Sample(lab.Seed, policy.Announcement(w.servers[si].spec.Name, 0), 4, nil)
		if len(sampled) != 2 {
			t.Fatalf("sampled %v, want 2 balancers", sampled)
		}
		if int(e.h) == 0 || int(e.h) != sampled[0] && int(e.h) != sampled[1] {
			t.Errorf("server %d joined balancer %d of %v, want the sampled one with the empty queue", si, e.h, sampled)
		}
	}
}

// Whole runs: the same lab gives the same run, announcements and all; the
// servers announce at most once a reply, and many picks find an idle
// server at 70% (a killed server among them); a lab without jiq reports
// no announcements.
func TestIdleAnnouncementsOverRuns(t *testing.T) {
	lab := jiqLab(t)
	lab.Events = []labfile.Event{{At: time.Second, Action: labfile.ActionKill, Target: "s1"}}
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
	ann := a.Run.Announcements
	if ann == nil || ann.Sent == 0 || ann.PerRequest > 1 || ann.IdleShare < 0.3 || ann.Picks == 0 {
		t.Fatalf("announcements %+v over %d requests, want at most one a request and over 30%% of the picks from idle queues", ann, a.Run.Requests)
	}
	if err := lab.Apply("balancers.algorithm", "p2c"); err != nil {
		t.Fatal(err)
	}
	p, err := Run(lab, Options{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	if p.Run.Announcements != nil {
		t.Errorf("p2c reports announcements %+v", p.Run.Announcements)
	}
}

// In a lab with zones an announcement rides the link between the server's
// zone and its balancer's, and is lost across a cut one; under a locality
// layer a server announces only to its own zone's balancers (where the
// layer keeps its picks), without one to any.
func TestIdleAnnouncementsInZones(t *testing.T) {
	const text = `
name: zoned-jiq
duration: 2s
zones: [{name: a}, {name: b}]
network: {hop: 1ms, cross_zone: {hop: 40ms}}
clients: {rate: 50, zones: [a, b]}
balancers: {count: 4, zones: [a, b], algorithm: jiq, locality: {policy: %s}}
servers:
  - {count: 6, zone: a}
  - {count: 6, zone: b}
`
	announce := func(w *world, si int) (event, bool) {
		w.q = eventQueue{}
		w.announce(si, 0)
		if w.q.Len() == 0 {
			return event{}, false
		}
		return w.q.pop(), true
	}
	for _, policyName := range []string{"local", "none"} {
		w, err := newWorld(parseLab(t, fmt.Sprintf(text, policyName)), "idle", Options{})
		if err != nil {
			t.Fatal(err)
		}
		z := w.net.Zones
		crossed := 0
		for si := range 12 {
			for range 8 { // several announcements of each server
				e, ok := announce(w, si)
				if !ok {
					t.Fatalf("%s: server %d's announcement sent nowhere", policyName, si)
				}
				from, to := z.Server(int32(si)), z.Balancer(int32(e.h))
				if want := clock.Instant(w.net.Between(from, to).Delay(0, policy.IdleLeg)); e.at != want {
					t.Errorf("%s: server %d (zone %d) -> balancer %d (zone %d) at %v, want the link's %v", policyName, si, from, e.h, to, e.at, want)
				}
				if from != to {
					crossed++
				}
			}
		}
		switch {
		case policyName == "local" && crossed > 0:
			t.Errorf("under a locality layer %d announcements went to another zone's balancer", crossed)
		case policyName == "none" && crossed == 0:
			t.Errorf("without a layer no announcement of 96 went to the other zone's balancers")
		}
		// partitioned, the crossing ones are lost on the way
		if err := w.lab.Apply("network.partition", "true"); err != nil {
			t.Fatal(err)
		}
		w.net = assemble.Network(w.lab)
		lost := 0
		for si := range 12 {
			for range 8 {
				if _, ok := announce(w, si); !ok {
					lost++
				}
			}
		}
		if (policyName == "local") != (lost == 0) {
			t.Errorf("%s, partitioned: %d of 96 announcements lost", policyName, lost)
		}
	}
}
