package sim

import (
	"bytes"
	"reflect"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/server"
	"github.com/lblab/lblab/internal/policy"
)

// At a low rate a session follows every request, and each one's story is
// the run's: its one attempt goes client, balancer, server and back in
// that order, the server's queue and service times add up to its stay
// there, and its end is its answer's arrival. Following changes nothing.
func TestSessionTripsAtALowRate(t *testing.T) {
	lab := parseLab(t, `
name: trips-low
seed: 3
duration: 5s
clients: {rate: 4, work: {dist: constant, mean: 20ms}}
balancers: {algorithm: round-robin}
servers: [{count: 3, workers: 1}]
`)
	s, err := NewSession(lab, SessionOptions{Trips: 64})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := playOut(t, s, 50*time.Millisecond), runLabJSON(t, lab); !bytes.Equal(got, want) {
		t.Fatalf("following requests changed the run:\n%s\nwant\n%s", got, want)
	}
	trips := s.Trips()
	res, _ := s.Result()
	if uint64(len(trips)) != res.Run.Requests || len(trips) < 10 {
		t.Fatalf("followed %d requests, the run had %d: at 4/s every one is followed", len(trips), res.Run.Requests)
	}
	servers := map[string]int{}
	for i, tr := range trips {
		if i > 0 && tr.Seq <= trips[i-1].Seq {
			t.Fatalf("trips not oldest first: %d after %d", tr.Seq, trips[i-1].Seq)
		}
		if tr.Outcome != policy.Succeeded || len(tr.Attempts) != 1 || tr.More != 0 {
			t.Fatalf("request %d: %v with %d attempts, want one success", tr.Seq, tr.Outcome, len(tr.Attempts))
		}
		a := tr.Attempts[0]
		order := []clock.Instant{tr.Intended, a.Sent, a.AtLB, a.AtServer, a.Replied, a.BackAtLB, a.AtClient}
		for k := 1; k < len(order); k++ {
			if order[k] < order[k-1] || order[k] == clock.Never {
				t.Fatalf("request %d: instants out of order or missing: %v", tr.Seq, order)
			}
		}
		if a.AtClient != tr.End || a.Kind != server.First || a.Status != server.OK || a.Result != policy.OK || a.Late || a.GaveUp != clock.Never {
			t.Fatalf("request %d: attempt %+v, end %v", tr.Seq, a, tr.End)
		}
		if stay := a.Replied.Sub(a.AtServer); a.Queue+a.Service != stay || a.Service != 20*time.Millisecond {
			t.Fatalf("request %d: queued %v + served %v, at the server %v (work 20ms)", tr.Seq, a.Queue, a.Service, stay)
		}
		servers[s.ServerName(a.Server)]++
	}
	if len(servers) != 3 || servers["s1"] == 0 {
		t.Fatalf("round robin over 3 servers, the trips went to %v", servers)
	}
}

// At 400/s a session keeps only its bound of requests, about
// TripsPerSecond of each second (every 50th at 400/s), and what it shows at
// an instant does not depend on how it got there.
func TestSessionTripsAreBoundedAndReplayed(t *testing.T) {
	lab := loadScenario(t, "rr-slow")
	s, err := NewSession(lab, SessionOptions{Trips: 24})
	if err != nil {
		t.Fatal(err)
	}
	for at := clock.Instant(0); at < clock.Instant(10*time.Second); {
		at += clock.Instant(7 * time.Millisecond)
		if err := s.AdvanceTo(at); err != nil {
			t.Fatal(err)
		}
		if n := len(s.Trips()); n > 24 {
			t.Fatalf("at %v: %d trips kept, the bound is 24", at, n)
		}
	}
	played := s.Trips()
	if len(played) != 24 {
		t.Fatalf("%d trips at 10 s, want the bound 24", len(played))
	}
	for _, tr := range played {
		if tr.Seq%50 != 0 {
			t.Fatalf("followed request %d at 400/s: want every 50th", tr.Seq)
		}
	}
	if first, last := played[0].Intended, played[len(played)-1].Intended; last.Sub(first) < 2*time.Second {
		t.Fatalf("24 trips span %v: at 8 a second they should cover about 3 s", last.Sub(first))
	}
	if err := s.Seek(s.Now()); err != nil { // where the steps stopped
		t.Fatal(err)
	}
	if seeked := s.Trips(); !reflect.DeepEqual(seeked, played) {
		t.Fatalf("trips at 10 s differ between playing in 7 ms steps and seeking")
	}
}

// In retry-storm's storm a followed request shows why it was retried: an
// attempt the balancer gave up on (504 after its 200 ms timeout), then a
// retry sent after it, while the server still worked on the first for
// nobody.
func TestSessionTripsShowRetries(t *testing.T) {
	lab := loadScenario(t, "retry-storm")
	s, err := NewSession(lab, SessionOptions{Trips: 64})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AdvanceTo(clock.Instant(9 * time.Second)); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, tr := range s.Trips() {
		for i := 1; i < len(tr.Attempts); i++ {
			prev, a := tr.Attempts[i-1], tr.Attempts[i]
			if a.Kind != server.Retry {
				continue
			}
			if prev.AtClient == clock.Never || a.Sent < prev.AtClient || prev.Result == policy.OK {
				t.Fatalf("request %d: retry sent at %v after attempt %+v", tr.Seq, a.Sent, prev)
			}
			if prev.LBGaveUp && prev.Result == policy.Timeout {
				found = true
			}
		}
	}
	if !found {
		t.Fatal("no followed request in retry-storm at 9 s was retried after a balancer timeout")
	}
}
