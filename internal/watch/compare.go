package watch

import (
	"fmt"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/sim"
)

// MaxCompareSeeds bounds POST /api/compare's seeds: each seed runs every
// setting, and the answer waits for all of them.
const MaxCompareSeeds = 30

// compareSeries is one setting's p99 per 250 ms bin (null in a bin
// without successes), for the page's small multiples: the first seed's run.
type compareSeries struct {
	T   []float64  `json:"t_s"` // bin ends
	P99 []*float64 `json:"p99"`
}

func seriesOf(r *report.Run) *compareSeries {
	s := &compareSeries{T: []float64{}, P99: []*float64{}}
	for _, b := range r.Series {
		s.T = append(s.T, b.T+report.BinWidth.Seconds())
		var p *float64
		if b.Succeeded > 0 {
			v := b.P99
			p = &v
		}
		s.P99 = append(s.P99, p)
	}
	return s
}

// ComparedSeeds is POST /api/compare's answer over several seeds (seeds 2
// or more): the settings ranked by their mean, with lab sim --seeds's
// intervals and verdicts.
type ComparedSeeds struct {
	Confidence float64    `json:"confidence"` // of the intervals: 0.95
	Drills     int        `json:"drills"`     // the drills taken so far, in the script each setting ran
	Headline   string     `json:"headline"`   // the figure ranked by
	Lab        string     `json:"lab"`
	Method     string     `json:"method"` // how the intervals are computed (report.Seeds)
	Note       string     `json:"note"`   // what the intervals mean (report.IntervalNote)
	Ranking    []SeedsRow `json:"ranking"`
	Seeds      []uint64   `json:"seeds"`
}

// SeedsRow is one setting of Compare all over several seeds: its figures
// as the mean over the seeds with their 95% interval (report.Summary's),
// and the verdict against the next setting in rank.
type SeedsRow struct {
	Rank      int            `json:"rank"`
	Name      string         `json:"name"`
	Algorithm string         `json:"algorithm"`
	P99       report.Figure  `json:"p99_ms"`
	P50       report.Figure  `json:"p50_ms"`
	Goodput   report.Figure  `json:"goodput"`
	Failed    float64        `json:"failed"` // mean failed requests per seed
	Watched   bool           `json:"watched"`
	VsNext    *SeedsVerdict  `json:"vs_next,omitempty"` // absent for the last
	Series    *compareSeries `json:"series"`
}

// SeedsVerdict is report.Verdict's reading for the page.
type SeedsVerdict struct {
	Next string `json:"next"`
	// Figure is what the two are compared on: the headline (p99), or
	// goodput when one of them fails most of its requests (the report's
	// ranking rule, internal/report/rank.go)
	Figure          string        `json:"figure"`
	Distinguishable bool          `json:"distinguishable"` // the paired interval of the differences excludes 0
	Wins            int           `json:"wins"`
	Losses          int           `json:"losses"`
	Diff            report.Figure `json:"diff_ms"` // this figure minus the next's, per seed (ms; a share for goodput)
}

// compareSeeds runs l once per seed 1 to n with every setting, as lab sim
// --seeds n does, and ranks the settings by mean p99 with lab sim's
// verdicts (report.CombineSeeds). progress hears the share of the n
// seeds' runs done.
func compareSeeds(l *labfile.Lab, settings []labfile.Setting, watched string, n int, progress func(float64), opts sim.Options) (ComparedSeeds, error) {
	if n < 2 || n > MaxCompareSeeds {
		return ComparedSeeds{}, fmt.Errorf("seeds: must be from 2 to %d (seeds 1 to N, as lab sim --seeds N), got %d", MaxCompareSeeds, n)
	}
	seeds := make([]uint64, n)
	reps := make([]*report.Report, n)
	for i := range seeds {
		seeds[i] = uint64(i + 1)
		sl := l.Clone()
		sl.Seed = seeds[i]
		k := float64(i)
		o := opts
		o.Series, o.Progress = i == 0, func(f float64) { progress((k + f) / float64(n)) }
		rep, err := sim.Compare(sl, settings, o)
		if err != nil {
			return ComparedSeeds{}, err
		}
		reps[i] = rep
	}
	rep, err := report.CombineSeeds(seeds, reps)
	if err != nil {
		return ComparedSeeds{}, err
	}
	runs := map[string]*report.Run{}
	failed := map[string]float64{}
	for i := range reps[0].Runs {
		runs[reps[0].Runs[i].Name] = &reps[0].Runs[i]
	}
	for _, r := range reps {
		for _, run := range r.Runs {
			failed[run.Name] += float64(run.Failed) / float64(n)
		}
	}
	rows := []SeedsRow{}
	for i, sum := range report.Ranked(rep.Seeds.Settings, rep.SeedsFigure()) {
		row := SeedsRow{Rank: i + 1, Name: sum.Name, Algorithm: sum.Algorithm, P99: sum.Figures["p99"],
			P50: sum.Figures["p50"], Goodput: sum.Figures["goodput"], Failed: failed[sum.Name],
			Watched: sum.Name == watched, Series: seriesOf(runs[sum.Name])}
		if i < len(rep.Seeds.Ranking) {
			v := rep.Seeds.Ranking[i]
			row.VsNext = &SeedsVerdict{Next: v.Worse, Figure: v.Figure, Distinguishable: v.Distinguishable, Wins: v.Wins, Losses: v.Losses, Diff: v.Diff}
		}
		rows = append(rows, row)
	}
	return ComparedSeeds{Lab: l.Name, Headline: rep.SeedsFigure(), Seeds: seeds, Confidence: rep.Seeds.Confidence,
		Method: rep.Seeds.Method, Note: report.IntervalNote(n, rep.Seeds.Confidence), Ranking: rows}, nil
}
