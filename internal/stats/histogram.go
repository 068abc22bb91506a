// Package stats holds the pure measurement types: latency histograms,
// time-decayed averages and time averages. No I/O, no clocks of its own.
package stats

import (
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram records durations with 3 significant digits (HdrHistogram) in
// bounded memory: 1 µs to 1 hour. Values outside are clamped, not dropped.
// Not safe for concurrent use.
type Histogram struct {
	h   *hdr.Histogram
	sum float64 // exact sum in ns, for the mean
	min time.Duration
	max time.Duration
}

const (
	histMinUS = 1
	histMaxUS = int64(time.Hour / time.Microsecond)
)

// NewHistogram returns an empty histogram.
func NewHistogram() *Histogram {
	return &Histogram{h: hdr.New(histMinUS, histMaxUS, 3)}
}

// Record adds one duration.
func (h *Histogram) Record(d time.Duration) {
	us := int64(d / time.Microsecond)
	if us < histMinUS {
		us = histMinUS
	} else if us > histMaxUS {
		us = histMaxUS
	}
	if d < h.min || h.h.TotalCount() == 0 {
		h.min = d
	}
	_ = h.h.RecordValue(us) // in range by construction
	h.sum += float64(d)
	if d > h.max {
		h.max = d
	}
}

// Count returns the number of recorded values.
func (h *Histogram) Count() int64 { return h.h.TotalCount() }

// Quantile returns the value at quantile q in [0, 1] (0 when empty).
func (h *Histogram) Quantile(q float64) time.Duration {
	if h.h.TotalCount() == 0 {
		return 0
	}
	return time.Duration(h.h.ValueAtQuantile(q*100)) * time.Microsecond
}

// Mean returns the exact mean of recorded values (0 when empty).
func (h *Histogram) Mean() time.Duration {
	n := h.h.TotalCount()
	if n == 0 {
		return 0
	}
	return time.Duration(h.sum / float64(n))
}

// Min returns the smallest recorded value (0 when empty).
func (h *Histogram) Min() time.Duration { return h.min }

// Max returns the largest recorded value.
func (h *Histogram) Max() time.Duration { return h.max }

// Reset empties the histogram, keeping its memory.
func (h *Histogram) Reset() {
	h.h.Reset()
	h.sum = 0
	h.min, h.max = 0, 0
}

// Merge adds every value of o into h.
func (h *Histogram) Merge(o *Histogram) {
	if o.Count() > 0 && (o.min < h.min || h.Count() == 0) {
		h.min = o.min
	}
	h.h.Merge(o.h)
	h.sum += o.sum
	if o.max > h.max {
		h.max = o.max
	}
}
