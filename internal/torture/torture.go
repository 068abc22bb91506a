package torture

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/lblab/lblab/internal/assert"
	"github.com/lblab/lblab/internal/core/health"
)

// Config is one torture run: labs drawn from seeds First, First+1, ...
type Config struct {
	First   uint64 // the first seed
	Runs    int    // how many labs
	Workers int    // labs run in parallel (each simulation is single-threaded)
	// Shrink is the number of failures shrunk (the first ones by seed) and
	// ShrinkRuns the simulator runs each shrink may spend.
	Shrink, ShrinkRuns int
	Dir                string // where shrunk lab files are written
	Verbose            bool   // print every lab's seed, requests and features
	// Step, when set, is called after each lab has run (from the workers,
	// concurrently): lab torture's progress line.
	Step func()
}

// Failure is a lab that found a bug, with its shrunk form when shrunk.
type Failure struct {
	Drawn   Drawn
	Outcome Outcome
	Shrunk  Map    // nil when not shrunk
	Runs    int    // simulator runs the shrink took
	File    string // the shrunk lab's file, "" when not written
}

// Summary is what a torture run found and covered.
type Summary struct {
	Labs     int
	Requests uint64
	Events   uint64
	Failures []Failure
	Features map[string]int // labs each swarm feature was on in
	Actions  map[string]int // chaos actions applied, from the event logs
	Ejected  int            // health checks that took a server out of rotation
	Opened   int            // breakers that opened
	Elapsed  time.Duration
}

// Run draws cfg.Runs labs, runs each with every invariant checked on
// cfg.Workers goroutines, shrinks the first failures and returns what it
// found. Labs run in any order; the summary holds sums and the failures in
// seed order, so it is the same whatever the number of workers.
func Run(cfg Config) *Summary {
	assert.On = true // the cores' invariants: a broken one panics, and Check reports the seed
	start := time.Now()
	cfg.Workers = max(cfg.Workers, 1)
	s := &Summary{Labs: cfg.Runs, Features: map[string]int{}, Actions: map[string]int{}}
	var next int
	var mu sync.Mutex // guards next and s
	var wg sync.WaitGroup
	for range cfg.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= cfg.Runs {
					return
				}
				d := Draw(cfg.First + uint64(i))
				o := Check(labName(d.Seed), d.Tree, d.Seed%deepEvery == 0)
				mu.Lock()
				s.add(d, o)
				mu.Unlock()
				if cfg.Step != nil {
					cfg.Step()
				}
			}
		}()
	}
	wg.Wait()
	slices.SortFunc(s.Failures, func(a, b Failure) int { return cmp.Compare(a.Drawn.Seed, b.Drawn.Seed) })
	for i := range s.Failures {
		if i >= cfg.Shrink {
			break
		}
		f := &s.Failures[i]
		f.Shrunk, f.Runs = Shrink(labName(f.Drawn.Seed), f.Drawn.Tree, f.Outcome.Signature(), cfg.ShrinkRuns)
		if cfg.Dir != "" {
			f.File = filepath.Join(cfg.Dir, labName(f.Drawn.Seed)+".yaml")
			if err := os.WriteFile(f.File, f.Shrunk.YAML(), 0o644); err != nil {
				f.File = ""
			}
		}
	}
	s.Elapsed = time.Since(start)
	return s
}

// deepEvery: one lab in deepEvery (by seed) is also run twice and
// round-tripped through labyaml.Marshal (Check's deep checks).
const deepEvery = 8

func labName(seed uint64) string { return fmt.Sprintf("torture-%d", seed) }

// add counts one lab's run; only a failing lab is kept.
func (s *Summary) add(d Drawn, o Outcome) {
	s.Requests += o.Requests
	s.Events += o.Events
	for _, f := range d.Features {
		s.Features[f]++
	}
	for _, l := range o.Log {
		s.count(l)
	}
	if o.Failed() {
		s.Failures = append(s.Failures, Failure{Drawn: d, Outcome: o})
	}
}

// kind names what a log line counts as: a chaos action, a health
// ejection, a breaker opening; "" for the rest.
func kind(line string) string {
	switch {
	case health.IsDown(line):
		return "ejected"
	case strings.HasPrefix(line, "breaker ") && strings.HasSuffix(line, "-> open"):
		return "opened"
	case strings.HasPrefix(line, "event "):
		return ""
	}
	word, _, _ := strings.Cut(line, " ")
	for _, k := range chaosKinds {
		if word == string(k) {
			return word
		}
	}
	return ""
}

func (s *Summary) count(line string) {
	switch k := kind(line); k {
	case "ejected":
		s.Ejected++
	case "opened":
		s.Opened++
	case "":
	default:
		s.Actions[k]++
	}
}

// Write prints the summary: the counts line first, then the coverage, then
// each failure with the command that reproduces it and its shrunk lab.
func (s *Summary) Write(w io.Writer, cfg Config) {
	fmt.Fprintf(w, "torture: %d labs, %.1f M requests, %d failures in %.0f s (seeds %d..%d, %d workers)\n",
		s.Labs, float64(s.Requests)/1e6, len(s.Failures), s.Elapsed.Seconds(), cfg.First, cfg.First+uint64(cfg.Runs)-1, cfg.Workers)
	fmt.Fprintf(w, "  chaos applied: %s; health ejections %d, breakers opened %d; %.1f M events\n",
		counts(s.Actions, nil), s.Ejected, s.Opened, float64(s.Events)/1e6)
	fmt.Fprintf(w, "  labs with each feature: %s\n", counts(s.Features, func(k string) bool {
		for _, a := range chaosKinds {
			if k == string(a) {
				return false // chaos kinds are counted as applied above
			}
		}
		return true
	}))
	for _, f := range s.Failures {
		seed := f.Drawn.Seed
		fmt.Fprintf(w, "\nFAIL seed %d: %s\n  %s\n", seed, f.Outcome.Verdict, indent(f.Outcome.Detail))
		fmt.Fprintf(w, "  reproduce: lab torture --seed %d --runs 1\n", seed)
		if f.Shrunk == nil {
			continue
		}
		fmt.Fprintf(w, "  shrunk in %d runs to %s (from %s)", f.Runs, size(f.Shrunk), size(f.Drawn.Tree))
		if f.File != "" {
			fmt.Fprintf(w, ": lab sim %s --check", f.File)
		}
		fmt.Fprintf(w, "\n---\n%s---\n", f.Shrunk.YAML())
	}
}

func indent(s string) string {
	s = strings.TrimRight(s, "\n")
	if lines := strings.Split(s, "\n"); len(lines) > 12 {
		s = strings.Join(lines[:12], "\n") + "\n..."
	}
	return strings.ReplaceAll(s, "\n", "\n  ")
}

// counts is "a 3, b 2" in descending order of count, then by name.
func counts(m map[string]int, keep func(string) bool) string {
	keys := slices.Collect(maps.Keys(m))
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	var parts []string
	for _, k := range keys {
		if keep == nil || keep(k) {
			parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// size describes a lab's script, fleet and duration.
func size(tree Map) string {
	events, _ := tree.Get("events").(List)
	servers := 0
	groups, _ := tree.Get("servers").(List)
	for _, g := range groups {
		n, ok := g.(Map).Get("count").(int)
		if !ok {
			n = 1
		}
		servers += n
	}
	d, _ := tree.Get("duration").(time.Duration)
	return fmt.Sprintf("%d events, %d servers, %v", len(events), servers, d)
}
