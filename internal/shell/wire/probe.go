package wire

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/lblab/lblab/internal/core/load"
)

// ProbePath is the backend's data-port path that answers a probe (a
// probing algorithm's, prequal): GET /probe, answered at once, without a
// worker or a queue place (docs/admin-api-backend.md).
const ProbePath = "/probe"

// probeJSON is a probe answer on the wire: {"rif": 3, "latency_ms": 12.5}.
type probeJSON struct {
	RIF       *int     `json:"rif"`
	LatencyMs *float64 `json:"latency_ms"`
}

// maxProbeLatency bounds a probe answer's latency: far above any latency a
// lab makes, far below what a time.Duration holds.
const maxProbeLatency = 24 * time.Hour

// AppendProbe appends p's JSON to b.
func AppendProbe(b []byte, p load.Probe) []byte {
	b = append(b, `{"rif":`...)
	b = strconv.AppendInt(b, int64(p.RIF), 10)
	b = append(b, `,"latency_ms":`...)
	b = strconv.AppendFloat(b, float64(p.Latency)/1e6, 'f', -1, 64)
	return append(b, '}')
}

// ParseProbe reads a probe answer's JSON; an answer without both fields,
// with a negative or fractional count, or a latency that is not a number
// in [0, 24h], is an error naming the field.
func ParseProbe(b []byte) (load.Probe, error) {
	var j probeJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return load.Probe{}, fmt.Errorf("a probe answer is JSON {\"rif\": N, \"latency_ms\": X}: %v", err)
	}
	switch {
	case j.RIF == nil:
		return load.Probe{}, fmt.Errorf("rif: missing from the probe answer")
	case *j.RIF < 0:
		return load.Probe{}, fmt.Errorf("rif: %d, must be >= 0", *j.RIF)
	case j.LatencyMs == nil:
		return load.Probe{}, fmt.Errorf("latency_ms: missing from the probe answer")
	case !(*j.LatencyMs >= 0 && *j.LatencyMs <= float64(maxProbeLatency/time.Millisecond)):
		return load.Probe{}, fmt.Errorf("latency_ms: %v, must be in [0, %d]", *j.LatencyMs, maxProbeLatency/time.Millisecond)
	}
	return load.Probe{RIF: *j.RIF, Latency: time.Duration(math.Round(*j.LatencyMs * 1e6))}, nil
}
