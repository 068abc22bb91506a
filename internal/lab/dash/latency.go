package dash

import (
	"math"
	"sort"
	"strconv"
	"strings"
)

// LatencyFamily is the loadgen's histogram of successful requests'
// latency (docs/metrics.md), in seconds.
const LatencyFamily = "lblab_client_latency_seconds"

// Buckets is a classic Prometheus histogram: counts of observations at or
// below each upper bound (the last bound is +Inf), summed over label sets.
type Buckets struct {
	le []float64 // ascending
	n  []float64 // cumulative counts
}

// ParseBuckets reads FAMILY_bucket{...,le="X"} N lines of the text format.
func ParseBuckets(text, family string) *Buckets {
	prefix := family + "_bucket{"
	sums := map[float64]float64{}
	for _, line := range strings.Split(text, "\n") {
		rest, ok := strings.CutPrefix(line, prefix)
		if !ok {
			continue
		}
		end := strings.LastIndexByte(rest, '}')
		if end < 0 {
			continue
		}
		fields := strings.Fields(rest[end+1:])
		le, ok := labelValue(rest[:end], "le")
		if !ok || len(fields) == 0 {
			continue
		}
		bound, err1 := strconv.ParseFloat(le, 64)
		v, err2 := strconv.ParseFloat(fields[0], 64)
		if err1 == nil && err2 == nil {
			sums[bound] += v
		}
	}
	if len(sums) == 0 {
		return nil
	}
	b := &Buckets{}
	for le := range sums {
		b.le = append(b.le, le)
	}
	sort.Float64s(b.le)
	for _, le := range b.le {
		b.n = append(b.n, sums[le])
	}
	return b
}

// labelValue finds name="value" in a label list.
func labelValue(labels, name string) (string, bool) {
	for _, part := range strings.Split(labels, ",") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(part), name+`="`); ok {
			return strings.TrimSuffix(v, `"`), true
		}
	}
	return "", false
}

// minus is the observations of b that prev had not seen. A counter that
// went down (the loadgen restarted) counts from zero.
func (b *Buckets) minus(prev *Buckets) *Buckets {
	if b == nil {
		return nil
	}
	out := &Buckets{le: b.le, n: make([]float64, len(b.n))}
	same := prev != nil && len(prev.le) == len(b.le)
	for i := range b.n {
		out.n[i] = b.n[i]
		if same && prev.n[i] <= b.n[i] {
			out.n[i] -= prev.n[i]
		}
	}
	return out
}

// plus adds o's counts to b (same bounds); it returns b, or o if b is nil.
func (b *Buckets) plus(o *Buckets) *Buckets {
	if o == nil {
		return b
	}
	if b == nil {
		return &Buckets{le: o.le, n: append([]float64(nil), o.n...)}
	}
	if len(b.n) == len(o.n) {
		for i := range b.n {
			b.n[i] += o.n[i]
		}
	}
	return b
}

// quantile is the q-th quantile in ms, interpolated linearly inside its
// bucket as Prometheus's histogram_quantile does (the first bucket starts
// at 0; a quantile in the +Inf bucket is the largest finite bound). NaN
// without observations.
func (b *Buckets) quantile(q float64) float64 {
	v, _ := b.quantileOver(q)
	return v
}

// quantileOver is quantile, and whether the quantile lies in the +Inf
// bucket: beyond the largest finite bound (the loadgen's is 30 s), where
// the value given is only a lower bound.
func (b *Buckets) quantileOver(q float64) (float64, bool) {
	if b == nil || len(b.n) == 0 || b.n[len(b.n)-1] == 0 {
		return math.NaN(), false
	}
	rank := q * b.n[len(b.n)-1]
	lower, below := 0.0, 0.0
	for i, le := range b.le {
		if b.n[i] >= rank {
			if math.IsInf(le, 1) {
				return lower * 1000, true
			}
			in := b.n[i] - below
			if in <= 0 {
				return le * 1000, false
			}
			return (lower + (le-lower)*(rank-below)/in) * 1000, false
		}
		lower, below = le, b.n[i]
	}
	return lower * 1000, true
}
