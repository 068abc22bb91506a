package balance

import (
	"math"

	"github.com/lblab/lblab/internal/assert"
	"github.com/lblab/lblab/internal/clock"
)

// weightedRoundRobin is nginx's smooth weighted round robin
// (ngx_http_upstream_get_peer, 2012). Each member j has a weight w_j and a
// running score c_j. A pick adds w_j to c_j of every eligible member, takes
// the member with the highest score (the first on ties) and subtracts the sum
// W of the eligible weights from its score.
//
// Invariant: while the eligible set is fixed the scores sum to 0, and over any
// W picks (integer weights) member j is picked exactly w_j times, spread out
// rather than in bursts (weights 5,1,1 give a a b a c a a, not a a a a a b c).
// Ineligible members neither gain score nor get picked. Scores restart from 0
// after Update. A member's weight is multiplied by its ramp (slow start), so
// a warming member gets its share of a smaller weight.
//
// Not safe for concurrent use; the driver serializes calls.
type weightedRoundRobin struct {
	weight  []float64
	current []float64
}

func newWeightedRoundRobin(Config) Algorithm { return &weightedRoundRobin{} }

func (w *weightedRoundRobin) Name() string { return "weighted-round-robin" }

func (w *weightedRoundRobin) Update(servers []Server) {
	w.weight = make([]float64, len(servers))
	w.current = make([]float64, len(servers))
	for j, s := range servers {
		w.weight[j] = weightOf(s)
	}
}

func (w *weightedRoundRobin) Pick(_ clock.Instant, _ Request, v View) int {
	n := v.Len()
	if len(w.weight) != n {
		w.resync(n)
	}
	best, total := -1, 0.0
	for j := 0; j < n; j++ {
		if !v.Ok(j) {
			continue
		}
		wj := w.weight[j] * rampOf(v, j)
		assert.That(wj > 0 && wj <= math.MaxFloat64, "weighted-round-robin: a weight not finite and > 0")
		w.current[j] += wj
		total += wj
		if best < 0 || w.current[j] > w.current[best] {
			best = j
		}
	}
	if best >= 0 {
		w.current[best] -= total
	}
	return best
}

// resync adapts to a view whose length disagrees with the last Update (a
// driver bug or a pick before the first Update): members without a known
// weight get weight 1 and all scores restart.
func (w *weightedRoundRobin) resync(n int) {
	old := w.weight
	w.weight = make([]float64, n)
	w.current = make([]float64, n)
	for j := range w.weight {
		w.weight[j] = 1
		if j < len(old) {
			w.weight[j] = old[j]
		}
	}
}
