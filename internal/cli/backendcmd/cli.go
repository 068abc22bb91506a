// Package backendcmd is the command line of the backend process (cmd/backend,
// and `lab backend`, which lab run uses to start its servers): one live
// emulated server of a lab that serves requests on a data port and takes
// chaos and settings on an admin port (see docs/admin-api-backend.md).
package backendcmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/lblab/lblab/internal/cli/adminflags"
	"github.com/lblab/lblab/internal/cli/usage"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/labfile/labyaml"
	_ "github.com/lblab/lblab/internal/proxies" // balancers.kind: the lab file lab writes for its processes may name a proxy
	"github.com/lblab/lblab/internal/shell/backend"
	"github.com/lblab/lblab/internal/shell/conns"
	"github.com/lblab/lblab/internal/shell/wire"
)

// drainTime is how long in-flight requests may finish after SIGTERM.
const drainTime = 5 * time.Second

// Main is the whole program; it returns the exit status: 0, or 2 on a bad
// flag, lab file or server name, or a port that cannot be bound.
func Main(args []string, stdout, stderr io.Writer) int {
	cfg, check, debug, lameDuck, code := parse(args, stdout, stderr)
	if code >= 0 {
		return code
	}
	if err := backend.Check(cfg); err != nil {
		fmt.Fprintf(stderr, "backend: %v\n", err)
		return 2
	}
	if check {
		if cfg.Server != "" && cfg.Server != cfg.Name {
			fmt.Fprintf(stdout, "backend: server %s (as lab server %s) ok\n", cfg.Name, cfg.Server)
		} else {
			fmt.Fprintf(stdout, "backend: server %s ok\n", cfg.Name)
		}
		return 0
	}
	cfg.Log = wire.Logger("backend", debug)
	defer func() { _ = cfg.Log.Sync() }()
	return serve(cfg, lameDuck, stdout, stderr)
}

// options are the parsed flags.
type options struct {
	fs           *usage.Set
	cfg          backend.Config
	lab          string
	tlsCert      string
	tlsKey       string
	hop          time.Duration
	lameDuck     time.Duration
	check, debug bool
	access       *adminflags.Flags
}

func newOptions(stdout, stderr io.Writer) *options {
	o := &options{fs: usage.New("backend", stdout, stderr)}
	fs := o.fs
	fs.StringVar(&o.lab, "lab", "", "lab file (YAML); default: the built-in playground lab")
	fs.StringVar(&o.cfg.Name, "name", "s1", "which server of the lab to emulate (s1, s2, ... or a group's name), and this server's name;\n"+
		"with --server, only its name (default then: the host name)")
	fs.StringVar(&o.cfg.Server, "server", "", "the lab server whose settings to emulate under another name: replicas of one\n"+
		"service (compose --scale, a StatefulSet) each run --server s1 and take their host name")
	fs.StringVar(&o.cfg.Addr, "addr", "127.0.0.1:0", "data listener address (requests and GET /healthz)")
	fs.StringVar(&o.cfg.Admin, "admin", "127.0.0.1:0", "admin API listener address")
	fs.Uint64Var(&o.cfg.Seed, "seed", 0, "random seed for drawn work and error shares (default: the lab's seed)")
	fs.DurationVar(&o.hop, "hop", 0, "one-way delay added before each answer (default: the lab's network.hop)")
	fs.StringVar(&o.tlsCert, "tls-cert", "", "with network.tls: the certificate file (PEM) the data listener serves\n(lab run passes the one it makes at start)")
	fs.StringVar(&o.tlsKey, "tls-key", "", "with network.tls: the certificate's private key file (PEM)")
	fs.BoolVar(&o.check, "check-config", false, "validate the lab file and server name, then exit (0 ok, 2 not)")
	fs.BoolVar(&o.cfg.CancelOnClose, "cancel-on-close", false, "cancel a queued request when its client closes the connection\n"+
		"(off: the model keeps serving attempts a balancer timed out)")
	fs.StringVar(&o.cfg.Agent, "agent", "", "answer HAProxy's agent check on this TCP address (e.g. 127.0.0.1:0): on each connection one\n"+
		"line, the weight the server gives itself from its load report (docs/admin-api-backend.md)")
	fs.Float64Var(&o.cfg.AgentScale, "agent-scale", 0, "with --agent: the capacity, in requests/s at full utilization, answered as 100%\n"+
		"(lab run passes the fleet's mean; default: this server's own nominal capacity)")
	fs.BoolVar(&o.debug, "debug", false, "debug logging")
	o.access = adminflags.Add(fs.FlagSet, true)
	fs.DurationVar(&o.lameDuck, "lame-duck", 0, "on SIGTERM, first serve this long with GET /healthz answering 503, so balancers'\n"+
		"health checks take it out before it stops (scale-down, rolling updates); then drain")
	fs.Head = helpHead()
	return o
}

// helpHead is what --help prints above the flags: how to call the
// backend, the built-in lab's server it emulates, examples.
func helpHead() string {
	d := labfile.Default()
	s := d.ExpandServers()[0]
	queue := fmt.Sprintf("an unbounded %s queue", s.Queue.Discipline)
	if s.Queue.Capacity > 0 {
		queue = fmt.Sprintf("a %s queue of %d", s.Queue.Discipline, s.Queue.Capacity)
	}
	work := d.Clients.Work
	if s.Work != nil {
		work = *s.Work
	}
	return fmt.Sprintf(`usage: backend [flags]

One emulated server of a lab, on the wall clock (docs/admin-api-backend.md). Prints
%s{json} on stdout once it listens; SIGTERM drains for %v. Without --lab it emulates
the built-in lab's %s: %d worker(s), %s, speed %g, each request's work from its
X-Lab-Work header (else drawn: %s, mean %v), a hop of %v before each answer; --addr
and --admin default to free ports.

examples:
  backend --addr 127.0.0.1:8001 --admin 127.0.0.1:9001
  backend --lab my-lab.yaml --name s2 --addr 127.0.0.1:8002 --admin 127.0.0.1:9002
  backend --server s1 --addr 0.0.0.0:9001 --admin 0.0.0.0:9100 --token TOKEN   (a replica, named by its host)
  curl -i 'http://127.0.0.1:8001/?status=503:10'                                (a caller's own fault)`,
		wire.ReadyPrefix, drainTime, s.Name, s.Workers, queue, s.Speed, work.Kind, work.Mean, d.Network.Hop)
}

// parse reads the flags and the lab file. code is the exit status when the
// program should end now (help, a bad flag or lab), else -1.
func parse(args []string, stdout, stderr io.Writer) (cfg backend.Config, check, debug bool, lameDuck time.Duration, code int) {
	o := newOptions(stdout, stderr)
	extra, err := o.fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp), errors.Is(err, usage.ErrVersion):
		return o.cfg, false, false, 0, 0
	case err != nil:
		fmt.Fprintf(stderr, "backend: %v\n", err)
		return o.cfg, false, false, 0, 2
	}
	o.cfg.Hop, o.cfg.Jitter = -1, -1 // the lab's network
	switch {
	case len(extra) > 0:
		err = fmt.Errorf("unexpected argument %q (see --help)", extra[0])
	case o.fs.Given("hop") && !labfile.Bounds.Network.In(o.hop):
		err = fmt.Errorf("--hop %v: must be %s", o.hop, labfile.Bounds.Network)
	case o.lameDuck < 0 || o.lameDuck > time.Minute:
		err = fmt.Errorf("--lame-duck %v: must be in [0, 1m]", o.lameDuck)
	case o.fs.Given("agent-scale") && o.cfg.Agent == "":
		err = fmt.Errorf("--agent-scale %g: only with --agent (the agent check's address)", o.cfg.AgentScale)
	case !(o.cfg.AgentScale >= 0) || math.IsInf(o.cfg.AgentScale, 0):
		err = fmt.Errorf("--agent-scale %g: must be a rate in requests/s over 0 (0 = the server's own nominal capacity)", o.cfg.AgentScale)
	case o.fs.Given("hop"):
		o.cfg.Hop = o.hop
	}
	if err == nil && o.cfg.Server != "" && !o.fs.Given("name") {
		o.cfg.Name, err = hostName()
	}
	if err == nil {
		o.cfg.Access, err = o.access.Access(o.cfg.Admin)
		o.cfg.MaxConns = o.access.MaxConns()
	}
	if err == nil {
		o.cfg.Lab, err = loadLab(o.lab)
	}
	if err == nil && (o.tlsCert != "" || o.tlsKey != "") {
		if o.cfg.TLS, err = conns.ServerTLS(o.tlsCert, o.tlsKey); err != nil {
			err = fmt.Errorf("--tls-cert, --tls-key: %w", err)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "backend: %v\n", err)
		return o.cfg, false, false, 0, 2
	}
	return o.cfg, o.check, o.debug, o.lameDuck, -1
}

// loadLab reads the lab file, or returns the playground lab for "".
func loadLab(path string) (*labfile.Lab, error) {
	if path == "" {
		return labfile.Default(), nil
	}
	return labyaml.Load(path)
}

// serve runs the backend until SIGTERM or SIGINT; then it leaves for
// lameDuck (a second signal ends that at once) and drains.
func serve(cfg backend.Config, lameDuck time.Duration, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	b, err := backend.New(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "backend: %v\n", err)
		return 2
	}
	if err := b.Start(); err != nil {
		fmt.Fprintf(stderr, "backend: %v\n", err)
		return 2
	}
	if err := wire.PrintReady(stdout, b.Ready(os.Getpid())); err != nil {
		fmt.Fprintf(stderr, "backend: %v\n", err)
	}
	<-ctx.Done()
	stop() // a second signal has its default effect
	if lameDuck > 0 {
		b.Leave()
		time.Sleep(lameDuck)
	}
	drain, cancel := context.WithTimeout(context.Background(), drainTime)
	defer cancel()
	if err := b.Shutdown(drain); err != nil {
		fmt.Fprintf(stderr, "backend: shutdown: %v\n", err)
		return 1
	}
	return 0
}

// hostName is the host's name as a server name: its first label (a
// Kubernetes pod's name, a container's id).
func hostName() (string, error) {
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "", fmt.Errorf("--server without --name: the host name is unknown (%v); give --name", err)
	}
	h, _, _ = strings.Cut(h, ".")
	return h, nil
}
