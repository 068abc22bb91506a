package report

// What the renderers of internal/report/output read that the report
// package otherwise keeps to itself: one formatting of milliseconds and of
// a seed list, and a sweep's points of one line, for the picture to say
// what the table says.

// MS formats milliseconds as the table does (412.5ms, 1.76s).
func MS(v float64) string { return ms(v) }

// SeedsText names the seeds of a run as the sweep's table does ("seed 1",
// "30 seeds: 1..30").
func SeedsText(seeds []uint64) string { return seedsText(seeds) }

// LinePoints returns the sweep's points of the line called name, in order
// of the first axis.
func (s *Sweep) LinePoints(name string) []SweepPoint { return s.line(name) }
