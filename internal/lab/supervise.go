package lab

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/lblab/lblab/internal/lab/admin"
	"go.uber.org/zap"
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

// supervise follows p until it exits or the run ends. An exit nobody asked
// for is logged, added to the event log and marked on p (the dashboard's
// EXITED badge); with RestartOnFailure a failed process is started again.
func (r *liveRun) supervise(p *proc, deaths int) {
	if p.cmd == nil { // attached: not ours to watch
		return
	}
	go func() {
		select {
		case <-p.done:
		case <-r.ctx.Done():
			return
		}
		if !r.unexpected(p) {
			return
		}
		why := exitText(p.err)
		p.exited.Store(why)
		text := fmt.Sprintf("%s %s exited unexpectedly (%s)", p.role, p.name, why)
		r.f.opts.Log.Warn("a process exited unexpectedly", zap.String("role", p.role), zap.String("name", p.name),
			zap.String("exit", why), zap.String("log", lastLines(p.tail.String(), 5)))
		if !r.restartable(p) {
			r.sc.events.add(time.Now(), text)
			return
		}
		if time.Since(p.start) >= settled {
			deaths = 0
		}
		deaths++
		if deaths > maxQuickDeaths {
			r.sc.events.add(time.Now(), text+fmt.Sprintf("; it died %d times in a row soon after starting: not restarted again", deaths-1))
			return
		}
		wait := min(restartFirst<<(deaths-1), restartMax)
		r.sc.events.add(time.Now(), text+fmt.Sprintf("; restarting it in %v (--restart on-failure)", wait))
		r.restart(p, deaths, wait)
	}()
}

// unexpected reports whether p's exit is news: nobody stopped it and the
// run goes on. A clean exit (status 0) may be the terminal's Ctrl-C
// reaching the children a moment before lab's own context ends, so that
// one is given a moment to be explained.
func (r *liveRun) unexpected(p *proc) bool {
	if p.stopping.Load() || r.ctx.Err() != nil {
		return false
	}
	if p.err == nil {
		select {
		case <-r.ctx.Done():
			return false
		case <-time.After(500 * time.Millisecond):
		}
	}
	return !p.stopping.Load() && r.ctx.Err() == nil
}

// restartable: backends and balancers of lab up (or lab run, which lab
// torture --live runs with on-failure), under on-failure, that died by a
// signal or a non-zero status.
func (r *liveRun) restartable(p *proc) bool {
	return r.f.opts.Restart == RestartOnFailure && r.mode != "attach" && p.err != nil &&
		(p.role == "backend" || p.role == "lb")
}

// restart starts p again after wait, on the addresses it had, and puts the
// new process in its place; a balancer is given the servers added since.
func (r *liveRun) restart(p *proc, deaths int, wait time.Duration) {
	select {
	case <-time.After(wait):
	case <-r.ctx.Done():
		return
	}
	np, err := start(r.ctx, r.f.opts.Launch, p.role, p.name, p.restartArgs(), r.f.opts.Logs, r.f.opts.Log)
	if err == nil && !r.f.replace(p, np) {
		np.stop() // the fleet stopped meanwhile
		return
	}
	if err != nil {
		if r.ctx.Err() == nil {
			r.sc.events.add(time.Now(), fmt.Sprintf("restarting %s %s failed: %v", p.role, p.name, firstLine(err.Error())))
		}
		return
	}
	if p.role == "lb" {
		for _, b := range r.f.addedBackends() {
			body := map[string]string{"name": b.name, "addr": b.ready.Addr, "admin": b.ready.Admin}
			if err := admin.Call(r.ctx, np.ready.Admin, "POST", "/admin/backends", body, nil); err != nil {
				r.sc.events.add(time.Now(), fmt.Sprintf("%s: adding %s after the restart failed: %v", p.name, b.name, err))
			}
		}
	}
	r.sc.events.add(time.Now(), fmt.Sprintf("%s %s restarted (pid %d)", p.role, p.name, np.ready.PID))
	r.supervise(np, deaths)
}

// restartArgs are p's arguments with the addresses it had bound in place
// of port 0, so a restarted process is where the others look for it.
func (p *proc) restartArgs() []string {
	args := append([]string(nil), p.args...)
	for i := 0; i+1 < len(args); i++ {
		switch args[i] {
		case "--addr":
			args[i+1] = p.ready.Addr
		case "--admin":
			args[i+1] = p.ready.Admin
		}
	}
	return args
}

// replace puts np where p was in the fleet; false once the fleet stopped.
func (f *fleet) replace(p, np *proc) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stopped {
		return false
	}
	for _, list := range [][]*proc{f.backends, f.lbs} {
		for i := range list {
			if list[i] == p {
				list[i] = np
				return true
			}
		}
	}
	return false
}

// addedBackends are the servers started after the balancers (add-server).
func (f *fleet) addedBackends() []*proc {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*proc(nil), f.backends[f.initial:]...)
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

// lastLines are the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// ctxAlive is a context for calls made after the run's own has ended
// (reading the counters of a run that just finished): it keeps ctx's
// values (the token) without its end.
func ctxAlive(ctx context.Context) context.Context { return context.WithoutCancel(ctx) }
