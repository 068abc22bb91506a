package report

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
)

// Hysteresis is, for a sweep whose first axis is the rate a script event
// sets after the trigger has ended (events[2].rate), how far the load must
// fall for the fleet to come back, beside the load it had when the trigger
// tipped it: one per line, from the line's boundary (boundary.go).
type Hysteresis struct {
	Line string `json:"line"`
	// Tipped is the clients' rate in force when the trigger began.
	Tipped float64 `json:"tipped_rate"`
	// RecoversAt is the highest rate tried at which most seeds came back
	// (as at every lower one; "" when even the lowest did not), FailsAt the
	// next, where most stayed down ("" when every rate tried recovered).
	RecoversAt string `json:"recovers_at"`
	FailsAt    string `json:"fails_at"`
}

// FindHysteresis fills Hysteresis from the lines' boundaries when the
// first axis lowers the rate after the trigger (Sweep.RecoveryRate), with
// each line's rate at the trigger from tipped (by line name).
func (s *Sweep) FindHysteresis(tipped map[string]float64) {
	s.Hysteresis = nil
	if !s.RecoveryRate {
		return
	}
	for _, b := range s.Boundaries {
		h := Hysteresis{Line: b.Line, Tipped: tipped[b.Line]}
		if b.Found {
			h.RecoversAt = b.RecoversValue
		}
		if !b.Beyond {
			h.FailsAt = b.FailsValue
		}
		if b.RecoversAbove { // more load recovering is no hysteresis to report
			continue
		}
		s.Hysteresis = append(s.Hysteresis, h)
	}
}

// writeHysteresis prints each line's recovery rate beside the rate that
// tipped it.
func (s *Sweep) writeHysteresis(w io.Writer) error {
	if len(s.Hysteresis) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\nhysteresis: the rate %s must fall to after the trigger for most seeds to recover, beside the rate when it tipped\n", s.Axes[0].Path)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, h := range s.Hysteresis {
		tipped := "tipped at " + strconv.FormatFloat(h.Tipped, 'f', -1, 64) + "/s"
		switch {
		case h.RecoversAt == "":
			fmt.Fprintf(tw, "  %s\t%s\tstays down even at %s/s, the lowest tried\n", h.Line, tipped, h.FailsAt)
		case h.FailsAt == "":
			fmt.Fprintf(tw, "  %s\t%s\trecovers at every rate tried, up to %s/s\n", h.Line, tipped, h.RecoversAt)
		default:
			fmt.Fprintf(tw, "  %s\t%s\trecovers once it falls to %s/s (not at %s/s)\n", h.Line, tipped, h.RecoversAt, h.FailsAt)
		}
	}
	return tw.Flush()
}
