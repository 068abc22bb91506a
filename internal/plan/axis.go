package plan

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lblab/lblab/internal/report"
)

// MaxAxisValues bounds the values of one --vary.
const MaxAxisValues = 1000

// Axis is one --vary: a path and its values in order.
type Axis struct {
	Spec   string // the --vary as given, for messages
	Path   string
	Values []string
	Nums   []float64 // each value as a number (ms for durations); nil when not numeric
	Unit   string    // "" numbers, "ms" durations, "text" otherwise
}

// ParseVary reads PATH=FROM:TO:STEP or PATH=V1,V2,...
func ParseVary(spec string) (Axis, error) {
	bad := func(format string, a ...any) (Axis, error) {
		return Axis{}, fmt.Errorf("--vary %s: "+format, append([]any{spec}, a...)...)
	}
	path, list, ok := strings.Cut(spec, "=")
	path, list = strings.TrimSpace(path), strings.TrimSpace(list)
	if !ok || path == "" || list == "" {
		return bad("want PATH=FROM:TO:STEP (clients.rate=100:1000:100) or PATH=V1,V2,... (algorithm=round-robin,p2c)")
	}
	a := Axis{Spec: spec, Path: path}
	if strings.Contains(list, ":") {
		parts := strings.Split(list, ":")
		if len(parts) != 3 {
			return bad("a range is FROM:TO:STEP, like 100:1000:100 or 50ms:250ms:50ms")
		}
		from, to, step, unit, err := rangeBounds(parts)
		if err != nil {
			return bad("%v", err)
		}
		switch {
		case step <= 0:
			return bad("the step must be more than 0")
		case to < from:
			return bad("the range is empty: FROM must not exceed TO")
		case (to-from)/step+1 > MaxAxisValues:
			return bad("more than %d values; take a larger step", MaxAxisValues)
		}
		n := int(math.Floor((to-from)/step+1e-9)) + 1
		decimals := 0
		for _, p := range parts {
			if i := strings.IndexByte(p, '.'); i >= 0 && unit == "" {
				decimals = max(decimals, len(p)-i-1)
			}
		}
		a.Unit = unit
		for i := range n {
			v := from + float64(i)*step
			if unit == "ms" {
				a.Values = append(a.Values, time.Duration(math.Round(v*float64(time.Millisecond))).String())
			} else {
				v, _ = strconv.ParseFloat(strconv.FormatFloat(v, 'f', decimals, 64), 64)
				a.Values = append(a.Values, strconv.FormatFloat(v, 'f', decimals, 64))
			}
			a.Nums = append(a.Nums, v)
		}
		return a, nil
	}
	for _, v := range strings.Split(list, ",") {
		v = strings.TrimSpace(v)
		switch {
		case v == "":
			return bad("an empty value in the list")
		case slices.Contains(a.Values, v):
			return bad("%s is listed twice", v)
		}
		a.Values = append(a.Values, v)
	}
	if len(a.Values) > MaxAxisValues {
		return bad("more than %d values", MaxAxisValues)
	}
	a.Nums, a.Unit = listNumbers(a.Values)
	return a, nil
}

// rangeBounds parses FROM, TO and STEP, all numbers or all durations (in ms).
func rangeBounds(parts []string) (from, to, step float64, unit string, err error) {
	var f [3]float64
	numbers := true
	for i, p := range parts {
		if f[i], err = strconv.ParseFloat(strings.TrimSpace(p), 64); err != nil || math.IsNaN(f[i]) || math.IsInf(f[i], 0) {
			numbers = false
		}
	}
	if numbers {
		return f[0], f[1], f[2], "", nil
	}
	for i, p := range parts {
		d, err := time.ParseDuration(strings.TrimSpace(p))
		if err != nil {
			return 0, 0, 0, "", fmt.Errorf("%q is neither a number nor a duration; FROM, TO and STEP are all numbers or all durations", p)
		}
		f[i] = float64(d) / float64(time.Millisecond)
	}
	return f[0], f[1], f[2], "ms", nil
}

// listNumbers reads a list's values as numbers, or durations in ms; text
// when they are neither.
func listNumbers(values []string) ([]float64, string) {
	nums := make([]float64, len(values))
	for _, unit := range []string{"", "ms"} {
		ok := true
		for i, v := range values {
			var err error
			if unit == "" {
				nums[i], err = strconv.ParseFloat(v, 64)
			} else {
				var d time.Duration
				d, err = time.ParseDuration(v)
				nums[i] = float64(d) / float64(time.Millisecond)
			}
			if err != nil || math.IsNaN(nums[i]) || math.IsInf(nums[i], 0) {
				ok = false
				break
			}
		}
		if ok {
			return nums, unit
		}
	}
	return nil, "text"
}

// SetsAlgorithm reports whether a path chooses the balancing algorithm.
func SetsAlgorithm(path string) bool {
	return path == "algorithm" || path == "balancers.algorithm" || path == "clients.algorithm"
}

// ParseKnee reads --knee: a factor like 10x, or a duration.
func ParseKnee(s string) (report.KneeRule, error) {
	if f, ok := strings.CutSuffix(s, "x"); ok {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil || !(v > 1) || math.IsInf(v, 0) {
			return report.KneeRule{}, fmt.Errorf("--knee %s: a factor is a number over 1 followed by x, like 10x", s)
		}
		return report.KneeRule{Factor: v}, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return report.KneeRule{}, fmt.Errorf("--knee %s: want a duration like 200ms or a factor like 10x", s)
	}
	return report.KneeRule{BoundMS: float64(d) / float64(time.Millisecond)}, nil
}
