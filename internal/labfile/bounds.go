package labfile

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/lblab/lblab/internal/core/balance"
	"github.com/lblab/lblab/internal/core/breaker"
	"github.com/lblab/lblab/internal/core/conn"
	"github.com/lblab/lblab/internal/core/outlier"
	"github.com/lblab/lblab/internal/core/server"
	"github.com/lblab/lblab/internal/core/slowstart"
)

// Range is the allowed range of one kind of value: [Min, Max], or (Min,
// Max] with MinOpen; with ZeroOK, 0 is allowed too (it means off, none or
// unbounded) whatever Min is. The lab-file validator and every admin API
// check their values with Check, against the ranges of Bounds.
type Range[T int | float64 | time.Duration] struct {
	Min, Max T
	MinOpen  bool
	ZeroOK   bool
}

// In reports whether v is allowed (NaN never is).
func (r Range[T]) In(v T) bool {
	var zero T
	if r.ZeroOK && v == zero {
		return true
	}
	if r.MinOpen {
		return v > r.Min && v <= r.Max
	}
	return v >= r.Min && v <= r.Max
}

// Check returns nil, or an error naming field and the allowed range:
// "speed: must be in (0, 100], got 1e+308".
func (r Range[T]) Check(field string, v T) *Error {
	if r.In(v) {
		return nil
	}
	return &Error{Field: field, Msg: r.msg(v)}
}

// msg says what is wrong with v.
func (r Range[T]) msg(v T) string {
	return "must be " + r.String() + ", got " + format(v)
}

// String is the range as the messages and docs/labfile.md write it:
// "between 1 and 10000" for whole numbers, "in (0, 100]" otherwise, with
// "0 or " in front when ZeroOK.
func (r Range[T]) String() string {
	var s string
	if _, ok := any(r.Min).(int); ok {
		s = "between " + format(r.Min) + " and " + format(r.Max)
	} else {
		open := "["
		if r.MinOpen {
			open = "("
		}
		s = "in " + open + format(r.Min) + ", " + format(r.Max) + "]"
	}
	if r.ZeroOK {
		s = "0 or " + s
	}
	return s
}

func format[T int | float64 | time.Duration](v T) string {
	switch v := any(v).(type) {
	case int:
		return strconv.Itoa(v)
	case float64:
		return num(v)
	case time.Duration:
		return shortDur(v)
	}
	return fmt.Sprint(v)
}

// shortDur writes a duration without zero units: 1h, 10ms, 1m30s.
func shortDur(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// Limits every lab file and admin API share.
const (
	maxServers   = 10000
	maxBalancers = 1000
	maxRate      = 1e6                   // requests per second
	maxDelay     = time.Hour             // timeouts, pauses, work, periods
	minPeriod    = 10 * time.Millisecond // health checks and load polls: a shorter period burns a core
	maxNetwork   = 10 * time.Second      // hop and jitter
	maxLabTime   = 365 * 24 * time.Hour
	maxCount     = 1_000_000 // clients, keys, limits, outstanding
	// MaxNameLen bounds the lab's name; MaxTextLen any other text (a
	// description, a narration). Server names have their own, smaller
	// bound (checkServerName).
	MaxNameLen = 256
	MaxTextLen = 64 << 10
)

// Bounds are the allowed ranges of the lab's values, one per kind of
// value; docs/labfile.md lists them. The cores define the bounds they
// depend on (server.MaxSpeed, breaker.MaxWindow, ...) and Bounds uses
// those constants, so a lab file, an admin API and the core agree.
var Bounds = struct {
	Speed, Share, Rate, ArrivalRate, Zipf, CV, Budget, Epsilon, Threshold, Weight, MixShare Range[float64]
	EjectionShare, OutlierK, RampFloor, Aggression, ApertureLoad, FaultShare, ErrorPenalty  Range[float64]
	ProbeRate, ReuseDelta, Overprovisioning, RingThreshold                                  Range[float64]
	Workers, QueueCapacity, Outstanding, CacheSize, Limit, Users, Clients, Keys, Retries    Range[int]
	Subset, Aperture, Choices, VNodes, Window, Probes, Checks, Servers, Balancers, PoolSize Range[int]
	ConsecutiveFailures, MinRequests, Rounds, MaxConns, Sticky, JoinChoices, ClusterSize    Range[int]
	Duration, Network, Timeout, Work, Pause, Period, Refresh, Every, Decay                  Range[time.Duration]
	OutlierInterval, Ejection, RampWindow, Offset, Keepalive, WeightUpdate                  Range[time.Duration]
}{
	Speed:       Range[float64]{Min: 0, Max: server.MaxSpeed, MinOpen: true},
	Share:       Range[float64]{Min: 0, Max: 1},
	Rate:        Range[float64]{Min: 0, Max: maxRate},
	ArrivalRate: Range[float64]{Min: 0, Max: maxRate, MinOpen: true},
	Zipf:        Range[float64]{Min: 0, Max: 5},
	CV:          Range[float64]{Min: 0, Max: 100},
	Budget:      Range[float64]{Min: 0, Max: 1},
	Epsilon:     Range[float64]{Min: 0, Max: 10, MinOpen: true},
	Threshold:   Range[float64]{Min: 0, Max: 1, MinOpen: true},
	Weight:      Range[float64]{Min: 0, Max: 1e6},
	MixShare:    Range[float64]{Min: 0, Max: 1e6, MinOpen: true},

	EjectionShare:    Range[float64]{Min: 0, Max: 1, MinOpen: true},
	OutlierK:         Range[float64]{Min: 0, Max: outlier.MaxK},
	RampFloor:        Range[float64]{Min: 0, Max: 1, MinOpen: true},
	Aggression:       Range[float64]{Min: slowstart.MinAggression, Max: slowstart.MaxAggression},
	ApertureLoad:     Range[float64]{Min: 0, Max: balance.MaxApertureLoad},
	FaultShare:       Range[float64]{Min: 0, Max: 1, MinOpen: true},
	ErrorPenalty:     Range[float64]{Min: 0, Max: 100},
	ProbeRate:        Range[float64]{Min: 0, Max: balance.MaxProbeRate, MinOpen: true},
	ReuseDelta:       Range[float64]{Min: 0, Max: balance.MaxReuseDelta},
	Overprovisioning: Range[float64]{Min: 1, Max: 100},
	RingThreshold:    Range[float64]{Min: 0, Max: 1e6, MinOpen: true},

	Workers:       Range[int]{Min: 1, Max: server.MaxWorkers},
	QueueCapacity: Range[int]{Min: 0, Max: server.MaxQueueCap},
	Outstanding:   Range[int]{Min: 0, Max: maxCount},
	CacheSize:     Range[int]{Min: 0, Max: server.MaxCacheSize},
	Limit:         Range[int]{Min: 1, Max: maxCount},
	Users:         Range[int]{Min: 1, Max: 100000},
	Clients:       Range[int]{Min: 1, Max: maxCount},
	Keys:          Range[int]{Min: 1, Max: maxCount},
	Retries:       Range[int]{Min: 0, Max: 10},
	Subset:        Range[int]{Min: 0, Max: maxServers},
	Aperture:      Range[int]{Min: 0, Max: balance.MaxAperture},
	Choices:       Range[int]{Min: 1, Max: balance.MaxChoices},
	VNodes:        Range[int]{Min: 1, Max: balance.MaxVNodes},
	Window:        Range[int]{Min: breaker.MinWindow, Max: breaker.MaxWindow},
	Probes:        Range[int]{Min: 1, Max: 100},
	Checks:        Range[int]{Min: 1, Max: 1000},
	Servers:       Range[int]{Min: 1, Max: maxServers},
	Balancers:     Range[int]{Min: 1, Max: maxBalancers},
	PoolSize:      Range[int]{Min: 1, Max: balance.MaxPoolSize},
	JoinChoices:   Range[int]{Min: 1, Max: balance.MaxJIQChoices},
	ClusterSize:   Range[int]{Min: 1, Max: maxServers},

	ConsecutiveFailures: Range[int]{Min: 0, Max: outlier.MaxConsecutive},
	MinRequests:         Range[int]{Min: 1, Max: outlier.MaxMinRequests},
	Rounds:              Range[int]{Min: 0, Max: conn.MaxRounds},
	MaxConns:            Range[int]{Min: 0, Max: 10000},
	Sticky:              Range[int]{Min: 0, Max: maxCount},

	Duration: Range[time.Duration]{Min: 0, Max: maxLabTime, MinOpen: true},
	Network:  Range[time.Duration]{Min: 0, Max: maxNetwork},
	Timeout:  Range[time.Duration]{Min: 0, Max: maxDelay},
	Work:     Range[time.Duration]{Min: 0, Max: maxDelay, MinOpen: true},
	Pause:    Range[time.Duration]{Min: 0, Max: maxDelay, MinOpen: true},
	Period:   Range[time.Duration]{Min: minPeriod, Max: maxDelay},
	Refresh:  Range[time.Duration]{Min: minPeriod, Max: maxDelay, ZeroOK: true},
	Every:    Range[time.Duration]{Min: 0, Max: maxDelay},
	Decay:    Range[time.Duration]{Min: 0, Max: maxDelay, MinOpen: true},

	OutlierInterval: Range[time.Duration]{Min: outlier.MinInterval, Max: maxDelay},
	Ejection:        Range[time.Duration]{Min: 0, Max: maxDelay, MinOpen: true},
	RampWindow:      Range[time.Duration]{Min: 0, Max: maxDelay, MinOpen: true},
	Offset:          Range[time.Duration]{Min: 0, Max: maxLabTime},  // an instant into the run
	Keepalive:       Range[time.Duration]{Min: 0, Max: time.Minute}, // the backends close connections idle for 2 minutes
	WeightUpdate:    Range[time.Duration]{Min: balance.MinORCAUpdate, Max: maxDelay},
}

// check reports v at path when it is out of r.
func check[T int | float64 | time.Duration](r *reporter, path string, b Range[T], v T) {
	r.allow(path, Allowed{Range: b})
	if !b.In(v) {
		r.add(path, "%s", b.msg(v))
	}
}

// checkText reports text at path longer than max bytes, or holding what
// a terminal would act on (CheckPrintable; lines: newlines and tabs are
// allowed).
func checkText(r *reporter, path, text string, max int, lines bool) {
	if len(text) > max {
		r.add(path, "is %d bytes long; at most %d are allowed", len(text), max)
	}
	if msg := CheckPrintable(text, lines); msg != "" {
		r.add(path, "%s", msg)
	}
}

// CheckPrintable returns what is wrong with a free text that lab prints to
// terminals and logs (a lab's name, description, narration, captions,
// setting names; the file name POST /api/lab is given), or "": it must be
// valid UTF-8 without control characters, C0 (NUL, ESC, which starts a
// terminal escape, CR, which rewrites a line), DEL and C1 (U+0080 to
// U+009F; U+009B is an escape too). Where lines is true, a newline and a
// tab are allowed (a narration has paragraphs); a name is one line.
func CheckPrintable(text string, lines bool) string {
	for i, c := range text {
		switch {
		case c == utf8.RuneError && !strings.HasPrefix(text[i:], "\uFFFD"): // a byte that starts no character (U+FFFD itself is fine)
			return fmt.Sprintf("is not valid UTF-8 (byte %d is 0x%02x): it is printed to terminals and logs", i, text[i])
		case lines && (c == '\n' || c == '\t'):
		case c < 0x20 || c >= 0x7f && c <= 0x9f:
			what := "one line of printable text"
			if lines {
				what = "printable text, newlines and tabs"
			}
			return fmt.Sprintf("holds the control character U+%04X at byte %d: it is printed to terminals and logs, so it must be %s", c, i, what)
		}
	}
	return ""
}
