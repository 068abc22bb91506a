package report

// How settings are ranked, the one rule every ranking of the report reads
// (the text table's order, the headline, the seeds table and its verdicts,
// lab watch's compare): by a figure, best first, in the figure's direction;
// but a figure of the successful requests alone (FigureSpec.OfServed: the
// latencies) says nothing of the requests that failed, so a setting that
// fails most of its requests would rank high on the few it served. Ranked by
// such a figure, the settings that serve (Serves: goodput of at least
// MinServed) come first, by the figure; the ones that do not come after
// them, by goodput, higher first: between two collapses the one that serves
// more is the better. A setting with no value of the figure at all (nothing
// succeeded) comes last.

// MinServed is the goodput a setting needs to be ranked by a latency: at
// least half of its requests succeeded. Shedding that keeps the fleet at its
// capacity (adaptive, shedding: 70-80% served) still ranks by latency, a
// collapse (retry-storm's retries, 18%; least-latency's herd, 36%) cannot.
const MinServed = 0.5

// Serves reports whether a setting of that goodput serves most requests.
func Serves(goodput float64) bool { return goodput >= MinServed }

// standing is what a ranking reads of one setting: whether it has the
// figure, the figure's value, its goodput and its name (the last tie break).
type standing struct {
	has            bool
	value, goodput float64
	name           string
}

// rankBefore reports whether a ranks before b by a figure (higher is
// better when higher; ofServed when the figure is of the successful
// requests alone).
func rankBefore(higher, ofServed bool, a, b standing) bool {
	if a.has != b.has {
		return a.has
	}
	if ofServed {
		sa, sb := Serves(a.goodput), Serves(b.goodput)
		if sa != sb {
			return sa
		}
		if !sa && a.goodput != b.goodput {
			return a.goodput > b.goodput
		}
	}
	if a.value != b.value {
		return a.value < b.value != higher
	}
	return a.name < b.name
}

// judgedBy is the figure a verdict between a and b, neighbours in a ranking
// by name, compares: name itself, or goodput when the ranking put them in
// order by goodput (one of them, or both, fails most of its requests).
func judgedBy(name string, a, b Summary) string {
	if f, ok := FigureOf(name); ok && f.OfServed {
		ga, gb := a.Figures["goodput"].Mean, b.Figures["goodput"].Mean
		if !Serves(ga) || !Serves(gb) {
			return "goodput"
		}
	}
	return name
}
