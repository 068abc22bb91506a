package labfile

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lblab/lblab/internal/core/server"
)

// ProfileShape is the form of a load profile (clients.profile.shape).
type ProfileShape string

// The shapes.
const (
	ShapeRamp  ProfileShape = "ramp"  // from -> to, linearly over `over`, then to
	ShapeSteps ProfileShape = "steps" // levels[i] for `every` each; the last one stays
	ShapeSine  ProfileShape = "sine"  // mean + amplitude·sin(2πt/period)
	ShapeSpike ProfileShape = "spike" // base, but peak during [at, at+for)
)

// Shapes lists the shapes in documentation order.
var Shapes = []ProfileShape{ShapeRamp, ShapeSteps, ShapeSine, ShapeSpike}

// Profile is clients.profile: a level that changes with the time since the
// start of the run. In open loop the level is the arrival rate (requests/s,
// taking the place of clients.rate), in closed loop the number of users
// (taking the place of clients.users). Each shape takes its own fields
// (profileFields).
type Profile struct {
	Shape     ProfileShape  `yaml:"shape"`
	From      float64       `yaml:"from"` // ramp
	To        float64       `yaml:"to"`
	Over      time.Duration `yaml:"over"`
	Levels    []float64     `yaml:"levels"` // steps
	Every     time.Duration `yaml:"every"`
	Mean      float64       `yaml:"mean"` // sine
	Amplitude float64       `yaml:"amplitude"`
	Period    time.Duration `yaml:"period"`
	Base      float64       `yaml:"base"` // spike
	Peak      float64       `yaml:"peak"`
	At        time.Duration `yaml:"at"`
	For       time.Duration `yaml:"for"`
}

// profileFields says which fields each shape takes (shape aside).
var profileFields = map[ProfileShape][]string{
	ShapeRamp:  {"from", "to", "over"},
	ShapeSteps: {"levels", "every"},
	ShapeSine:  {"mean", "amplitude", "period"},
	ShapeSpike: {"base", "peak", "at", "for"},
}

// FaultShare is one entry of clients.faults: Share of the requests (a pure
// function of the seed and the request's number) ask every server their
// attempts reach to answer Status and/or to hold the answer Delay longer.
// The shares take consecutive slices of the requests: they sum to at most 1
// and a request carries at most one entry.
type FaultShare struct {
	Share  float64       `yaml:"share"`
	Status int           `yaml:"status"` // an HTTP code in [200, 599]; 0 = none
	Delay  time.Duration `yaml:"delay"`  // in (0, 1m]; 0 = none
}

// maxUsers bounds clients.users and a closed-loop profile's levels.
const maxUsers = 100000

func validateProfile(c *Clients, r *reporter) {
	p := c.Profile
	if p == nil {
		return
	}
	const path = "clients.profile"
	fields, ok := profileFields[p.Shape]
	if !ok {
		oneOfEnum(r, path+".shape", p.Shape, Shapes...)
		return
	}
	for _, f := range usedProfileFields(p) {
		if !slices.Contains(fields, f) {
			r.add(path+"."+f, "is not used by shape %s (it takes %s)", p.Shape, strings.Join(fields, ", "))
		}
	}
	unit, top := "requests/s", float64(maxRate)
	if c.Mode == ClosedLoop {
		unit, top = "users", maxUsers
	}
	level := func(field string, v float64) {
		if !(v >= 0 && v <= top) {
			r.add(field, "must be a level in [0, %s] (%s), got %s", num(top), unit, num(v))
		}
	}
	switch p.Shape {
	case ShapeRamp:
		level(path+".from", p.From)
		level(path+".to", p.To)
		check(r, path+".over", Bounds.Duration, p.Over)
	case ShapeSteps:
		if len(p.Levels) == 0 {
			r.add(path+".levels", "steps needs at least one level (levels: [50, 100, 200])")
		}
		for i, v := range p.Levels {
			level(IndexPath(path+".levels", i), v)
		}
		check(r, path+".every", Bounds.Duration, p.Every)
	case ShapeSine:
		if !(p.Mean > 0 && p.Mean <= top) {
			r.add(path+".mean", "must be in (0, %s] (%s), got %s", num(top), unit, num(p.Mean))
		}
		if !(p.Amplitude >= 0 && p.Amplitude <= p.Mean) {
			r.add(path+".amplitude", "must be in [0, mean] = [0, %s] (the level never goes below 0), got %s", num(p.Mean), num(p.Amplitude))
		} else if p.Mean+p.Amplitude > top {
			r.add(path+".amplitude", "mean + amplitude must be at most %s (%s), got %s", num(top), unit, num(p.Mean+p.Amplitude))
		}
		check(r, path+".period", Bounds.Duration, p.Period)
	case ShapeSpike:
		level(path+".base", p.Base)
		level(path+".peak", p.Peak)
		check(r, path+".at", Bounds.Offset, p.At)
		check(r, path+".for", Bounds.Duration, p.For)
	}
	if c.Mode == ClosedLoop && peakLevel(p) < 0.5 {
		r.add(path, "never reaches one user (levels round to whole users); give a level of at least 1")
	}
}

// peakLevel is the highest level a profile's fields give.
func peakLevel(p *Profile) float64 {
	switch p.Shape {
	case ShapeRamp:
		return max(p.From, p.To)
	case ShapeSteps:
		return slices.Max(append([]float64{0}, p.Levels...))
	case ShapeSine:
		return p.Mean + p.Amplitude
	}
	return max(p.Base, p.Peak)
}

// usedProfileFields lists the shape fields given a non-zero value.
func usedProfileFields(p *Profile) []string {
	var out []string
	add := func(name string, set bool) {
		if set {
			out = append(out, name)
		}
	}
	add("from", p.From != 0)
	add("to", p.To != 0)
	add("over", p.Over != 0)
	add("levels", len(p.Levels) > 0)
	add("every", p.Every != 0)
	add("mean", p.Mean != 0)
	add("amplitude", p.Amplitude != 0)
	add("period", p.Period != 0)
	add("base", p.Base != 0)
	add("peak", p.Peak != 0)
	add("at", p.At != 0)
	add("for", p.For != 0)
	return out
}

func validateFaults(fs []FaultShare, r *reporter) {
	total := 0.0
	for i, f := range fs {
		p := IndexPath("clients.faults", i)
		check(r, p+".share", Bounds.FaultShare, f.Share)
		total += max(f.Share, 0)
		if f.Status == 0 && f.Delay == 0 {
			r.add(p, "needs a status (like 503) or a delay (like 50ms), or both")
		}
		if f.Status != 0 && (f.Status < server.MinFaultStatus || f.Status > server.MaxFaultStatus) {
			r.add(p+".status", "must be an HTTP code in [%d, %d] (1xx are interim answers a client waits past), got %d",
				server.MinFaultStatus, server.MaxFaultStatus, f.Status)
		}
		if f.Delay < 0 || f.Delay > server.MaxFaultDelay {
			r.add(p+".delay", "must be in [0, %v], got %v", server.MaxFaultDelay, f.Delay)
		}
	}
	if total > 1+1e-9 && !math.IsNaN(total) {
		r.add("clients.faults", "the shares sum to %s; a request carries at most one fault, so they may sum to at most 1", num(total))
	}
}

// Fault is the core's form of a fault entry: what every attempt of a marked
// request asks for (always, so percents of 100).
func (f FaultShare) Fault() server.Fault {
	return server.Fault{Status: f.Status, StatusPercent: 100, Delay: f.Delay, DelayPercent: 100}
}

// String describes the entry for messages: "5% status=503".
func (f FaultShare) String() string {
	return fmt.Sprintf("%s%% %s", num(f.Share*100), f.Fault())
}

// fixedForRun are the settings a running lab cannot change, each with why:
// a set event or drill may not name one (nor its fields); a compare setting
// may. Every other setting a set event takes is carried out on both clocks.
var fixedForRun = []struct{ path, why string }{
	{"seed", "every random stream of the run is drawn from it when the run starts"},
	{"duration", "the run's end is set when it starts"},
	{"network.handshake", connsBuilt},
	{"network.keepalive", connsBuilt},
	{"network.max_conns", connsBuilt},
	{"network.tls", connsBuilt},
	{"clients.mode", "the open or closed loop is built when the run starts"},
	{"clients.users", "the closed loop's users are started once (a load profile changes them in the course of a run)"},
	{"clients.think", streamBuilt},
	// the stream draws each request's client id below it; clients that
	// balance themselves are one balancer each, on a ring of that many
	{"clients.count", "the request stream draws its client ids below it once, and clients that balance themselves are one balancer each"},
	{"clients.activity", streamBuilt},
	{"clients.keys", streamBuilt},
	{"clients.zipf", streamBuilt},
	{"clients.work", streamBuilt + ", and the servers and their limiters take their work from it when the run starts"},
	{"clients.profile", streamBuilt},
	{"clients.faults", streamBuilt},
	{"balancers.kind", "the balancer tier's processes are started once"},
	{"balancers.command", "the balancer tier's processes are started once"},
	{"balancers.count", "the balancer tier's processes are started once"},
	// a balancer's counts of the attempts in flight come from its own picks
	// (local) or the servers' reports (shared): at a switch the new source
	// has none of them (no pick counted, or no report yet)
	{"balancers.load", "a balancer's counts of the attempts in flight come from its own picks or from the servers' reports, and the other source has not counted them"},
	{"servers.count", "the fleet is started once (add-server and remove-server change it)"},
	{"servers.name", "the fleet is started once (add-server and remove-server change it)"},
	{"servers.work", "a server and its limiter take their work distribution when the server starts"},
	{"servers.gc", "a server's pause schedule is laid out when it starts"},
	{"events", "the script is laid out when the run starts; a compare setting or lab sweep --vary may change an event"},
	{"servers.zone", "a server is started in its zone, and the clients and balancers are routed by where the servers are when the run starts"},
}

const (
	streamBuilt = "the request stream is built from it once"
	connsBuilt  = "the connection pools, their limits and the certificates are set up when the run starts"
)

// FixedAtRunTime says why a dotted path names a setting a running lab
// cannot change (fixedForRun), or "" when a set event may change it. A
// path into one server group (servers[1].gc.every) is the group's setting.
func FixedAtRunTime(path string) string {
	path = generalize(path) // servers[1].gc.every: servers.gc.every
	for _, f := range fixedForRun {
		if path == f.path || strings.HasPrefix(path, f.path+".") || strings.HasPrefix(path, f.path+"[") {
			return f.why
		}
	}
	return ""
}

// clientSideWhy is why clients.algorithm may not switch between a name and
// "" in a running lab, though it may change from one algorithm to another.
const clientSideWhy = "whether the clients balance themselves or go through a balancer tier is set up when the run starts; the algorithm they use may change"

// switchesSide reports whether a change of clients.algorithm from was to
// now turns client-side balancing on or off.
func switchesSide(was, now string) bool { return (was == "") != (now == "") }

// FixedChange returns an error naming the first path whose setting
// FixedAtRunTime holds fixed and that next changes from l (a live process's
// settings API refuses it, as the lab file refuses the set event), or nil.
// clients.algorithm is refused only when it switches client-side
// balancing on or off.
func (l *Lab) FixedChange(next *Lab, paths ...string) error {
	for _, p := range paths {
		if p == "clients.algorithm" && switchesSide(l.Clients.Algorithm, next.Clients.Algorithm) {
			return fmt.Errorf("%s: is fixed for a run as on or off (%s); it stays %q", p, clientSideWhy, l.Clients.Algorithm)
		}
		why := FixedAtRunTime(p)
		if why == "" {
			continue
		}
		was, err1 := l.Get(p)
		now, err2 := next.Get(p)
		if err1 != nil || err2 != nil || was != now {
			return fmt.Errorf("%s: is fixed for a run (%s); it stays %s", p, why, was)
		}
	}
	return nil
}

// String writes the profile in the form ParseProfile reads:
// "ramp from=10 to=200 over=30s", "steps levels=50,100,200 every=10s".
func (p *Profile) String() string {
	parts := []string{string(p.Shape)}
	v := reflect.ValueOf(p).Elem()
	for _, name := range profileFields[p.Shape] {
		f, _ := lookupField(fieldsOf(v.Type()), name)
		fv := v.FieldByIndex(f.index)
		text := ""
		if fv.Kind() == reflect.Slice {
			var levels []string
			for _, x := range p.Levels {
				levels = append(levels, num(x))
			}
			text = strings.Join(levels, ",")
		} else {
			text = scalarText(fv)
		}
		parts = append(parts, name+"="+text)
	}
	return strings.Join(parts, " ")
}

// ParseProfile reads a profile written as a shape and its fields, key=value
// separated by spaces (loadgen --profile): "ramp from=10 to=200 over=30s",
// "steps levels=50,100,200 every=10s", "sine mean=100 amplitude=50
// period=20s", "spike base=100 peak=500 at=10s for=2s". Its values are
// checked with the lab (Validate), which names the field at fault.
func ParseProfile(spec string) (*Profile, error) {
	words := strings.Fields(spec)
	if len(words) == 0 {
		return nil, fmt.Errorf("give a shape (%s) and its fields, like \"ramp from=10 to=200 over=30s\"", strings.Join(names(Shapes), ", "))
	}
	p := &Profile{Shape: ProfileShape(words[0])}
	fields, ok := profileFields[p.Shape]
	if !ok {
		return nil, fmt.Errorf("shape %q: want one of %s", words[0], strings.Join(names(Shapes), ", "))
	}
	v := reflect.ValueOf(p).Elem()
	for _, w := range words[1:] {
		k, val, ok := strings.Cut(w, "=")
		if !ok || !slices.Contains(fields, k) {
			return nil, fmt.Errorf("%q: shape %s takes %s, each as key=value", w, p.Shape, strings.Join(fields, ", "))
		}
		if k == "levels" {
			p.Levels = nil
			for _, x := range strings.Split(val, ",") {
				f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
				if err != nil {
					return nil, fmt.Errorf("levels: %q is not a number (levels=50,100,200)", x)
				}
				p.Levels = append(p.Levels, f)
			}
			continue
		}
		f, _ := lookupField(fieldsOf(v.Type()), k)
		if err := setScalar(v.FieldByIndex(f.index), scalarValue{text: val}); err != nil {
			return nil, fmt.Errorf("%s: %v", k, err)
		}
	}
	return p, nil
}
