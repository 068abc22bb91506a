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
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/shell/backend"
	"github.com/lblab/lblab/internal/shell/conns"
	"github.com/lblab/lblab/internal/shell/wire"
)

// drainTime is how long in-flight requests may finish after SIGTERM.
const drainTime = 5 * time.Second

// Main is the whole program; it returns the exit status: 0, or 2 on a bad
// flag, lab file or server name, or a port that cannot be bound.
func Main(args []string, stdout, stderr io.Writer) int {
	cfg, check, debug, code := parse(args, stderr)
	if code >= 0 {
		return code
	}
	if err := backend.Check(cfg); err != nil {
		fmt.Fprintf(stderr, "backend: %v\n", err)
		return 2
	}
	if check {
		fmt.Fprintf(stdout, "backend: server %s ok\n", cfg.Name)
		return 0
	}
	cfg.Log = wire.Logger("backend", debug)
	defer func() { _ = cfg.Log.Sync() }()
	return serve(cfg, stdout, stderr)
}

// options are the parsed flags.
type options struct {
	fs           *flag.FlagSet
	cfg          backend.Config
	lab          string
	tlsCert      string
	tlsKey       string
	hop          time.Duration
	check, debug bool
}

func newOptions(stderr io.Writer) *options {
	o := &options{fs: flag.NewFlagSet("backend", flag.ContinueOnError)}
	fs := o.fs
	fs.SetOutput(stderr)
	fs.StringVar(&o.lab, "lab", "", "lab file (YAML); default: the built-in playground lab")
	fs.StringVar(&o.cfg.Name, "name", "s1", "which server of the lab to emulate (s1, s2, ... or a group's name)")
	fs.StringVar(&o.cfg.Addr, "addr", "127.0.0.1:0", "data listener address (requests and GET /healthz)")
	fs.StringVar(&o.cfg.Admin, "admin", "127.0.0.1:0", "admin API listener address")
	fs.Uint64Var(&o.cfg.Seed, "seed", 0, "random seed for drawn work and error shares (default: the lab's seed)")
	fs.DurationVar(&o.hop, "hop", 0, "one-way delay added before each answer (default: the lab's network.hop)")
	fs.StringVar(&o.tlsCert, "tls-cert", "", "with network.tls: the certificate file (PEM) the data listener serves\n(lab run passes the one it makes at start)")
	fs.StringVar(&o.tlsKey, "tls-key", "", "with network.tls: the certificate's private key file (PEM)")
	fs.BoolVar(&o.check, "check-config", false, "validate the lab file and server name, then exit (0 ok, 2 not)")
	fs.BoolVar(&o.cfg.CancelOnClose, "cancel-on-close", false, "cancel a queued request when its client closes the connection\n"+
		"(off: the model keeps serving attempts a balancer timed out)")
	fs.BoolVar(&o.debug, "debug", false, "debug logging")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: backend [flags]\n\nOne emulated server of a lab, on the wall clock.\n"+
			"Prints %s{json} on stdout once it listens; SIGTERM drains for %v.\n\nflags:\n", wire.ReadyPrefix, drainTime)
		fs.PrintDefaults()
	}
	return o
}

// parse reads the flags and the lab file. code is the exit status when the
// program should end now (help, a bad flag or lab), else -1.
func parse(args []string, stderr io.Writer) (cfg backend.Config, check, debug bool, code int) {
	o := newOptions(stderr)
	if err := o.fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return o.cfg, false, false, 0
		}
		return o.cfg, false, false, 2
	}
	o.cfg.Hop, o.cfg.Jitter = -1, -1 // the lab's network
	var err error
	switch {
	case o.fs.NArg() > 0:
		err = fmt.Errorf("unexpected argument %q (see --help)", o.fs.Arg(0))
	case flagSet(o.fs, "hop") && (o.hop < 0 || o.hop >= 10*time.Second):
		err = fmt.Errorf("--hop %v: must be in [0, 10s)", o.hop)
	case flagSet(o.fs, "hop"):
		o.cfg.Hop = o.hop
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
		return o.cfg, false, false, 2
	}
	return o.cfg, o.check, o.debug, -1
}

// loadLab reads the lab file, or returns the playground lab for "".
func loadLab(path string) (*labfile.Lab, error) {
	if path == "" {
		return labfile.Default(), nil
	}
	return labfile.Load(path)
}

// serve runs the backend until SIGTERM or SIGINT.
func serve(cfg backend.Config, stdout, stderr io.Writer) int {
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
	drain, cancel := context.WithTimeout(context.Background(), drainTime)
	defer cancel()
	if err := b.Shutdown(drain); err != nil {
		fmt.Fprintf(stderr, "backend: shutdown: %v\n", err)
		return 1
	}
	return 0
}

func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
