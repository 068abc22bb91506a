package proc

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"time"
)

// RestartPolicy says what lab up does when one of its backends or
// balancers exits without being asked to.
type RestartPolicy string

const (
	// RestartNever leaves a dead process dead: the lab shows it (the event
	// log, a red EXITED badge) and runs on without it, as the failure it
	// is. The default: a lab is there to show failures, and a crash
	// quietly mended would hide one.
	RestartNever RestartPolicy = "never"
	// RestartOnFailure starts it again, on the same ports, when it died by
	// a signal or with a non-zero status; it starts from the lab file, as
	// at the start (drills applied to it before are not replayed).
	RestartOnFailure RestartPolicy = "on-failure"
)

// ParseRestart reads --restart.
func ParseRestart(s string) (RestartPolicy, error) {
	switch p := RestartPolicy(s); p {
	case RestartNever, RestartOnFailure:
		return p, nil
	}
	return "", fmt.Errorf("--restart: must be never or on-failure, got %q", s)
}

// Restart pacing: a process that keeps dying is started again after 1 s,
// then 2 s, 4 s ... up to 30 s; after maxQuickDeaths deaths in a row, each
// within a minute of its start, lab gives up on it.
const (
	restartFirst   = time.Second
	restartMax     = 30 * time.Second
	settled        = time.Minute
	maxQuickDeaths = 5
)

// NextRestart paces the restarts of p, which has just died after deaths
// quick deaths before it: it returns the count with this one (a process
// that ran for a minute starts the count again), how long to wait before
// starting it again, and false when it died too often to be started again.
func (p *Proc) NextRestart(deaths int) (int, time.Duration, bool) {
	if time.Since(p.start) >= settled {
		deaths = 0
	}
	deaths++
	if deaths > maxQuickDeaths {
		return deaths, 0, false
	}
	return deaths, min(restartFirst<<(deaths-1), restartMax), true
}

// UnexpectedExit waits until p exits or ctx ends. When p exited and that
// is news (nobody stopped it and the run goes on), it marks p (ExitedHow,
// the dashboard's EXITED badge) and returns how it ended. A clean exit
// (status 0) may be the terminal's Ctrl-C reaching the children a moment
// before lab's own context ends, so that one is given a moment to be
// explained.
func (p *Proc) UnexpectedExit(ctx context.Context) (string, bool) {
	select {
	case <-p.done:
	case <-ctx.Done():
		return "", false
	}
	if p.stopping.Load() || ctx.Err() != nil {
		return "", false
	}
	if p.err == nil {
		select {
		case <-ctx.Done():
			return "", false
		case <-time.After(500 * time.Millisecond):
		}
	}
	if p.stopping.Load() || ctx.Err() != nil {
		return "", false
	}
	why := exitText(p.err)
	p.exited.Store(why)
	return why, true
}

// RestartArgs are p's arguments with the addresses it had bound in place
// of port 0, so a restarted process is where the others look for it.
func (p *Proc) RestartArgs() []string {
	args := append([]string(nil), p.args...)
	for i := 0; i+1 < len(args); i++ {
		switch args[i] {
		case "--addr":
			args[i+1] = p.Ready.Addr
		case "--admin":
			args[i+1] = p.Ready.Admin
		case "--agent":
			if p.Ready.Agent != "" {
				args[i+1] = p.Ready.Agent
			}
		}
	}
	return args
}

// exitText is how a process ended: "signal: killed", "exit status 1", or
// "exit status 0".
func exitText(err error) string {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return "exit status 0"
	case errors.As(err, &ee):
		return ee.String()
	}
	return err.Error()
}
