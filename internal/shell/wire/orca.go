package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/lblab/lblab/internal/core/load"
)

// A server's load report (load.Report) travels as ORCA's per-response
// header, the form Envoy, gRPC and vLLM use (xds.data.orca.v3.OrcaLoadReport;
// docs/admin-api-backend.md, "Load reports"): a caller that sends
// endpoint-load-metrics-format (TEXT or JSON) gets endpoint-load-metrics on
// the answer. This file is the one place the report is written and read on
// the wire: a figure added to load.Report gets its name here, in orcaFields.
const (
	HLoadMetrics       = "endpoint-load-metrics"        // the report, "TEXT ..." or "JSON {...}"
	HLoadMetricsFormat = "endpoint-load-metrics-format" // request: TEXT or JSON (any case) asks for the report
)

// LoadFormat is the form a caller asked the report in.
type LoadFormat uint8

// The forms.
const (
	NoLoad   LoadFormat = iota // not asked: no header
	LoadText                   // TEXT name:value, ... (Envoy's parser reads name:value pairs)
	LoadJSON                   // JSON {...}
)

// LoadFormatOf reads a request's endpoint-load-metrics-format value.
func LoadFormatOf(v []byte) LoadFormat {
	switch {
	case bytes.EqualFold(bytes.TrimSpace(v), []byte("text")):
		return LoadText
	case bytes.EqualFold(bytes.TrimSpace(v), []byte("json")):
		return LoadJSON
	}
	return NoLoad
}

// orcaField is one figure of the report by its ORCA name: top level, or a
// named metric (named_metrics.NAME).
type orcaField struct {
	name  string
	named bool
	get   func(r load.Report) float64
	set   func(r load.Report, v float64) (load.Report, bool) // false: not a value the field takes
}

func wholeCount(v float64) (int, bool) {
	if v < 0 || v > 1<<30 || v != math.Trunc(v) {
		return 0, false
	}
	return int(v), true
}

// orcaFields are the report's figures on the wire, in the order written.
var orcaFields = []orcaField{
	{"cpu_utilization", false, func(r load.Report) float64 { return r.Utilization }, func(r load.Report, v float64) (load.Report, bool) { r.Utilization = v; return r, true }},
	{"rps_fractional", false, func(r load.Report) float64 { return r.RPS }, func(r load.Report, v float64) (load.Report, bool) { r.RPS = v; return r, true }},
	{"eps", false, func(r load.Report) float64 { return r.EPS }, func(r load.Report, v float64) (load.Report, bool) { r.EPS = v; return r, true }},
	{"queued", true, func(r load.Report) float64 { return float64(r.Queued) }, func(r load.Report, v float64) (load.Report, bool) {
		n, ok := wholeCount(v)
		r.Queued = n
		return r, ok
	}},
	{"in_service", true, func(r load.Report) float64 { return float64(r.InService) }, func(r load.Report, v float64) (load.Report, bool) {
		n, ok := wholeCount(v)
		r.InService = n
		return r, ok
	}},
}

// AppendLoad appends r as the value of endpoint-load-metrics in the form f:
// "TEXT cpu_utilization:0.42, rps_fractional:183.2, eps:0,
// named_metrics.queued:3, named_metrics.in_service:4", or "JSON {...}" with
// the named metrics in "named_metrics".
func AppendLoad(dst []byte, r load.Report, f LoadFormat) []byte {
	switch f {
	case LoadText:
		dst = append(dst, "TEXT "...)
		for i, fl := range orcaFields {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			if fl.named {
				dst = append(dst, "named_metrics."...)
			}
			dst = append(dst, fl.name...)
			dst = append(dst, ':')
			dst = strconv.AppendFloat(dst, fl.get(r), 'g', 6, 64)
		}
	case LoadJSON:
		dst = append(dst, "JSON {"...)
		named := false
		for _, fl := range orcaFields {
			switch {
			case fl.named && !named:
				dst = append(dst, `,"named_metrics":{`...)
				named = true
			case dst[len(dst)-1] != '{':
				dst = append(dst, ',')
			}
			dst = strconv.AppendQuote(dst, fl.name)
			dst = append(dst, ':')
			dst = strconv.AppendFloat(dst, fl.get(r), 'g', 6, 64)
		}
		if named {
			dst = append(dst, '}')
		}
		dst = append(dst, '}')
	}
	return dst
}

// ParseLoad reads an endpoint-load-metrics value into a Valid report (At is
// the reader's to set). TEXT takes name:value or name=value pairs (Envoy
// reads the first, vLLM and Triton write the second); JSON an object with
// named_metrics as an object. ORCA figures lblab does not model
// (mem_utilization, application_utilization, other named metrics, the
// utilization and request_cost maps) are read past; a value that is not a
// finite number >= 0, a count that is not a whole number, a figure given
// twice or a form that is neither is an error. The TEXT form, which the
// loadgen reads on every answer, allocates nothing unless it fails.
func ParseLoad(v []byte) (load.Report, error) {
	v = bytes.TrimSpace(v)
	var r load.Report
	var seen uint64 // orcaFields given so far, by index
	put := func(name []byte, x float64) error {
		for i := range orcaFields {
			fl := &orcaFields[i]
			n := name
			if fl.named {
				var ok bool
				if n, ok = bytes.CutPrefix(name, []byte("named_metrics.")); !ok {
					continue
				}
			}
			if string(n) != fl.name {
				continue
			}
			next, ok := fl.set(r, x)
			switch {
			case seen&(1<<i) != 0:
				return fmt.Errorf("%s: %s given twice", HLoadMetrics, name)
			case math.IsNaN(x) || math.IsInf(x, 0) || x < 0:
				return fmt.Errorf("%s: %s = %g, must be a finite number >= 0", HLoadMetrics, name, x)
			case !ok:
				return fmt.Errorf("%s: %s = %g, must be a whole number >= 0", HLoadMetrics, name, x)
			}
			seen |= 1 << i
			r = next
		}
		return nil
	}
	switch {
	case bytes.HasPrefix(v, []byte("TEXT ")):
		rest := v[len("TEXT "):]
		for len(rest) > 0 {
			var pair []byte
			pair, rest, _ = bytes.Cut(rest, []byte(","))
			pair = bytes.TrimSpace(pair)
			if len(pair) == 0 {
				continue
			}
			i := bytes.IndexAny(pair, ":=")
			if i <= 0 {
				return load.Report{}, fmt.Errorf("%s: %q is not name:value", HLoadMetrics, pair)
			}
			x, err := strconv.ParseFloat(string(bytes.TrimSpace(pair[i+1:])), 64)
			if err != nil {
				return load.Report{}, fmt.Errorf("%s: %q: the value is not a number", HLoadMetrics, pair)
			}
			if err := put(bytes.TrimSpace(pair[:i]), x); err != nil {
				return load.Report{}, err
			}
		}
	case bytes.HasPrefix(v, []byte("JSON ")):
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(v[len("JSON "):], &raw); err != nil {
			return load.Report{}, fmt.Errorf("%s: %v", HLoadMetrics, err)
		}
		for k, msg := range raw {
			if k == "named_metrics" {
				var named map[string]float64
				if err := json.Unmarshal(msg, &named); err != nil {
					return load.Report{}, fmt.Errorf("%s: named_metrics: %v", HLoadMetrics, err)
				}
				for n, x := range named {
					if err := put([]byte("named_metrics."+n), x); err != nil {
						return load.Report{}, err
					}
				}
				continue
			}
			var x float64
			if json.Unmarshal(msg, &x) != nil {
				continue // a map (utilization, request_cost) or a field of another kind: read past
			}
			if err := put([]byte(k), x); err != nil {
				return load.Report{}, err
			}
		}
	default:
		return load.Report{}, errors.New(HLoadMetrics + ": neither TEXT nor JSON (BIN, the protobuf form, is not read)")
	}
	r.Valid = true
	return r, nil
}
