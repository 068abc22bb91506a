package pace

import (
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/lblab/lblab/internal/stats"
)

// tally holds the lateness histograms of one Scheduler, by kind.
type tally struct {
	mu sync.Mutex
	h  [numKinds]*stats.Histogram
}

// record notes that a wait of kind k ended late after its deadline (never
// negative: a wait does not end early).
func (st *tally) record(k Kind, late int64) {
	st.mu.Lock()
	if st.h[k] == nil {
		st.h[k] = stats.NewHistogram()
	}
	st.h[k].Record(time.Duration(max(late, 0)))
	st.mu.Unlock()
}

// Lateness is how late one kind of wait ended: its count, quantiles and
// maximum (microsecond resolution, 3 significant digits).
type Lateness struct {
	Kind  string  `json:"kind"`
	Count int64   `json:"count"`
	P50us float64 `json:"p50_us"`
	P99us float64 `json:"p99_us"`
	MaxUS float64 `json:"max_us"`
}

// Stats returns the lateness of every kind of wait s has timed, in Kind
// order, skipping kinds with none.
func (s *Scheduler) Stats() []Lateness {
	st := &s.tally
	st.mu.Lock()
	defer st.mu.Unlock()
	var out []Lateness
	for k, h := range st.h {
		if h == nil || h.Count() == 0 {
			continue
		}
		us := func(d time.Duration) float64 { return float64(d) / 1e3 }
		out = append(out, Lateness{Kind: Kind(k).String(), Count: h.Count(),
			P50us: us(h.Quantile(0.5)), P99us: us(h.Quantile(0.99)), MaxUS: us(h.Max())})
	}
	return out
}

// Name is "precise" or "runtime" (Go's timers): what $LBLAB_WAITS chose.
func (s *Scheduler) Name() string {
	if s.runtime {
		return "runtime"
	}
	return "precise"
}

// Log writes s's lateness statistics as one info line, "wait lateness"
// (the processes do at shutdown; bench/timing.sh reads it).
// A precise one adds its spinning (spin.go): the lead it settled on, the
// time it spent spinning and how often the budget was spent; and how often
// it fell behind and handed its waits to Go's timers (overload.go).
func (s *Scheduler) Log(log *zap.Logger) {
	fields := []zap.Field{zap.String("waits", s.Name()), zap.Any("lateness", s.Stats())}
	if !s.runtime {
		s.mu.Lock()
		sp, falls := s.spin, s.falls
		s.mu.Unlock()
		fields = append(fields, zap.Float64("lead_us", float64(sp.lead)/1e3),
			zap.Float64("spun_ms", float64(sp.spun)/1e6), zap.Int64("budget_spent", sp.dry),
			zap.Int64("fell_behind", falls))
	}
	log.Info("wait lateness", fields...)
}
