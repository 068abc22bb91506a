package report

import (
	"fmt"
	"slices"
	"sort"

	"github.com/lblab/lblab/internal/stats/confidence"
)

// Seeds is what a compare run on several seeds adds to the report: each
// figure of each setting as the mean of its per-seed values with a 95%
// Student's t interval, the per-seed values themselves, and which settings
// the seeds tell apart. A seed's percentile is that seed's own (from its own
// histogram); seeds are combined as a sample of such values, never merged
// into one histogram.
type Seeds struct {
	List       []uint64  `json:"list"`       // the seeds, in the order of per_seed values
	Method     string    `json:"method"`     // "student-t": intervals from Student's t on per-seed values
	Confidence float64   `json:"confidence"` // 0.95
	Settings   []Summary `json:"settings"`   // one per setting, in the order of runs
	Ranking    []Verdict `json:"ranking"`    // by mean p99, best first: each setting against the next
	// Recovery is each setting's recovery verdicts over the seeds
	// (recovery.go); only when the script has events that end.
	Recovery []SeedRecovery `json:"recovery,omitempty"`
}

// Summary is one setting over several seeds.
type Summary struct {
	Name      string            `json:"name"`
	Algorithm string            `json:"algorithm"`
	Figures   map[string]Figure `json:"figures"` // by figure name (FigureNames)
	Servers   []ServerShare     `json:"servers"` // each server's share of the attempts
}

// ServerShare is one server's share of the attempts over the seeds.
type ServerShare struct {
	Name  string `json:"name"`
	Share Figure `json:"share"`
}

// Figure is one figure over the seeds: the mean of the per-seed values,
// its interval [lo, hi] and the sample standard deviation (lo = hi = mean
// and sd = 0 for a single seed).
type Figure struct {
	Mean    float64   `json:"mean"`
	Lo      float64   `json:"lo"`
	Hi      float64   `json:"hi"`
	SD      float64   `json:"sd"`
	PerSeed []float64 `json:"per_seed,omitempty"` // absent only for a verdict's difference
}

// Verdict compares two settings' figure over the same seeds. Better is the
// one ranked better (rank.go): the lower mean, or the higher for goodput. The verdict is the paired test: the 95% interval of the
// per-seed differences (Better - Worse) excludes zero. Wins and the
// disjointness of the two settings' own intervals are shown beside it.
type Verdict struct {
	Figure          string  `json:"figure"`          // "p99"
	Better          string  `json:"better"`          // the setting ranked better (rank.go)
	Worse           string  `json:"worse"`           // the next setting in rank
	Wins            int     `json:"wins"`            // seeds on which Better's value is better (lower; higher for goodput)
	Losses          int     `json:"losses"`          // seeds on which it is worse (the rest are ties)
	Seeds           int     `json:"seeds"`           // pairs compared
	Diff            Figure  `json:"diff"`            // of Better - Worse per seed: mean, paired interval, sd
	Disjoint        bool    `json:"ci_disjoint"`     // the two settings' own intervals do not overlap
	Distinguishable bool    `json:"distinguishable"` // Diff's interval excludes 0
	DiffRatio       float64 `json:"diff_ratio"`      // Diff.Mean / Worse's mean (0 when that is 0)
}

// FigureNames lists the figures of a Summary (those of Figures carried
// over seeds), in table order.
func FigureNames() []string {
	var names []string
	for _, f := range seedFigures() {
		names = append(names, f.Name)
	}
	return names
}

// Summarize combines one setting's runs, one per seed in seed order.
func Summarize(runs []Run) Summary {
	figs := seedFigures()
	s := Summary{Figures: make(map[string]Figure, len(figs))}
	if len(runs) == 0 {
		return s
	}
	s.Name, s.Algorithm = runs[0].Name, runs[0].Algorithm
	for _, f := range figs {
		if !f.shown(runs) {
			continue
		}
		vals := make([]float64, len(runs))
		for i := range runs {
			vals[i] = f.Of(&runs[i])
		}
		s.Figures[f.Name] = figureOf(vals)
	}
	for _, srv := range runs[0].Servers {
		vals := make([]float64, len(runs))
		for i := range runs {
			for _, o := range runs[i].Servers {
				if o.Name == srv.Name {
					vals[i] = o.Share
				}
			}
		}
		s.Servers = append(s.Servers, ServerShare{Name: srv.Name, Share: figureOf(vals)})
	}
	return s
}

func figureOf(vals []float64) Figure {
	iv := confidence.Mean(vals, confidence.Level)
	return Figure{Mean: iv.Mean, Lo: iv.Lo, Hi: iv.Hi, SD: iv.SD, PerSeed: vals}
}

func (f Figure) interval() confidence.Interval {
	return confidence.Interval{N: len(f.PerSeed), Mean: f.Mean, SD: f.SD, Lo: f.Lo, Hi: f.Hi}
}

// CombineSeeds merges the reports of one compare run once per seed (reps[i]
// ran on seeds[i], each with the same settings in the same order) into one
// report: the first seed's report, so seed and runs keep their meaning,
// with Seeds added.
func CombineSeeds(seeds []uint64, reps []*Report) (*Report, error) {
	if len(reps) == 0 || len(reps) != len(seeds) {
		return nil, fmt.Errorf("combine seeds: %d reports for %d seeds", len(reps), len(seeds))
	}
	first := reps[0]
	for i, r := range reps {
		if len(r.Runs) != len(first.Runs) {
			return nil, fmt.Errorf("combine seeds: seed %d has %d runs, seed %d has %d", seeds[i], len(r.Runs), seeds[0], len(first.Runs))
		}
		for j := range r.Runs {
			if r.Runs[j].Name != first.Runs[j].Name {
				return nil, fmt.Errorf("combine seeds: seed %d's run %d is %q, not %q", seeds[i], j, r.Runs[j].Name, first.Runs[j].Name)
			}
		}
	}
	out := *first
	out.Seeds = &Seeds{List: slices.Clone(seeds), Method: confidence.Method, Confidence: confidence.Level}
	for j := range first.Runs {
		runs := make([]Run, len(reps))
		for i, r := range reps {
			runs[i] = r.Runs[j]
		}
		out.Seeds.Settings = append(out.Seeds.Settings, Summarize(runs))
	}
	out.Seeds.Ranking = Rank(out.Seeds.Settings, out.SeedsFigure())
	return &out, nil
}

// Ranked orders summaries best first by the mean of a figure, by the
// report's one rule (rank.go): by a latency, the settings whose mean goodput
// serves most requests first, the others after them by goodput.
func Ranked(sums []Summary, name string) []Summary {
	f := mustFigure(name)
	out := slices.Clone(sums)
	at := func(s *Summary) standing {
		return standing{has: true, value: s.Figures[name].Mean, goodput: s.Figures["goodput"].Mean, name: s.Name}
	}
	sort.SliceStable(out, func(i, j int) bool { return rankBefore(f.Higher, f.OfServed, at(&out[i]), at(&out[j])) })
	return out
}

// Rank compares each setting with the next in rank by a figure: n-1
// verdicts for n settings, which is enough to read the whole order (A < B <
// C) without n² lines. A pair the ranking put in order by goodput (rank.go)
// is judged on goodput.
func Rank(sums []Summary, name string) []Verdict {
	ranked := Ranked(sums, name)
	var out []Verdict
	for i := 0; i+1 < len(ranked); i++ {
		out = append(out, Judge(ranked[i], ranked[i+1], judgedBy(name, ranked[i], ranked[i+1])))
	}
	return out
}

// Judge compares a and b's figure seed by seed, a being the one ranked
// better: its wins are the seeds on which its value is better (lower, or
// higher for a figure where higher is).
func Judge(a, b Summary, name string) Verdict {
	fa, fb := a.Figures[name], b.Figures[name]
	p := confidence.Compare(fa.PerSeed, fb.PerSeed, confidence.Level)
	wins, losses := p.Less, p.More
	if f, ok := FigureOf(name); ok && f.Higher {
		wins, losses = losses, wins
	}
	v := Verdict{Figure: name, Better: a.Name, Worse: b.Name, Wins: wins, Losses: losses, Seeds: p.N,
		Diff:     Figure{Mean: p.Diff.Mean, Lo: p.Diff.Lo, Hi: p.Diff.Hi, SD: p.Diff.SD},
		Disjoint: fa.interval().Disjoint(fb.interval()), Distinguishable: p.Distinct()}
	if fb.Mean != 0 {
		v.DiffRatio = p.Diff.Mean / fb.Mean
	}
	return v
}
