package server

import (
	"testing"
	"time"
)

// A probe answer through the server's own queue: one worker, jobs of 10 ms
// arriving together find 0, 1 and 2 others in flight and take 10, 20 and
// 30 ms. The answer is the requests in flight now and the median time of
// the served requests nearest that count on arrival.
func TestProbeAnswer(t *testing.T) {
	r := newRig(t, Config{Name: "s1", Workers: 1, Probed: true})
	if p := r.s.Probe(); p.RIF != 0 || p.Latency != 0 {
		t.Fatalf("an idle server that served nothing answers %+v, want 0 in flight and no estimate", p)
	}
	for id := uint64(1); id <= 3; id++ {
		r.arrive(ms(0), id, dms(10))
	}
	if p := r.s.Probe(); p.RIF != 3 || p.Latency != 0 {
		t.Errorf("at 0: %+v, want 3 in flight and no estimate yet", p)
	}
	r.until(ms(15))
	if p := r.s.Probe(); p.RIF != 2 || p.Latency != dms(10) {
		t.Errorf("at 15ms: %+v, want 2 in flight, 10ms (the one request served)", p)
	}
	r.until(ms(30))
	if p := r.s.Probe(); p.RIF != 0 || p.Latency != dms(20) {
		t.Errorf("at 30ms: %+v, want 0 in flight, 20ms (the median of 10, 20 and 30)", p)
	}
	if n := r.s.Snapshot(ms(30)).Probes; n != 4 {
		t.Errorf("the snapshot counts %d probes answered, want 4", n)
	}

	// Without Probed the server keeps no history: the count alone.
	r = newRig(t, Config{Name: "s2", Workers: 1})
	r.arrive(ms(0), 1, dms(10))
	r.arrive(ms(0), 2, dms(10))
	r.until(ms(10))
	if p := r.s.Probe(); p.RIF != 1 || p.Latency != 0 {
		t.Errorf("without Probed: %+v, want 1 in flight and no estimate", p)
	}
}

// The estimate by hand: the median of the ProbeNearest requests nearest in
// their count on arrival, the newer of equally near ones, over the last
// ProbeHistory only.
func TestProbeEstimateNearestMedian(t *testing.T) {
	var h history
	for i := 1; i <= 10; i++ {
		h.add(0, dms(float64(i))) // found 0 in flight: 1 .. 10 ms
	}
	for range 10 {
		h.add(5, dms(100)) // found 5: 100 ms
	}
	for _, c := range []struct {
		rif  int
		want time.Duration
	}{
		{0, dms(6.5)}, // the newest 8 of the 10 at 0: 3 .. 10 ms
		{2, dms(6.5)}, // 2 from 0, 3 from 5: the ones at 0
		{3, dms(100)}, // 3 from 0, 2 from 5: the ones at 5
		{5, dms(100)},
		{40, dms(100)},
	} {
		if got := h.estimate(c.rif); got != c.want {
			t.Errorf("estimate at %d in flight: %v, want %v", c.rif, got, c.want)
		}
	}
	// The ring keeps the last ProbeHistory: slow requests pushed out by as
	// many fast ones no longer count.
	for range ProbeHistory {
		h.add(1, time.Second)
	}
	for range ProbeHistory {
		h.add(1, dms(2))
	}
	if got := h.estimate(1); got != dms(2) {
		t.Errorf("after a whole ring of 2 ms requests: %v, want 2ms", got)
	}
	// An odd number kept: the middle one.
	var odd history
	for _, x := range []float64{30, 10, 20} {
		odd.add(0, dms(x))
	}
	if got := odd.estimate(9); got != dms(20) {
		t.Errorf("three requests of 30, 10 and 20 ms: %v, want 20ms", got)
	}
}

// A probe answer allocates nothing, nor does recording a request served.
func TestProbeAllocatesNothing(t *testing.T) {
	r := newRig(t, Config{Name: "s1", Workers: 2, Probed: true})
	for id := uint64(1); id <= 40; id++ {
		r.arrive(ms(float64(id)), id, dms(3))
	}
	r.until(ms(100))
	if n := testing.AllocsPerRun(100, func() { _ = r.s.Probe() }); n != 0 {
		t.Errorf("Probe allocates %v times", n)
	}
	id := uint64(100)
	if n := testing.AllocsPerRun(100, func() {
		id++
		r.log = r.s.Arrive(ms(200), Job{ID: id, Work: dms(1)}, r.log[:0])
		r.log = r.s.Advance(ms(200+float64(id)), r.log[:0])
	}); n != 0 {
		t.Errorf("serving a request with Probed allocates %v times", n)
	}
}
