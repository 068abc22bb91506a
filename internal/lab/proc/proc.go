// Package proc is one child process of a live lab: starting it (Start for
// the lab's own processes, which print a readiness line; StartPlain for an
// outside program, ready when its port accepts), stopping or killing it,
// and noticing when it exits without being asked to (UnexpectedExit, with
// the restart policy's pacing). On Linux it runs in a process group of its
// own and dies with lab (Pdeathsig). What a lab's processes are and how
// they are wired is internal/lab's fleet.
package proc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"go.uber.org/zap"

	"github.com/lblab/lblab/internal/lab/admin"
	"github.com/lblab/lblab/internal/shell/wire"
)

// Launcher makes the command that runs one lab process. role is backend, lb
// or loadgen; the default re-executes the lab binary, whose hidden
// subcommands of those names run the same code as the stand-alone binaries.
type Launcher func(role string, args []string) *exec.Cmd

// SelfLauncher re-executes the running binary as `BINARY ROLE ARGS...`.
func SelfLauncher() (Launcher, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("cannot find the lab binary to start the processes: %w", err)
	}
	return func(role string, args []string) *exec.Cmd {
		return exec.Command(exe, append([]string{role}, args...)...)
	}, nil
}

// Proc is one running child, or (Attached) one someone else started.
type Proc struct {
	Name  string     // s1, lb1, loadgen, ...
	Role  string     // backend, lb, loadgen, or an external proxy's kind
	Ready wire.Ready // what it announced: its addresses and pid
	cmd   *exec.Cmd
	args  []string  // as started (RestartArgs fills in the bound ports)
	start time.Time // when it was started
	// stopping is set before lab stops the process, so its exit is not
	// news; exited is how it ended when nobody asked it to ("" = running).
	stopping atomic.Bool
	exited   atomic.Value
	out      strings.Builder // stdout after the readiness line (the loadgen's report)
	done     chan struct{}   // closed when the process has exited
	err      error           // its exit status
	tail     tailBuffer      // the end of its stderr, for error messages
	mu       sync.Mutex
}

// StartError is a process that exited before it was ready: its exit status
// (2 = bad input, such as a port in use) and the end of its log.
type StartError struct {
	Process string
	Err     error
	Log     string
}

func (e *StartError) Error() string {
	return fmt.Sprintf("%s exited before it was ready (%v):\n%s", e.Process, e.Err, strings.TrimSpace(e.Log))
}

// ExitCode is the process's exit status (-1 if unknown).
func (e *StartError) ExitCode() int {
	var ee *exec.ExitError
	if errors.As(e.Err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

// tailBuffer keeps the last 4 KiB written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - 4096; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// readyTimeout bounds how long a child may take to listen.
const readyTimeout = 15 * time.Second

// Start launches a child, waits for its readiness line and returns it. Its
// stderr (logs) goes to logs; it dies with lab (Pdeathsig on Linux), and
// it is given the admin token of ctx.
func Start(ctx context.Context, launch Launcher, role, name string, args []string, logs io.Writer, log *zap.Logger) (*Proc, error) {
	p := &Proc{Name: name, Role: role, cmd: launch(role, args), args: args, start: time.Now(), done: make(chan struct{})}
	p.cmd.Stderr = io.MultiWriter(logs, &p.tail)
	p.cmd.SysProcAttr = childAttrs()
	admin.PassToken(ctx, p.cmd)
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s %s: %w", role, name, err)
	}
	readyc := make(chan error, 1)
	go p.read(stdout, readyc)
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	select {
	case err := <-readyc:
		if err != nil {
			select { // stdout closed: the process is most likely exiting
			case <-p.done:
				return nil, &StartError{Process: role + " " + name, Err: p.err, Log: p.tail.String()}
			case <-time.After(2 * time.Second):
			}
			p.Stop()
			return nil, fmt.Errorf("%s %s: %w", role, name, err)
		}
	case <-p.done:
		return nil, &StartError{Process: role + " " + name, Err: p.err, Log: p.tail.String()}
	case <-time.After(readyTimeout):
		p.Stop()
		return nil, fmt.Errorf("%s %s was not ready within %v", role, name, readyTimeout)
	case <-ctx.Done():
		p.Stop()
		return nil, ctx.Err()
	}
	log.Debug("process ready", zap.String("role", role), zap.String("name", name),
		zap.String("addr", p.Ready.Addr), zap.String("admin", p.Ready.Admin), zap.Int("pid", p.Ready.PID))
	return p, nil
}

// read scans stdout for the readiness line, then keeps the rest.
func (p *Proc) read(r io.Reader, readyc chan<- error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 64*1024*1024)
	seen := false
	for sc.Scan() {
		line := sc.Text()
		if !seen {
			if rest, ok := strings.CutPrefix(line, wire.ReadyPrefix); ok {
				seen = true
				rd, err := wire.ScanReady(strings.NewReader(wire.ReadyPrefix + rest))
				p.Ready = rd
				readyc <- err
			}
			continue
		}
		p.mu.Lock()
		p.out.WriteString(line + "\n")
		p.mu.Unlock()
	}
	if !seen {
		readyc <- fmt.Errorf("no readiness line on stdout")
	}
}

// Output returns what the process printed after its readiness line.
func (p *Proc) Output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

// Stop asks the child to shut down gracefully (SIGTERM), and kills it if it
// is still there after 6 s (it drains in-flight requests within 5 s).
func (p *Proc) Stop() {
	p.stopping.Store(true)
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(6 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// Kill ends the child at once (SIGKILL) and waits for it.
func (p *Proc) Kill() {
	p.stopping.Store(true)
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Kill()
	<-p.done
}

// Wait waits for the child to exit on its own.
func (p *Proc) Wait(ctx context.Context) error {
	select {
	case <-p.done:
		return p.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ExitedHow is how the process ended when nobody asked it to ("" while it
// runs, or when lab stopped it).
func (p *Proc) ExitedHow() string {
	s, _ := p.exited.Load().(string)
	return s
}

// Done is closed when the process has exited; Err is then its exit status.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Err is how the process exited (nil: status 0), once Done is closed.
func (p *Proc) Err() error { return p.err }

// Log is the end of the process's stderr.
func (p *Proc) Log() string { return p.tail.String() }

// Signal sends sig to the process; once it has exited, it fails rather
// than reach another process that took its pid.
func (p *Proc) Signal(sig os.Signal) error { return p.cmd.Process.Signal(sig) }

// Process is the running process (nil for an attached one).
func (p *Proc) Process() *os.Process {
	if p.cmd == nil {
		return nil
	}
	return p.cmd.Process
}

// Attached is a process someone else started: only its admin address is
// known, and it is neither supervised nor stopped.
func Attached(role, name, admin string) *Proc {
	return &Proc{Name: name, Role: role, Ready: wire.Ready{Name: name, Admin: admin}}
}

// Child reports whether lab started the process (false: Attached).
func (p *Proc) Child() bool { return p.cmd != nil }
