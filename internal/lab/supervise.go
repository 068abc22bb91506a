package lab

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/lblab/lblab/internal/lab/admin"
	"github.com/lblab/lblab/internal/lab/proc"
	"go.uber.org/zap"
)

// supervise follows p until it exits or the run ends. An exit nobody asked
// for is logged, added to the event log and marked on p (the dashboard's
// EXITED badge); with proc.RestartOnFailure a failed process is started
// again, paced by p.NextRestart.
func (r *liveRun) supervise(p *proc.Proc, deaths int) {
	if !p.Child() { // attached: not ours to watch
		return
	}
	go func() {
		why, ok := p.UnexpectedExit(r.ctx)
		if !ok {
			return
		}
		text := fmt.Sprintf("%s %s exited unexpectedly (%s)", p.Role, p.Name, why)
		r.f.opts.Log.Warn("a process exited unexpectedly", zap.String("role", p.Role), zap.String("name", p.Name),
			zap.String("exit", why), zap.String("log", lastLines(p.Log(), 5)))
		if !r.restartable(p) {
			r.sc.events.Add(time.Now(), text)
			return
		}
		deaths, wait, again := p.NextRestart(deaths)
		if !again {
			r.sc.events.Add(time.Now(), text+fmt.Sprintf("; it died %d times in a row soon after starting: not restarted again", deaths-1))
			return
		}
		r.sc.events.Add(time.Now(), text+fmt.Sprintf("; restarting it in %v (--restart on-failure)", wait))
		r.restart(p, deaths, wait)
	}()
}

// restartable: backends and balancers of lab up (or lab run, which lab
// torture --live runs with on-failure), under on-failure, that died by a
// signal or a non-zero status.
func (r *liveRun) restartable(p *proc.Proc) bool {
	return r.f.opts.Restart == proc.RestartOnFailure && r.mode != "attach" && p.Err() != nil &&
		(p.Role == "backend" || p.Role == "lb")
}

// restart starts p again after wait, on the addresses it had, and puts the
// new process in its place; a balancer is given the servers added since.
func (r *liveRun) restart(p *proc.Proc, deaths int, wait time.Duration) {
	select {
	case <-time.After(wait):
	case <-r.ctx.Done():
		return
	}
	np, err := proc.Start(r.ctx, r.f.opts.Launch, p.Role, p.Name, p.RestartArgs(), r.f.opts.Logs, r.f.opts.Log)
	if err == nil && !r.f.replace(p, np) {
		np.Stop() // the fleet stopped meanwhile
		return
	}
	if err != nil {
		if r.ctx.Err() == nil {
			r.sc.events.Add(time.Now(), fmt.Sprintf("restarting %s %s failed: %v", p.Role, p.Name, firstLine(err.Error())))
		}
		return
	}
	if p.Role == "backend" {
		if err := r.f.tellBalancers(r.ctx, np); err != nil {
			r.sc.events.Add(time.Now(), fmt.Sprintf("%s: %v", p.Name, err))
		}
	}
	if p.Role == "lb" {
		for _, b := range r.f.addedBackends() {
			body := map[string]string{"name": b.Name, "addr": b.Ready.Addr, "admin": b.Ready.Admin}
			if err := admin.Call(r.ctx, np.Ready.Admin, "POST", "/admin/backends", body, nil); err != nil {
				r.sc.events.Add(time.Now(), fmt.Sprintf("%s: adding %s after the restart failed: %v", p.Name, b.Name, err))
			}
		}
	}
	r.sc.events.Add(time.Now(), fmt.Sprintf("%s %s restarted (pid %d)", p.Role, p.Name, np.Ready.PID))
	r.supervise(np, deaths)
}

// replace puts np where p was in the fleet; false once the fleet stopped.
func (f *fleet) replace(p, np *proc.Proc) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stopped {
		return false
	}
	for _, list := range [][]*proc.Proc{f.backends, f.lbs} {
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
func (f *fleet) addedBackends() []*proc.Proc {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*proc.Proc(nil), f.backends[f.initial:]...)
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
