package lb

import (
	"time"

	"github.com/lblab/lblab/internal/metrics"
)

// eventKinds are the kinds publish uses, exported at 0 from the start.
var eventKinds = []string{"algorithm", "backend", "breaker", "health", "outlier", "settings"}

// newMetrics builds the process's metrics; the per-backend gauges read the
// pipeline at scrape time. Called by New before any backend exists.
func (l *LB) newMetrics() {
	l.met = metrics.NewLB(l.cfg.Name, l.views, eventKinds)
	l.obs, l.note = l.met, l.met
}

// views is every present backend as the pipeline sees it now.
func (l *LB) views() []metrics.BackendView {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.nowLocked()
	out := make([]metrics.BackendView, 0, len(l.backends))
	for i, b := range l.backends {
		if !b.present {
			continue
		}
		st := &l.bal.Loads().Stats[i]
		out = append(out, metrics.BackendView{Name: b.Name, Outstanding: st.Outstanding,
			EWMA: time.Duration(st.Latency.Value()), Breaker: l.bal.BreakerState(now, i), Healthy: b.healthy})
	}
	return out
}
