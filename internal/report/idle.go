package report

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// Announcements is what an idle-queue algorithm's announcements cost a run
// and what they bought (jiq, docs/model.md "Idle announcements"); only when
// an algorithm of the lab keeps an idle queue. The servers count the
// announcements they sent; the balancers count their picks and those that
// took an idle server off their queue.
type Announcements struct {
	Sent uint64 `json:"sent"` // announcements the servers sent
	// PerRequest is sent ÷ requests: the announcements a request cost.
	PerRequest float64 `json:"per_request"`
	Picks      uint64  `json:"picks"`     // the balancers' picks
	FromQueue  uint64  `json:"from_idle"` // picks that took a server off an idle queue; the others drew at random
	// IdleShare is from_idle ÷ picks: the share of the picks that found an
	// idle server in the queue.
	IdleShare float64 `json:"idle_share"`
}

// NewAnnouncements is the figures of sent announcements over a run of
// requests, and of picks of which fromQueue took an idle server.
func NewAnnouncements(sent, requests, picks, fromQueue uint64) *Announcements {
	a := &Announcements{Sent: sent, Picks: picks, FromQueue: fromQueue}
	if requests > 0 {
		a.PerRequest = float64(sent) / float64(requests)
	}
	if picks > 0 {
		a.IdleShare = float64(fromQueue) / float64(picks)
	}
	return a
}

// writeAnnouncements prints, when an algorithm of a run keeps an idle
// queue, what its announcements cost each setting and how often a pick
// found an idle server.
func (r *Report) writeAnnouncements(w io.Writer) {
	any := false
	for _, run := range r.Runs {
		any = any || run.Announcements != nil
	}
	if !any {
		return
	}
	fmt.Fprintln(w, "\nidle announcements (sent by the servers; picks that took an idle server off the queue)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "setting\tsent\tper request\tpicks\tfrom idle\t")
	for _, run := range r.Ranked() {
		a := run.Announcements
		if a == nil {
			fmt.Fprintf(tw, "%s\t-\t-\t-\t-\t\n", run.Name)
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%d\t%s\t\n", run.Name, a.Sent, PerRequest.Text(a.PerRequest), a.Picks, Share.Text(a.IdleShare))
	}
	tw.Flush()
}

// AnnouncementsPerRequest is the idle announcements a request of the run
// cost (0 when no algorithm of it keeps an idle queue).
func (r *Run) AnnouncementsPerRequest() float64 {
	if r.Announcements == nil {
		return 0
	}
	return r.Announcements.PerRequest
}

// IdleShare is the share of the run's picks that took an idle server off
// an idle queue (0 when no algorithm of it keeps one).
func (r *Run) IdleShare() float64 {
	if r.Announcements == nil {
		return 0
	}
	return r.Announcements.IdleShare
}
