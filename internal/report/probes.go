package report

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// Probes is what a probing algorithm's probes cost a run (prequal,
// docs/model.md "Probes"); only when an algorithm of the lab probes. The
// balancers count the probes they sent; the servers count those they
// answered (a probe to a server that is down, or gone, gets no answer).
type Probes struct {
	Sent     uint64 `json:"sent"`     // probes the balancers sent
	Answered uint64 `json:"answered"` // probes the servers answered: their work for it
	// PerRequest is sent ÷ requests: the probes a request cost.
	PerRequest float64 `json:"per_request"`
}

// NewProbes is the figures of sent and answered probes over a run of
// requests.
func NewProbes(sent, answered, requests uint64) *Probes {
	p := &Probes{Sent: sent, Answered: answered}
	if requests > 0 {
		p.PerRequest = float64(sent) / float64(requests)
	}
	return p
}

// writeProbes prints, when an algorithm of a run probes, what its probes
// cost each setting.
func (r *Report) writeProbes(w io.Writer) {
	any := false
	for _, run := range r.Runs {
		any = any || run.Probes != nil
	}
	if !any {
		return
	}
	fmt.Fprintln(w, "\nprobes (sent by the balancers, answered by the servers)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "setting\tsent\tanswered\tper request\t")
	for _, run := range r.Ranked() {
		p := run.Probes
		if p == nil {
			fmt.Fprintf(tw, "%s\t-\t-\t-\t\n", run.Name)
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t\n", run.Name, p.Sent, p.Answered, PerRequest.Text(p.PerRequest))
	}
	tw.Flush()
}

// ProbesPerRequest is the probes a request of the run cost (0 when no
// algorithm of it probes).
func (r *Run) ProbesPerRequest() float64 {
	if r.Probes == nil {
		return 0
	}
	return r.Probes.PerRequest
}
