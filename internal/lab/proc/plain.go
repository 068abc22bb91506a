package proc

import (
	"context"
	"fmt"
	"io"
	"net"
	"os/exec"
	"strings"
	"time"

	"go.uber.org/zap"
)

// StartPlain starts a program that prints no readiness line (an external
// proxy): it is ready when addr accepts a connection. Its stdout and
// stderr go to logs; it dies with lab (Pdeathsig on Linux).
func StartPlain(ctx context.Context, cmd *exec.Cmd, role, name, addr string, logs io.Writer, log *zap.Logger) (*Proc, error) {
	p := &Proc{Name: name, Role: role, cmd: cmd, args: cmd.Args[1:], start: time.Now(), done: make(chan struct{})}
	prefixed := &linePrefix{w: logs, prefix: role + ": "}
	p.cmd.Stderr = io.MultiWriter(prefixed, &p.tail)
	p.cmd.Stdout = p.cmd.Stderr
	p.cmd.SysProcAttr = childAttrs()
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", role, err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	deadline := time.After(readyTimeout)
	for {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			c.Close()
			break
		}
		select {
		case <-p.done:
			return nil, &StartError{Process: role, Err: p.err, Log: p.tail.String()}
		case <-deadline:
			p.Stop()
			return nil, fmt.Errorf("%s was not listening on %s within %v:\n%s", role, addr, readyTimeout, strings.TrimSpace(p.tail.String()))
		case <-ctx.Done():
			p.Stop()
			return nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	p.Ready.Addr, p.Ready.PID = addr, p.cmd.Process.Pid
	log.Debug("process ready", zap.String("role", role), zap.String("addr", addr), zap.Int("pid", p.Ready.PID))
	return p, nil
}

// linePrefix writes each line with a prefix (a proxy's log lines say whose
// they are in the lab's process log).
type linePrefix struct {
	w      io.Writer
	prefix string
	mid    bool
}

func (l *linePrefix) Write(b []byte) (int, error) {
	var out []byte
	for _, c := range b {
		if !l.mid {
			out = append(out, l.prefix...)
			l.mid = true
		}
		out = append(out, c)
		if c == '\n' {
			l.mid = false
		}
	}
	if _, err := l.w.Write(out); err != nil {
		return 0, err
	}
	return len(b), nil
}
