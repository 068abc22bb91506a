package watch

import (
	"fmt"
	"slices"
	"time"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/lab/dash"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/labfile/labyaml"
)

// MaxFleet is the most servers POST /api/fleet builds: the page draws
// every one (a lab file may hold more; lab sim runs those).
const MaxFleet = 64

// FleetDists are the work distributions the fleet form offers.
var FleetDists = []string{"constant", "exponential", "lognormal"}

// fleetIn is POST /api/fleet: the fleet rebuilt, every field optional (the
// lab's first server group's otherwise).
type fleetIn struct {
	Count   *int    `json:"count"`        // servers
	Workers *int    `json:"workers"`      // each
	Queue   *int    `json:"queue"`        // each one's queue capacity, 0 = unbounded
	Dist    *string `json:"distribution"` // the requests' work: constant, exponential or lognormal (same mean)
}

// rebuiltFleet is l with one group of servers, the first group's settings
// with in's: count, workers, queue capacity, and the work distribution
// (its mean kept). The narration and captions, which told of the lab's
// own fleet, are dropped. The lab file then validates as any would.
func rebuiltFleet(l *labfile.Lab, in fleetIn) (*labfile.Lab, error) {
	l = l.Clone()
	g := l.Servers[0]
	g.Count, g.Name = len(l.ExpandServers()), ""
	if in.Count != nil {
		if *in.Count < 1 || *in.Count > MaxFleet {
			return nil, fmt.Errorf("count: must be from 1 to %d servers, got %d", MaxFleet, *in.Count)
		}
		g.Count = *in.Count
	}
	if in.Workers != nil {
		g.Workers = *in.Workers
	}
	if in.Queue != nil {
		g.Queue.Capacity = *in.Queue
	}
	l.Servers = []labfile.ServerGroup{g}
	// The lab's words described its own fleet: a rebuilt one goes without.
	l.Narration, l.Captions = "", nil
	l.Description = fmt.Sprintf("%s, its fleet rebuilt as %d servers of %d workers", l.Name, g.Count, g.Workers)
	if in.Dist != nil {
		if !slices.Contains(FleetDists, *in.Dist) {
			return nil, fmt.Errorf("distribution: must be one of %v, got %q", FleetDists, *in.Dist)
		}
		w := &l.Clients.Work
		if w.Mean == 0 && len(w.Mix) > 0 { // a mixture's mean, kept
			var sum, p float64
			for _, m := range w.Mix {
				sum, p = sum+m.P*float64(m.Value), p+m.P
			}
			w.Mean = time.Duration(sum / p)
		}
		w.Kind, w.Mix = *in.Dist, nil
	}
	if err := l.Validate(); err != nil {
		return nil, err
	}
	return l, nil
}

// Fleet is POST /api/fleet's answer: the fleet playing now.
type Fleet struct {
	Distribution string `json:"distribution"` // the requests' work
	OK           bool   `json:"ok"`
	Queue        int    `json:"queue"`   // each server's queue capacity, 0 = unbounded
	Servers      int    `json:"servers"` // how many
	Workers      int    `json:"workers"` // each one's
}

// rebuildFleet is POST /api/fleet: it rebuilds the fleet and plays the
// lab from 0 (the drills are dropped: they may name servers no longer
// there); speed and pause stay.
func (s *Server) rebuildFleet(_ dash.Request, in fleetIn) (Fleet, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	given := s.plain.Clone() // the lab as given, its setting played on top again
	given.Compare = s.compare
	l, err := rebuiltFleet(given, in)
	if err != nil {
		return Fleet{}, err
	}
	text, err := labyaml.Marshal(l) // the lab playing now, as given: the JSON report's and edit's
	if err != nil {
		return Fleet{}, err
	}
	setting, err := SettingNamed(l, s.setting) // the rebuilt lab keeps the compare settings
	if err != nil {
		return Fleet{}, fmt.Errorf("setting %w", err)
	}
	if err := s.load(l, "", setting, s.allowed); err != nil {
		return Fleet{}, err
	}
	s.source = &source{file: l.Name + "-fleet.yaml", text: text, lab: l}
	s.pauseAt = clock.Never
	s.publishLocked()
	g := l.Servers[0]
	return Fleet{OK: true, Servers: g.Count, Workers: g.Workers, Queue: g.Queue.Capacity, Distribution: l.Clients.Work.Kind}, nil
}
