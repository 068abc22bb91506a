package dash

import (
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/policy"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/shell/state"
)

// logKeep is how many of the newest log lines a snapshot carries.
const logKeep = 200

// LiveRun is what a live snapshot shows of the run it is read from.
type LiveRun struct {
	Lab               *labfile.Lab // a copy: the settings in force now
	Scenario, Setting string
	Started           time.Time
	Features          Features
	// First holds the controls at the run's first reading, which the
	// banner's changes are told against; the first snapshot sets it.
	First *atomic.Pointer[Controls]
	Log   []report.LogLine // the run's event log so far
}

// LiveSnapshot builds what the dashboard draws from the newest reading and
// the bins derived so far.
func LiveSnapshot(r LiveRun, d *Deriver, cur *Reading, mode string) *Snapshot {
	lab := r.Lab
	s := &Snapshot{Lab: lab.Name, Mode: mode, Status: "running", Scenario: r.Scenario, Setting: r.Setting,
		Description: lab.Description, Narration: lab.Narration, T: num(cur.At.Sub(r.Started).Seconds()),
		AtUnixMs: cur.At.UnixMilli(), Features: r.Features, Algorithms: policy.Algorithms(),
		Window: d.window(), LatencySource: "little", Captions: captionsOf(lab)}
	if d.histogram() {
		s.LatencySource = "histogram"
	}
	if lab.Zoned() {
		s.Window.CrossZone = d.crossZone()
	}
	s.Controls = controlsNow(lab, cur)
	s.Settings = settingsOf(lab, s.Controls)
	first := s.Controls
	r.First.CompareAndSwap(nil, &first)
	s.Changes = changes(*r.First.Load(), s.Controls)
	s.Clients = clientsView(cur, s.Window)
	s.Balancers = balancerViews(d, cur)
	var names []string
	s.Servers, names = serverViews(d, cur)
	s.Series = d.series(names)
	placeZones(s, lab)
	log := append([]report.LogLine{}, r.Log...) // [] rather than null
	s.LogTotal = len(log)
	if len(log) > logKeep {
		log = log[len(log)-logKeep:]
	}
	s.Log = log
	return s
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// firstLB is the first lb's state (an external proxy reports no lb
// settings: the lab copy's are in force).
func firstLB(cur *Reading) *state.LB {
	for _, l := range cur.LBs {
		if l.State != nil && l.Proxy == nil {
			return l.State
		}
	}
	return nil
}

func clientsView(cur *Reading, w Window) ClientsView {
	v := ClientsView{Offered: w.OfferedPerS, Error: cur.LoadgenErr}
	if cur.Loadgen != nil {
		v.Mode, v.Rate, v.Users, v.Late = cur.Loadgen.Mode, num(cur.Loadgen.Rate), cur.Loadgen.Users, cur.Loadgen.Late
		for _, t := range cur.Loadgen.Targets {
			v.Pending += t.Pending
		}
	}
	return v
}

func balancerViews(d *Deriver, cur *Reading) []BalancerView {
	picks, secs := map[string]float64{}, 0.0
	for _, b := range d.last(4) {
		secs += b.dt
		for name, n := range b.picks {
			picks[name] += n
		}
	}
	out := make([]BalancerView, 0, len(cur.LBs))
	for _, l := range cur.LBs {
		v := BalancerView{Name: l.Name, Error: l.Err, Exited: l.Exited, Rate: ratio(picks[l.Name], secs), Proxy: l.Proxy}
		if l.State != nil {
			v.Algorithm, v.Picks, v.Idle = l.State.Algorithm, l.State.Picks, l.State.Idle
			if l.Proxy == nil {
				v.Settings = &l.State.Settings
			}
		}
		out = append(out, v)
	}
	return out
}

// serverViews are the server cards of one snapshot and the servers'
// names. What every card reads (the requests sent in the newest bins, the
// balancers' views by server) is summed once for all of them: a lab of
// 1,000 servers (balls-bins) makes 1,000 cards a snapshot.
func serverViews(d *Deriver, cur *Reading) ([]ServerView, []string) {
	c := cards{views: map[string][]state.LBBackend{}}
	c.recent, c.secs = d.sentOver(4)
	c.window, _ = d.sentOver(windowLen)
	for _, n := range c.window {
		c.all += n
	}
	for _, l := range cur.LBs {
		if l.State == nil {
			continue
		}
		for _, b := range l.State.Backends {
			c.views[b.Name] = append(c.views[b.Name], b)
		}
	}
	var out []ServerView
	var names []string
	for _, sr := range cur.Servers {
		out = append(out, serverView(d, cur, c, sr))
		names = append(names, sr.Name)
	}
	return out, names
}

// cards are the sums every server card of one snapshot reads.
type cards struct {
	recent, window map[string]float64 // requests sent per server: the newest 4 bins, the window's
	secs, all      float64            // the newest 4 bins' length; all requests of the window
	views          map[string][]state.LBBackend
}

// serverView is one server card: its state, the balancers' views of it,
// the rate and share of requests it gets, and its badges.
func serverView(d *Deriver, cur *Reading, c cards, sr ServerReading) ServerView {
	v := ServerView{Name: sr.Name, Error: sr.Err, Exited: sr.Exited, Backend: sr.State, Rate: null, Share: null,
		CacheHitRatio: null, EWMAMs: null, Breaker: "closed"}
	v.Views = c.views[sr.Name]
	if len(v.Views) > 0 && !cur.proxied() { // a proxy keeps no latency estimate lab can read
		v.EWMAMs = num(v.Views[0].EWMAMs)
	}
	for _, b := range v.Views {
		v.Outstanding += b.Outstanding
		v.Breaker = worseBreaker(v.Breaker, b.Breaker)
	}
	v.Rate = ratio(c.recent[sr.Name], c.secs)
	v.Share = ratio(c.window[sr.Name], c.all)
	var lookups, hits float64
	for _, b := range d.last(windowLen) {
		lookups, hits = lookups+b.lookups[sr.Name], hits+b.hits[sr.Name]
	}
	v.CacheHitRatio = ratio(hits, lookups)
	v.Badges = badges(sr.State, v.Views)
	if sr.Exited != "" { // its state is the last one read: the process is gone
		v.Badges = append([]Badge{{"exited", "EXITED"}}, v.Badges...)
	}
	return v
}

// worseBreaker orders open over half-open over closed.
func worseBreaker(a, b string) string {
	rank := map[string]int{"closed": 0, "half-open": 1, "open": 2}
	if rank[b] > rank[a] {
		return b
	}
	return a
}

// badges are the marks on a server card, from its state and the balancers'.
func badges(st *state.Backend, views []state.LBBackend) []Badge {
	out := []Badge{}
	if st != nil {
		if !st.Up {
			out = append(out, Badge{"down", "DOWN"})
		}
		if st.Speed < st.ConfiguredSpeed || st.Speed < 1 {
			out = append(out, Badge{"slowed", "×" + strconv.FormatFloat(st.Speed, 'g', 3, 64)})
		}
		if st.Paused {
			out = append(out, Badge{"gc", "GC PAUSE"})
		}
		if st.Fail {
			out = append(out, Badge{"failing", "FAILING"})
		} else if st.Errors > 0 {
			out = append(out, Badge{"failing", fmt.Sprintf("ERRORS %.0f%%", st.Errors*100)})
		}
	}
	return append(out, lbBadges(views)...)
}

// lbBadges count the balancers whose breaker is open or half-open for the
// server, or whose health checks took it out.
func lbBadges(views []state.LBBackend) []Badge {
	var open, half, unhealthy, removed int
	for _, b := range views {
		switch b.Breaker {
		case "open":
			open++
		case "half-open":
			half++
		}
		if !b.Healthy {
			unhealthy++
		}
		if !b.Present {
			removed++
		}
	}
	var out []Badge
	of := func(n int) string {
		if len(views) == 1 {
			return ""
		}
		return fmt.Sprintf(" %d/%d", n, len(views))
	}
	if open > 0 {
		out = append(out, Badge{"open", "OPEN" + of(open)})
	}
	if half > 0 {
		out = append(out, Badge{"half-open", "HALF-OPEN" + of(half)})
	}
	if unhealthy > 0 {
		out = append(out, Badge{"unhealthy", "EJECTED" + of(unhealthy)})
	}
	if removed > 0 && removed == len(views) {
		out = append(out, Badge{"removed", "REMOVED"})
	}
	return out
}
