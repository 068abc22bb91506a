package limit

import (
	"fmt"
	"strings"
	"time"
)

// Spec is what a lab says of a server's limiter; each kind fills the rest
// with its own defaults.
type Spec struct {
	Kind              string // one of Kinds; "" = none
	Initial, Min, Max int    // 0 = the defaults above
	// MeanService is the server's mean service time: AIMD counts a response
	// slower than 5x it as a drop (a queue is building).
	MeanService time.Duration
}

// Kinds lists the limiters by name: the one list the lab file and the
// constructors share.
var Kinds = []string{"aimd", "gradient2"}

// New builds the limiter spec asks for; an empty kind means none (nil, nil).
func New(spec Spec) (Limit, error) {
	switch spec.Kind {
	case "":
		return nil, nil
	case "aimd":
		return NewAIMD(AIMDConfig{Initial: spec.Initial, Min: spec.Min, Max: spec.Max, SlowRTT: 5 * spec.MeanService})
	case "gradient2":
		return NewGradient2(Gradient2Config{Initial: spec.Initial, Min: spec.Min, Max: spec.Max})
	}
	return nil, fmt.Errorf("limiter %q: unknown, allowed: %s", spec.Kind, strings.Join(Kinds, ", "))
}
