package labfile

import "github.com/lblab/lblab/internal/report"

// ReportSpec says how the report presents a lab's result.
type ReportSpec struct {
	// Headline is the figure the lab is about: the report ranks the
	// settings by it and shows it first. Default p99; the words it takes
	// are the report's own (report.Headlines, docs/labfile.md "report").
	Headline report.Headline `yaml:"headline"`
}
