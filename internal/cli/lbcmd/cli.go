// Package lbcmd is the command line of the lb process (cmd/lb, and `lab lb`,
// which lab run uses): lblab's live balancer, a reverse proxy in front of backend
// processes, configured by a lab file's balancers: and network: sections.
// See docs/admin-api-lb.md for its headers and admin API.
package lbcmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"go.uber.org/zap"

	"github.com/lblab/lblab/internal/cli/adminflags"
	"github.com/lblab/lblab/internal/cli/dnsflags"
	"github.com/lblab/lblab/internal/cli/usage"
	"github.com/lblab/lblab/internal/core/balance"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/labfile/labyaml"
	_ "github.com/lblab/lblab/internal/proxies" // balancers.kind: the lab file lab writes for its processes may name a proxy
	"github.com/lblab/lblab/internal/shell/conns"
	"github.com/lblab/lblab/internal/shell/lb"
	"github.com/lblab/lblab/internal/shell/wire"
)

// options are the command-line flags.
type options struct {
	backends, admins, lab, name, algorithm, addr, admin *string
	tlsCert, tlsKey, tlsCA                              *string
	index                                               *int
	seed                                                *uint64
	hop                                                 *time.Duration
	check, debug                                        *bool
	dns                                                 dnsflags.Flags
	set                                                 map[string]bool // flags given explicitly
	access                                              *adminflags.Flags
}

func defineFlags(fs *flag.FlagSet) *options {
	return &options{
		backends:  fs.String("backends", "", "backends as `NAME=HOST:PORT,...` (required unless --backends-dns), e.g. s1=127.0.0.1:8001,s2=127.0.0.1:8002"),
		admins:    fs.String("backend-admins", "", "backends' admin addresses as `NAME=HOST:PORT,...`; needed when balancers.load is shared (polls GET /load)"),
		lab:       fs.String("lab", "", "lab `FILE` (YAML) whose balancers: and network: sections configure this lb (default: the built-in playground)"),
		name:      fs.String("name", "lb1", "balancer `NAME`, returned in the X-Lab-Balancer header"),
		index:     fs.Int("index", 0, "`N`: this balancer's number among several fronting one fleet; salts its random draws"),
		algorithm: fs.String("algorithm", "", "balancing algorithm `NAME`, overriding balancers.algorithm; one of "+strings.Join(balance.Names, ", ")),
		addr:      fs.String("addr", "127.0.0.1:0", "traffic listener `HOST:PORT` (port 0: any free port)"),
		admin:     fs.String("admin", "127.0.0.1:0", "admin API listener `HOST:PORT`"),
		seed:      fs.Uint64("seed", 0, "seed `N` of the random draws, overriding the lab's seed"),
		hop:       fs.Duration("hop", 0, "one-way network delay injected per hop, overriding network.hop (lab default 5ms)"),
		tlsCert:   fs.String("tls-cert", "", "with network.tls: the certificate `FILE` (PEM) the traffic listener serves (lab run passes the one it makes)"),
		tlsKey:    fs.String("tls-key", "", "with network.tls: the certificate's private key `FILE` (PEM)"),
		tlsCA:     fs.String("tls-ca", "", "with network.tls: the certificate `FILE` (PEM) to trust when connecting to the backends"),
		check:     fs.Bool("check-config", false, "validate the flags and the lab file, then exit (status 0 if good, 2 if not)"),
		debug:     fs.Bool("debug", false, "debug logging: one line per proxied request"),
		dns:       dnsflags.Define(fs, "backends", "backends", "for GET /load and hedge cancellations"),
	}
}

// Main is the whole program; it returns the exit status: 0, 1 when the
// shutdown fails, 2 on bad input (a flag, the lab, a port in use).
func Main(args []string, stdout, stderr io.Writer) int {
	fs := usage.New("lb", stdout, stderr)
	o := defineFlags(fs.FlagSet)
	o.access = adminflags.Add(fs.FlagSet, true)
	fs.Head = helpHead()
	extra, err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp), errors.Is(err, usage.ErrVersion):
		return 0
	case err != nil:
		fmt.Fprintln(stderr, "lb:", err)
		return 2
	}
	o.set = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { o.set[f.Name] = true })
	log := wire.Logger("lb", *o.debug).With(zap.String("name", *o.name))
	defer log.Sync()
	l, err := o.build(extra, log)
	if err != nil {
		fmt.Fprintln(stderr, "lb:", err)
		return 2
	}
	if *o.check {
		fmt.Fprintf(stdout, "lb: configuration ok (algorithm %s)\n", l.Algorithm())
		return 0
	}
	return serve(l, log, stdout, stderr)
}

// helpHead is what --help prints above the flags: how to call the lb, what
// it takes from the built-in lab, examples.
func helpHead() string {
	d := labfile.Default()
	return fmt.Sprintf(`usage: lb --backends s1=HOST:PORT,... [flags]

lb balances HTTP requests over backends (docs/admin-api-lb.md). Once listening it prints one
line %s{"name","addr","admin","pid"} on stdout. Without --lab it takes the built-in
lab's balancers: and network: sections: algorithm %s, a hop of %v each way (--hop 0s for
none), per-attempt timeout %s, breakers %s, health checks %s; --addr and --admin default
to free ports.

examples:
  lb --backends s1=127.0.0.1:8001,s2=127.0.0.1:8002 --addr 127.0.0.1:8080
  lb --backends s1=127.0.0.1:8001,s2=127.0.0.1:8002 --algorithm round-robin --hop 0s
  lb --lab my-lab.yaml --backends s1=127.0.0.1:8001,s2=127.0.0.1:8002 \
     --backend-admins s1=127.0.0.1:9001,s2=127.0.0.1:9002       (balancers.load: shared polls GET /load)
  lb --backends-dns backend:9001 --backends-dns-admin 9100 --addr 0.0.0.0:8080 --admin 0.0.0.0:9000 --token TOKEN`,
		wire.ReadyPrefix, d.Balancers.Algorithm, d.Network.Hop, orNone(d.Balancers.Timeout), onOff(d.Balancers.Breaker.Enabled),
		onOff(d.Balancers.Health.Enabled))
}

func orNone(d time.Duration) string {
	if d == 0 {
		return "none"
	}
	return d.String()
}

func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

// build validates everything and makes the balancer (not yet listening).
func (o *options) build(extra []string, log *zap.Logger) (*lb.LB, error) {
	lab, err := loadLab(*o.lab, o.set, *o.algorithm, *o.seed, *o.hop)
	if err != nil {
		return nil, err
	}
	disc, err := o.dns.Config()
	if err != nil {
		return nil, err
	}
	specs, err := backendList(*o.backends, *o.admins, extra, disc != nil)
	if err != nil {
		return nil, err
	}
	access, err := o.access.Access(*o.admin)
	if err != nil {
		return nil, err
	}
	cfg := lb.Config{Name: *o.name, Index: *o.index, Backends: specs, Lab: lab,
		Addr: *o.addr, Admin: *o.admin, Logger: log, Access: access, MaxClientConns: o.access.MaxConns(), Discover: disc}
	if *o.tlsCert != "" || *o.tlsKey != "" {
		if cfg.TLS, err = conns.ServerTLS(*o.tlsCert, *o.tlsKey); err != nil {
			return nil, fmt.Errorf("--tls-cert, --tls-key: %w", err)
		}
	}
	if *o.tlsCA != "" {
		if cfg.ClientTLS, err = conns.ClientTLS(*o.tlsCA); err != nil {
			return nil, fmt.Errorf("--tls-ca: %w", err)
		}
	}
	return lb.New(cfg)
}

// loadLab reads the lab (or the default) and applies the flag overrides.
func loadLab(path string, set map[string]bool, algorithm string, seed uint64, hop time.Duration) (*labfile.Lab, error) {
	lab := labfile.Default()
	if path != "" {
		var err error
		if lab, err = labyaml.Load(path); err != nil {
			return nil, fmt.Errorf("--lab: %w", err)
		}
	}
	overrides := []struct{ flag, path, value string }{
		{"algorithm", "balancers.algorithm", algorithm},
		{"seed", "seed", strconv.FormatUint(seed, 10)},
		{"hop", "network.hop", hop.String()},
	}
	for _, o := range overrides {
		if set[o.flag] {
			if err := lab.Apply(o.path, o.value); err != nil {
				return nil, fmt.Errorf("--%s: %w", o.flag, err)
			}
		}
	}
	return lab, nil
}

func backendList(backends, admins string, extra []string, discovered bool) ([]lb.BackendSpec, error) {
	if len(extra) > 0 {
		return nil, fmt.Errorf("unexpected argument %q (flags only; see --help)", extra[0])
	}
	if strings.TrimSpace(backends) == "" && !discovered {
		return nil, fmt.Errorf("--backends is required (or --backends-dns), e.g. --backends s1=127.0.0.1:8001,s2=127.0.0.1:8002")
	}
	return lb.ParseBackends(backends, admins)
}

// serve listens, prints the readiness line and runs until SIGTERM/SIGINT,
// then shuts down within 5 s.
func serve(l *lb.LB, log *zap.Logger, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if err := l.Start(); err != nil {
		fmt.Fprintln(stderr, "lb: cannot listen:", err)
		return 2
	}
	if err := wire.PrintReady(stdout, wire.Ready{Name: l.Name(), Addr: l.Addr(), Admin: l.AdminAddr(), PID: os.Getpid()}); err != nil {
		log.Error("readiness line", zap.Error(err))
	}
	<-ctx.Done()
	log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := l.Shutdown(sctx); err != nil {
		log.Error("shutdown", zap.Error(err))
		return 1
	}
	return 0
}
