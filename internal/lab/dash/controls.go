package dash

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/shell/state"
)

// The settings the page's controls edit. Which settings get a control, and
// how the page shows it, is pageSettings, declared once here; what each
// one is (its kind, the words it takes) is read from the lab's settings
// table (labfile.Leaves and Lab.AllowedAt), and its value from the lab in
// force and the processes. Every snapshot carries them (Snapshot.Controls),
// and the page builds its controls from them, so a setting added here
// reaches the page with no edit of web/; the banner's changes and the
// snapshot's settings object are derived from the same list.

// Control is one setting the page's controls edit, as in force now.
type Control struct {
	Path  string `json:"path"`  // its dotted lab path, as set takes it
	Key   string `json:"key"`   // its name in the snapshot's settings object, and the control's element id
	Label string `json:"label"` // the control's words, and the banner's
	Group string `json:"group"` // the controls' group it is shown in
	// Drill is the drill that changes it with its one field (rate,
	// algorithm); "": a set of Path.
	Drill string `json:"drill,omitempty"`
	Unit  string `json:"unit,omitempty"` // what follows its value ("/s")
	// Kind is its type in the lab file: bool, int, number, duration, word
	// or text; Words the values a word takes (labfile's check).
	Kind  string   `json:"kind"`
	Words []string `json:"words,omitempty"`
	// Value is the value in force, as set takes it: 100ms, 0.1, true,
	// lifo ("" for a word or text that is off).
	Value string `json:"value"`
	// Off is the value that turns it off (omitted: it has none), and
	// Preset the value a tick of its box sets; Choices are the values its
	// menu offers (with the one in force).
	Off     *string  `json:"off,omitempty"`
	Preset  string   `json:"preset,omitempty"`
	Choices []string `json:"choices,omitempty"`

	zoned bool // only a lab with zones has it (pageSetting.zoned)
}

// Controls are the page's settings in force, in pageSettings' order.
type Controls []Control

// pageSetting is one line of pageSettings: the page's choices for a
// setting (the rest comes from the settings table).
type pageSetting struct {
	path, key, label, group string
	drill                   labfile.Action
	unit                    string
	off                     *string
	preset                  string
	choices                 []string
	zoned                   bool // shown only in a lab with zones (the setting needs them)
}

func off(v string) *string { return &v }

// pageSettings are the settings the page's controls edit, in the order it
// shows them: the drills' rate and algorithm, then set's paths.
var pageSettings = []pageSetting{
	{path: "clients.rate", key: "rate", label: "rate", group: "Traffic", drill: labfile.ActionRate, unit: "/s"},
	{path: "balancers.algorithm", key: "algorithm", label: "algorithm", group: "Traffic", drill: labfile.ActionAlgorithm},
	{path: "clients.retries", key: "retries", label: "retries", group: "Clients", off: off("0"), choices: []string{"0", "1", "2", "3", "5"}},
	{path: "clients.budget", key: "budget", label: "retry budget", group: "Clients", off: off("0"), preset: "0.1"},
	{path: "clients.hedge", key: "hedge", label: "hedging", group: "Clients", off: off(""), preset: "p95"},
	{path: "balancers.timeout", key: "timeout_ms", label: "timeout", group: "Balancer", off: off("0s"), preset: "100ms"},
	{path: "balancers.breaker.enabled", key: "breaker", label: "circuit breakers", group: "Balancer"},
	{path: "balancers.locality.policy", key: "locality", label: "locality", group: "Balancer", zoned: true},
	{path: "servers.queue.capacity", key: "queue_capacity", label: "queue capacity", group: "Server queues", off: off("0"), preset: "20"},
	{path: "servers.queue.discipline", key: "discipline", label: "queue", group: "Server queues"},
	{path: "servers.drop_expired", key: "drop_expired", label: "drop expired", group: "Server queues"},
	{path: "servers.limiter.kind", key: "limiter", label: "limiter", group: "Server queues", off: off("")},
}

// controlTable is pageSettings with what the settings table says of each
// (controlsOf), read once.
var controlTable = sync.OnceValue(func() Controls { return controlsOf(pageSettings) })

// controlsOf are the lines of ps with what the settings table says of each:
// its kind and words (the value left empty). That is the same for every
// lab, so it is read from the default lab's checks.
func controlsOf(ps []pageSetting) Controls {
	types := map[string]reflect.Type{}
	for _, l := range labfile.Leaves("") {
		types[l.Path] = l.Type
	}
	allowed := labfile.Default().AllowedAt()
	out := make(Controls, 0, len(ps))
	for _, p := range ps {
		t, ok := types[p.path]
		if !ok {
			panic("dash: pageSettings names " + p.path + ", which is no setting of the lab file")
		}
		c := Control{Path: p.path, Key: p.key, Label: p.label, Group: p.group, Drill: string(p.drill), Unit: p.unit,
			Kind: kindOf(t), Off: p.off, Preset: p.preset, Choices: p.choices, zoned: p.zoned}
		if w := allowed[p.path].Words; len(w) > 0 && c.Kind == "text" {
			c.Kind, c.Words = "word", w
		}
		out = append(out, c)
	}
	return out
}

var durationType = reflect.TypeOf(time.Duration(0))

// kindOf is a leaf type as a control's kind.
func kindOf(t reflect.Type) string {
	switch {
	case t == durationType:
		return "duration"
	case t.Kind() == reflect.Bool:
		return "bool"
	case t.Kind() == reflect.Float64:
		return "number"
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Uint64:
		return "int"
	}
	return "text"
}

// controlsNow are the page's settings with their values in force: the
// processes' where they report them (the loadgen's rate in open loop, the
// first lb's algorithm and settings, the first backend's queue and
// limiter), else the lab copy's (the client policy, which the loadgen does
// not report).
func controlsNow(lab *labfile.Lab, cur *Reading) Controls {
	var out Controls
	for _, c := range controlTable() {
		if !c.zoned || lab.Zoned() {
			out = append(out, c)
		}
	}
	lb := firstLB(cur)
	var backend func(path string) (string, bool)
	for _, sr := range cur.Servers {
		if sr.State != nil {
			backend = backendReports(sr.State)
			break
		}
	}
	for i := range out {
		c := &out[i]
		c.Value = labValue(lab, c.Path)
		switch rest, ok := strings.CutPrefix(c.Path, "balancers."); {
		case c.Path == "clients.rate":
			if cur.Loadgen != nil && cur.Loadgen.Mode == "open" {
				c.Value = strconv.FormatFloat(cur.Loadgen.Rate, 'g', -1, 64)
			}
		case c.Path == "balancers.algorithm":
			if lab.Clients.Algorithm != "" { // the clients balance themselves: the algorithm drill sets theirs
				c.Value = lab.Clients.Algorithm
			}
			if lb != nil {
				c.Value = lb.Algorithm
			}
		case ok && lb != nil:
			if v, ok := lb.Settings.Value(rest); ok {
				c.Value = apiText(v)
			}
		case backend != nil && strings.HasPrefix(c.Path, "servers."):
			if v, ok := backend(c.Path); ok {
				c.Value = v
			}
		}
	}
	return out
}

// labValue is the value at path in lab, as set takes it; a server setting
// is the first group's.
func labValue(lab *labfile.Lab, path string) string {
	if rest, ok := strings.CutPrefix(path, "servers."); ok {
		if len(lab.Servers) == 0 {
			return ""
		}
		path = "servers[0]." + rest
	}
	v, err := lab.Get(path)
	if err != nil {
		return ""
	}
	return v
}

// apiText is a value of the lb's settings API as set takes it.
func apiText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}

// backendReports reads a server setting from a backend's GET /admin/state
// where it reports one (its queue and limiter).
func backendReports(b *state.Backend) func(path string) (string, bool) {
	return func(path string) (string, bool) {
		switch path {
		case "servers.queue.capacity":
			return strconv.Itoa(b.Queue.Capacity), true
		case "servers.queue.discipline":
			return b.Queue.Discipline, true
		case "servers.drop_expired":
			return strconv.FormatBool(b.Queue.DropExpired), true
		case "servers.limiter.kind":
			if b.Limiter.Kind == "none" {
				return "", true
			}
			return b.Limiter.Kind, true
		}
		return "", false
	}
}

// Settings is the snapshot's settings object: each control's value by its
// key, durations in milliseconds, numbers and booleans as such, and
// client_side (the clients balance themselves). The page reads the
// controls; this is for the readers that read it before them.
type Settings map[string]any

// settingsOf is the settings object of controls in lab.
func settingsOf(lab *labfile.Lab, cs Controls) Settings {
	s := Settings{"client_side": lab.Clients.Algorithm != ""}
	for _, c := range cs {
		s[c.Key] = typed(c)
	}
	return s
}

// typed is c's value as its kind is in JSON (a duration in ms).
func typed(c Control) any {
	switch c.Kind {
	case "bool":
		return c.Value == "true"
	case "int", "number":
		f, err := strconv.ParseFloat(c.Value, 64)
		if err != nil {
			return null
		}
		return num(f)
	case "duration":
		d, err := time.ParseDuration(c.Value)
		if err != nil {
			return null
		}
		return num(ms(d))
	}
	return c.Value
}
