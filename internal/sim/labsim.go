package sim

import (
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/report/verdict"
)

// DefaultSettings are the settings lab sim runs when not told which: the
// lab's compare list, or its own algorithm alone.
func DefaultSettings(lab *labfile.Lab) []labfile.Setting {
	if len(lab.Compare) > 0 {
		return lab.Compare
	}
	name := lab.Balancers.Algorithm
	if lab.Clients.Algorithm != "" {
		name = lab.Clients.Algorithm
	}
	return []labfile.Setting{{Name: name}}
}

// Report is lab sim's report of lab's settings: Compare, with the series
// kept when the recovery verdicts of the lab's script need them
// (verdict.HasTransients), and those verdicts added. lab sim prints it, and
// the page of make site offers it for download, so both give the same
// bytes for a lab and seed.
func Report(lab *labfile.Lab, settings []labfile.Setting, opts Options) (*report.Report, error) {
	opts.Series = opts.Series || verdict.HasTransients(lab)
	rep, err := Compare(lab, settings, opts)
	if err != nil {
		return nil, err
	}
	verdict.AddRecovery(rep, lab, settings...)
	return rep, nil
}
