package dash

import (
	"math"
	"time"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/policy"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/shell/state"
)

// The dashboard on the virtual clock (lab watch, internal/watch): the
// simulator's world is presented in the processes' own state formats, and
// the snapshot is built from it by the same code as the live one, so the
// page reads one format from both clocks. Only the latency figures differ
// in origin: the simulator's exact per-bin percentiles instead of the
// loadgen's histogram buckets.

// SeriesBins is how many 250 ms bins a snapshot's series holds; WindowBins
// how many the counters sum (the last 2 s).
const (
	SeriesBins = seriesLen
	WindowBins = windowLen
)

// VirtualReading is a simulated world at one virtual instant, as its
// processes would report it on their admin APIs.
type VirtualReading struct {
	At        time.Duration // virtual time since the run started
	Balancers []state.LB    // none when the clients balance themselves
	Servers   []state.Backend
	Loadgen   state.Loadgen
	// Bin is the simulator's own record of the 250 ms bin that ends at At
	// (for the readings at bin ends): its percentiles, in_server and limit
	// are taken as they are.
	Bin *report.Bin
}

// VirtualView is what a virtual snapshot is built from.
type VirtualView struct {
	Lab               *labfile.Lab // the lab with the settings in force now
	First             Controls     // the controls as the run started (nil: these)
	Scenario, Setting string
	Features          Features
	Now               VirtualReading
	// Bins are the readings at the ends of the bins closed so far, oldest
	// first; the newest SeriesBins+1 are enough.
	Bins []VirtualReading
	// WindowP50 and WindowP99 are the latency (ms) of the requests that
	// succeeded over the last WindowBins bins (NaN: none did).
	WindowP50, WindowP99 float64
	Log                  []report.LogLine // the whole log so far
}

// VirtualSnapshot builds the snapshot of a simulated world, in the live
// snapshot's format (mode "watch").
func VirtualSnapshot(v VirtualView) *Snapshot {
	var d Deriver
	var exact [][3]float64 // per bin: p50, p95, p99
	var prev *Reading
	for i := range v.Bins {
		cur := virtualReading(&v.Bins[i])
		if prev != nil {
			b := makeBin(prev, cur, time.Unix(0, 0))
			q := [3]float64{math.NaN(), math.NaN(), math.NaN()}
			if sb := v.Bins[i].Bin; sb != nil {
				if b.c.succeeded > 0 {
					q = [3]float64{sb.P50, sb.P95, sb.P99}
				}
				for j, s := range cur.Servers {
					if j < len(sb.InServer) {
						b.inServer[s.Name] = sb.InServer[j]
					}
					if j < len(sb.Limit) {
						b.limit[s.Name] = sb.Limit[j]
					}
				}
			}
			d.bins, exact = append(d.bins, b), append(exact, q)
		}
		prev = cur
	}
	if n := len(d.bins) - seriesLen; n > 0 {
		d.bins, exact = d.bins[n:], exact[n:]
	}
	cur := virtualReading(&v.Now)
	d.prev = prev
	lab := v.Lab
	s := &Snapshot{Lab: lab.Name, Mode: "watch", Status: "running", Scenario: v.Scenario, Setting: v.Setting,
		Description: lab.Description, Narration: lab.Narration, T: num(v.Now.At.Seconds()),
		Features: v.Features, Algorithms: policy.Algorithms(), Window: d.window(), LatencySource: "histogram",
		Captions: captionsOf(lab)}
	s.Window.P50Ms, s.Window.P99Ms = num(v.WindowP50), num(v.WindowP99)
	s.Window.LatencyNote = "last 2 s of virtual time, from the simulator's latency histogram"
	if lab.Zoned() {
		s.Window.CrossZone = d.crossZone()
	}
	s.Controls = controlsNow(lab, cur)
	s.Settings = settingsOf(lab, s.Controls)
	first := s.Controls
	if v.First != nil {
		first = v.First
	}
	s.Changes = changes(first, s.Controls)
	s.Clients = clientsView(cur, s.Window)
	s.Balancers = balancerViews(&d, cur)
	var names []string
	s.Servers, names = serverViews(&d, cur)
	s.Series = d.series(names)
	placeZones(s, lab)
	for i, q := range exact {
		s.Series.P50[i], s.Series.P95[i], s.Series.P99[i] = num(q[0]), num(q[1]), num(q[2])
	}
	log := append([]report.LogLine{}, v.Log...)
	s.LogTotal = len(log)
	if len(log) > logKeep {
		log = log[len(log)-logKeep:]
	}
	s.Log = log
	return s
}

// virtualReading is r as the aggregator's reading of processes.
func virtualReading(r *VirtualReading) *Reading {
	out := &Reading{At: time.Unix(0, 0).Add(r.At), Loadgen: &r.Loadgen}
	for i := range r.Balancers {
		out.LBs = append(out.LBs, LBReading{Name: r.Balancers[i].Name, State: &r.Balancers[i]})
	}
	for i := range r.Servers {
		out.Servers = append(out.Servers, ServerReading{Name: r.Servers[i].Name, State: &r.Servers[i]})
	}
	return out
}

// Stream fans snapshots out to GET /api/stream clients, as the live
// controller's does: each client always gets the newest, a slow one skips.
type Stream struct{ h *hub }

// NewStream returns a stream with no snapshot yet.
func NewStream() *Stream { return &Stream{h: newHub()} }

// Publish hands data (an encoded snapshot) to every client.
func (s *Stream) Publish(data []byte) { s.h.publish(data) }

// Latest is the newest snapshot published (nil before the first).
func (s *Stream) Latest() []byte { return s.h.latest() }
