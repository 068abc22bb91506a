package server

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/lblab/lblab/internal/rng"
)

// Fault is a fault the caller of one request asks for (fortio's
// ?status=503:10&delay=50ms:25): answer with Status for StatusPercent of
// such requests, and hold the answer Delay longer for DelayPercent of them.
// The two draws are independent; a request drawn for both gets Status after
// Delay. The zero Fault asks for nothing.
type Fault struct {
	Status        int           // an HTTP code in [MinFaultStatus, MaxFaultStatus]; 0 = none
	StatusPercent float64       // in [0, 100]
	Delay         time.Duration // in (0, MaxFaultDelay]; 0 = none
	DelayPercent  float64       // in [0, 100]
}

// Bounds of a Fault. Codes below 200 are interim answers (100 Continue):
// an HTTP client waits past them for a final one, so a fault cannot end a
// request with one.
const (
	MinFaultStatus = 200
	MaxFaultStatus = 599
	MaxFaultDelay  = time.Minute
)

// ReasonFault is the reason of a reply whose status a Fault chose.
const ReasonFault = "fault"

// Salts of the two draws.
var (
	saltFaultStatus = rng.StringHash("fault/status")
	saltFaultDelay  = rng.StringHash("fault/delay")
)

// IsZero reports whether f asks for nothing.
func (f Fault) IsZero() bool { return f.Status == 0 && f.Delay == 0 }

// Draw decides what f does to the attempt with pick number pick: the status
// to answer with (0: none) and the extra delay (0: none). Each is drawn as
// rng.HashFloat(seed, pick, salt) × 100 < its percent, so the simulator and
// a live backend, which know the same pick number, decide alike.
func (f Fault) Draw(seed, pick uint64) (status int, delay time.Duration) {
	if f.Status != 0 && drawn(f.StatusPercent, seed, pick, saltFaultStatus) {
		status = f.Status
	}
	if f.Delay > 0 && drawn(f.DelayPercent, seed, pick, saltFaultDelay) {
		delay = f.Delay
	}
	return status, delay
}

func drawn(percent float64, seed, pick, salt uint64) bool {
	return percent >= 100 || percent > 0 && rng.HashFloat(seed, pick, salt)*100 < percent
}

// Check returns what is wrong with f, naming the parameter (status or
// delay), or nil.
func (f Fault) Check() error {
	switch {
	case f.Status != 0 && (f.Status < MinFaultStatus || f.Status > MaxFaultStatus):
		return fmt.Errorf("status: %d is not an HTTP code in [%d, %d]", f.Status, MinFaultStatus, MaxFaultStatus)
	case !percentOK(f.StatusPercent):
		return fmt.Errorf("status: percent %g is not in [0, 100]", f.StatusPercent)
	case f.Delay < 0 || f.Delay > MaxFaultDelay:
		return fmt.Errorf("delay: %v is not in [0, %v]", f.Delay, MaxFaultDelay)
	case !percentOK(f.DelayPercent):
		return fmt.Errorf("delay: percent %g is not in [0, 100]", f.DelayPercent)
	}
	return nil
}

func percentOK(p float64) bool { return p >= 0 && p <= 100 }

// String writes f in the syntax ParseFault reads: "status=503:10,delay=50ms"
// (a percent of 100 is left out).
func (f Fault) String() string {
	var parts []string
	if f.Status != 0 {
		parts = append(parts, "status="+strconv.Itoa(f.Status)+percentSuffix(f.StatusPercent))
	}
	if f.Delay != 0 {
		parts = append(parts, "delay="+f.Delay.String()+percentSuffix(f.DelayPercent))
	}
	return strings.Join(parts, ",")
}

func percentSuffix(p float64) string {
	if p >= 100 {
		return ""
	}
	return ":" + strconv.FormatFloat(p, 'g', -1, 64)
}

// ParseFault reads a fault spec: comma-separated status=CODE[:PERCENT] and
// delay=DURATION[:PERCENT] (the X-Lab-Fault header's syntax); a missing
// percent is 100. The error names the parameter at fault.
func ParseFault(spec string) (Fault, error) {
	var status, delay string
	for _, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, v, ok := strings.Cut(part, "=")
		switch k = strings.TrimSpace(k); {
		case !ok:
			return Fault{}, fmt.Errorf("%q: want status=CODE[:PERCENT] or delay=DURATION[:PERCENT]", part)
		case k == "status" && status == "":
			status = v
		case k == "delay" && delay == "":
			delay = v
		case k == "status" || k == "delay":
			return Fault{}, fmt.Errorf("%s: given twice", k)
		default:
			return Fault{}, fmt.Errorf("%s: unknown parameter (want status or delay)", k)
		}
	}
	return ParseFaultParams(status, delay)
}

// ParseFaultParams reads the two parameters of a fault as given apart (the
// query parameters ?status=503:10&delay=50ms:25); an empty one is absent.
func ParseFaultParams(status, delay string) (Fault, error) {
	var f Fault
	if status = strings.TrimSpace(status); status != "" {
		code, pct, err := splitPercent("status", status)
		if err != nil {
			return Fault{}, err
		}
		n, err := strconv.Atoi(code)
		if err != nil {
			return Fault{}, fmt.Errorf("status: %q is not an HTTP code like 503", code)
		}
		f.Status, f.StatusPercent = n, pct
	}
	if delay = strings.TrimSpace(delay); delay != "" {
		d, pct, err := splitPercent("delay", delay)
		if err != nil {
			return Fault{}, err
		}
		dur, err := time.ParseDuration(d)
		if err != nil || dur <= 0 {
			return Fault{}, fmt.Errorf("delay: %q is not a duration > 0 like 50ms", d)
		}
		f.Delay, f.DelayPercent = dur, pct
	}
	return f, f.Check()
}

// splitPercent splits "VALUE[:PERCENT]"; the percent defaults to 100.
func splitPercent(name, s string) (string, float64, error) {
	v, p, ok := strings.Cut(s, ":")
	if !ok {
		return v, 100, nil
	}
	pct, err := strconv.ParseFloat(p, 64)
	if err != nil || math.IsNaN(pct) || !percentOK(pct) {
		return "", 0, fmt.Errorf("%s: percent %q is not a number in [0, 100]", name, p)
	}
	return v, pct, nil
}

// FaultStatus is the status a reply with HTTP code c stands for, so that
// policy.ResultOf reads it as a client reads the code over HTTP: 503 a
// rejection, 504 a timeout (as dropped expired), any other 5xx an error,
// anything below 500 served.
func FaultStatus(c int) Status {
	switch {
	case c == 503:
		return Rejected
	case c == 504:
		return Dropped
	case c >= 500:
		return Error
	}
	return OK
}
