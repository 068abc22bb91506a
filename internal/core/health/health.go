// Package health is the verdict of active health checks: a server leaves
// rotation after Fails failed checks in a row and comes back after Passes
// passed checks in a row (hysteresis, so one lost probe does not flap it).
// Every server starts healthy. The simulator and the live lb feed it the
// checks they make (an emulated server's state, or GET /healthz) and act on
// the changes it reports.
//
// Not safe for concurrent use; the driver serializes calls.
package health

import (
	"fmt"
	"strings"
)

// Config is the hysteresis.
type Config struct {
	Fails  int // failed checks in a row that take a healthy server out, >= 1
	Passes int // passed checks in a row that bring an ejected one back, >= 1
}

// Validate names the first field out of range.
func (c Config) Validate() error {
	switch {
	case c.Fails < 1:
		return fmt.Errorf("fails = %d, must be >= 1", c.Fails)
	case c.Passes < 1:
		return fmt.Errorf("passes = %d, must be >= 1", c.Passes)
	}
	return nil
}

// Checker holds each server's run of results and its verdict, by index.
type Checker struct {
	cfg     Config
	servers []state
}

type state struct {
	fails, passes int
	ejected       bool
}

// New returns a checker with every server healthy.
func New(cfg Config) (*Checker, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Checker{cfg: cfg}, nil
}

func (c *Checker) at(i int) *state {
	for len(c.servers) <= i {
		c.servers = append(c.servers, state{})
	}
	return &c.servers[i]
}

// Observe records one check of server i and reports whether its verdict
// changed (Healthy(i) tells which way).
func (c *Checker) Observe(i int, ok bool) (changed bool) {
	s := c.at(i)
	if ok {
		s.fails, s.passes = 0, s.passes+1
	} else {
		s.fails, s.passes = s.fails+1, 0
	}
	switch {
	case !s.ejected && s.fails >= c.cfg.Fails:
		s.ejected = true
	case s.ejected && s.passes >= c.cfg.Passes:
		s.ejected = false
	default:
		return false
	}
	return true
}

// Healthy reports server i's verdict.
func (c *Checker) Healthy(i int) bool { return i >= len(c.servers) || !c.servers[i].ejected }

// Run is the length of server i's current run of failed (fails) or passed
// (passes) checks.
func (c *Checker) Run(i int) (fails, passes int) {
	if i >= len(c.servers) {
		return 0, 0
	}
	return c.servers[i].fails, c.servers[i].passes
}

// Describe is the event-log line of server i's verdict as it just changed
// (Observe said so), for server name: "health s3: down after 2 failed
// checks" or "health s3: up after 2 passed checks". Both clocks write it.
func (c *Checker) Describe(i int, name string) string {
	fails, passes := c.Run(i)
	if c.Healthy(i) {
		return fmt.Sprintf("health %s: up after %d passed checks", name, passes)
	}
	return fmt.Sprintf("health %s: down after %d failed checks", name, fails)
}

// IsDown reports whether an event-log line is Describe's of a server
// taken out of rotation (the live lb's lines may start with its name:
// "lb1: health s3: down ...").
func IsDown(line string) bool {
	if i := strings.Index(line, "health "); i >= 0 {
		_, rest, ok := strings.Cut(line[i:], ": ")
		return ok && strings.HasPrefix(rest, "down after ")
	}
	return false
}

// DescribeOff is the event-log line of server name put back in rotation
// because the checks were turned off.
func DescribeOff(name string) string { return "health " + name + ": up (health checks off)" }

// SetConfig changes the hysteresis; runs and verdicts are kept.
func (c *Checker) SetConfig(cfg Config) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	c.cfg = cfg
	return nil
}

// Reset forgets server i's run and puts it back in rotation (a server that
// was removed and comes back, or checks turned off).
func (c *Checker) Reset(i int) {
	if i < len(c.servers) {
		c.servers[i] = state{}
	}
}
