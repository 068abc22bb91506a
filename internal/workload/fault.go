package workload

import (
	"fmt"
	"math"
	"time"
)

// Fault is a fault a request asks the server for on each of its attempts:
// answer with Status (an HTTP code; 0 = none) and hold the answer Delay
// longer (0 = none). The server applies it (internal/core/server's Fault,
// with a percent of 100); live, the loadgen sends it as X-Lab-Fault.
type Fault struct {
	Status int
	Delay  time.Duration
}

// IsZero reports whether f asks for nothing.
func (f Fault) IsZero() bool { return f.Status == 0 && f.Delay == 0 }

// FaultShare marks Share of the requests with Fault. The shares of a
// Config take consecutive slices of [0, 1), so a request carries at most
// one of them; they sum to at most 1.
type FaultShare struct {
	Share float64
	Fault
}

func checkFaults(fs []FaultShare) error {
	total := 0.0
	for i, f := range fs {
		if !(f.Share >= 0 && f.Share <= 1) {
			return fmt.Errorf("workload: Faults[%d].Share is %g, must be in [0, 1]", i, f.Share)
		}
		if f.Status < 0 || f.Delay < 0 || f.IsZero() {
			return fmt.Errorf("workload: Faults[%d] needs a status > 0 or a delay > 0", i)
		}
		total += f.Share
	}
	if total > 1+1e-9 || math.IsNaN(total) {
		return fmt.Errorf("workload: Faults shares sum to %g, must be at most 1", total)
	}
	return nil
}
