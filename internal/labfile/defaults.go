package labfile

import "strconv"

// Default returns the playground lab: five servers behind one p2c balancer,
// an open-loop client at 200 requests/s, no script, every other knob at its
// default.
func Default() *Lab {
	l := &Lab{
		Name:        "playground",
		Description: "five servers behind one p2c balancer at 200 req/s; no script",
		Narration:   "Turn the knobs and watch latency, queues and each server's share.",
		Clients:     Clients{Rate: 200},
	}
	applyDefaults(l, nil)
	return l
}

// defaulter fills a field with its default when the field is zero and the
// file did not set it: an explicit 0 (zipf: 0, hop: 0) is kept as written.
// present is nil for labs not read from a file; then zero means absent.
type defaulter struct{ present func(path string) bool }

func (d defaulter) absent(path string) bool { return d.present == nil || !d.present(path) }

func def[T comparable](d defaulter, p *T, path string, v T) {
	var zero T
	if *p == zero && d.absent(path) {
		*p = v
	}
}

// applyDefaults fills every defaulted field left out, walking the lab's
// table (labKnobs, knobs.go), then names the servers add-server events
// leave unnamed.
func applyDefaults(l *Lab, present func(path string) bool) {
	d := defaulter{present}
	for _, k := range labKnobs(l) {
		k.fill(d)
	}
	defaultEvents(l)
}

// defaultEvents names the servers that add-server events leave unnamed:
// s<N+k> for the k-th server added, N being the servers in the file.
func defaultEvents(l *Lab) {
	n := totalServers(l.Servers)
	added := 0
	for i := range l.Events {
		e := &l.Events[i]
		if e.Action != "add-server" {
			continue
		}
		added++
		if e.Target == "" && n >= 0 {
			e.Target = "s" + strconv.Itoa(n+added)
		}
	}
}

// totalServers sums the group counts; -1 if a count is negative or the sum
// exceeds maxServers (the lab is invalid then).
func totalServers(groups []ServerGroup) int {
	total := 0
	for _, g := range groups {
		if g.Count < 0 || g.Count > maxServers {
			return -1
		}
		total += g.Count
		if total > maxServers {
			return -1
		}
	}
	return total
}
