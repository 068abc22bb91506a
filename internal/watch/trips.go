package watch

import (
	"time"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/sim"
)

// followed is how many requests a snapshot carries the story of (the
// newest of those the session follows, about sim.TripsPerSecond a second):
// the page draws those in flight as dots and tells a clicked one's story.
const followed = 24

// tripJSON is one followed request in a snapshot's "trips". Instants are
// virtual seconds since the start, null when not reached (yet).
type tripJSON struct {
	Seq      uint64        `json:"seq"`
	Client   int           `json:"client"`
	StartS   float64       `json:"start_s"`
	EndS     *float64      `json:"end_s"`
	Outcome  string        `json:"outcome"` // pending, succeeded, failed, rejected, timed-out
	Attempts []attemptJSON `json:"attempts"`
	More     int           `json:"more,omitempty"` // attempts sent beyond those listed
}

type attemptJSON struct {
	Kind      string   `json:"kind"`     // first, retry, hedge
	Balancer  string   `json:"balancer"` // "" when the clients balance themselves
	Server    string   `json:"server"`   // "" when none was picked (yet)
	SentS     float64  `json:"sent_s"`
	AtLBS     *float64 `json:"at_lb_s"`
	AtServerS *float64 `json:"at_server_s"`
	RepliedS  *float64 `json:"replied_s"`
	BackAtLBS *float64 `json:"back_at_lb_s"`
	AtClientS *float64 `json:"at_client_s"`
	GaveUpS   *float64 `json:"gave_up_s"`          // the client's attempt timeout
	Status    string   `json:"status,omitempty"`   // the server's: ok, error, rejected, dropped, lost, refused, cancelled
	Result    string   `json:"result,omitempty"`   // the client's: ok, error, rejected, timeout, cancelled
	QueueMs   *float64 `json:"queue_ms,omitempty"` // time queued at the server
	ServiceMs *float64 `json:"service_ms,omitempty"`
	NoServer  bool     `json:"no_server,omitempty"`  // no eligible server: answered 503 at once
	LBGaveUp  bool     `json:"lb_gave_up,omitempty"` // the balancer's timeout answered 504 first
	Late      bool     `json:"late,omitempty"`       // nobody waited for its answer any more
}

func instant(t clock.Instant) *float64 {
	if t == clock.Never {
		return nil
	}
	v := time.Duration(t).Seconds()
	return &v
}

func millis(d time.Duration, known bool) *float64 {
	if !known || d < 0 {
		return nil
	}
	v := report.Ms(d)
	return &v
}

// trips is the snapshot's "trips": the session's followed requests.
func trips(s *sim.Session) []tripJSON {
	out := []tripJSON{}
	for _, tr := range s.Trips() {
		j := tripJSON{Seq: tr.Seq, Client: tr.Client, StartS: time.Duration(tr.Intended).Seconds(), EndS: instant(tr.End),
			Outcome: tr.Outcome.String(), More: tr.More, Attempts: []attemptJSON{}}
		for _, a := range tr.Attempts {
			replied := a.Replied != clock.Never
			aj := attemptJSON{Kind: a.Kind.String(), Server: s.ServerName(a.Server), SentS: time.Duration(a.Sent).Seconds(),
				AtLBS: instant(a.AtLB), AtServerS: instant(a.AtServer), RepliedS: instant(a.Replied),
				BackAtLBS: instant(a.BackAtLB), AtClientS: instant(a.AtClient), GaveUpS: instant(a.GaveUp),
				QueueMs: millis(a.Queue, replied), ServiceMs: millis(a.Service, replied),
				NoServer: a.NoServer, LBGaveUp: a.LBGaveUp, Late: a.Late}
			if a.Balancer >= 0 {
				aj.Balancer = sim.BalancerName(a.Balancer)
			}
			if replied {
				aj.Status = a.Status.String()
			}
			if a.AtClient != clock.Never || a.GaveUp != clock.Never {
				aj.Result = a.Result.String()
			}
			j.Attempts = append(j.Attempts, aj)
		}
		out = append(out, j)
	}
	return out
}
