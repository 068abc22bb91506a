// Package loadgencmd is the command line of the loadgen process (cmd/loadgen,
// and `lab loadgen`, which lab run uses): it replays a lab's seeded request
// stream over real HTTP to one or more balancers (or straight to the servers
// when the clients balance themselves) and prints the same report as
// `lab sim`, in mode "live".
package loadgencmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/valyala/fasthttp"
	"go.uber.org/zap"

	"github.com/lblab/lblab/internal/cli/adminflags"
	"github.com/lblab/lblab/internal/cli/dnsflags"
	"github.com/lblab/lblab/internal/cli/usage"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/report/output"
	"github.com/lblab/lblab/internal/shell/conns"
	"github.com/lblab/lblab/internal/shell/loadgen"
	"github.com/lblab/lblab/internal/shell/wire"
	"github.com/lblab/lblab/internal/workload"
)

// usageError is bad input: exit status 2.
type usageError struct{ error }

// list is a flag that may be repeated; the values are joined by commas.
type list []string

func (l *list) String() string     { return strings.Join(*l, ",") }
func (l *list) Set(v string) error { *l = append(*l, v); return nil }

type options struct {
	targets, servers, admins   list
	headers                    list
	lab, admin, profile, tlsCA string
	replay, method, body       string
	targetsFile                string
	files                      output.ExportFiles
	plain                      bool
	seed                       uint64
	duration, drain            time.Duration
	rate                       float64
	maxInflight, connections   int
	json, series, check, debug bool
	logWaits                   bool
	access                     *adminflags.Flags
	dns                        dnsflags.Flags
}

// Main is the whole program; it returns the exit status: 0, 2 on bad input,
// 1 on a failed run.
func Main(args []string, stdout, stderr io.Writer) int {
	err := run(args, stdout, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "loadgen:", err)
		if errors.As(err, new(usageError)) {
			return 2
		}
		return 1
	}
	return 0
}

func parseFlags(args []string, errOut io.Writer) (options, *flag.FlagSet, error) {
	var o options
	fs := flag.NewFlagSet("loadgen", flag.ContinueOnError)
	fs.SetOutput(errOut)
	fs.Var(&o.targets, "target", "balancer(s) to load: [NAME=]URL[,...]; each target gets every request and is one run\nof the report (e.g. p2c=http://127.0.0.1:8081,rr=http://127.0.0.1:8082); URL1|URL2 spreads\nclient ids over several balancers of one target; may be repeated")
	fs.Var(&o.servers, "servers", "client-side balancing: the servers, s1=127.0.0.1:9001,s2=...; no balancer in between\n(algorithm: the lab's clients.algorithm, else balancers.algorithm)")
	fs.Var(&o.admins, "admins", "DATA=ADMIN,...: the admin address (host:port) of each balancer target (DATA: its URL's host:port)\nor, with --servers, of each server (DATA: its address); a hedge's loser is cancelled there\nif still queued. Endpoints without one abandon their losers; may be repeated")
	o.dns = dnsflags.Define(fs, "servers", "servers", "where their hedge losers are cancelled")
	fs.StringVar(&o.lab, "lab", "", "lab file (default: the built-in playground lab)")
	fs.Uint64Var(&o.seed, "seed", 0, "random seed (default: the lab's); the same seed sends the same requests as lab sim")
	fs.DurationVar(&o.duration, "duration", 0, "how long to send, e.g. 30s (default: the lab's duration)")
	fs.DurationVar(&o.drain, "drain", loadgen.DefaultDrain, "after the run, wait this long for requests still out; the rest end as timed out")
	fs.Float64Var(&o.rate, "rate", 0, "open-loop arrival rate in requests/s (default: the lab's clients.rate)")
	fs.StringVar(&o.profile, "profile", "", "make the load change with time (the lab's clients.profile): the rate in open loop,\nthe users in closed loop; a shape and its fields, e.g. \"ramp from=10 to=200 over=30s\",\n\"steps levels=50,100,200 every=10s\", \"sine mean=100 amplitude=50 period=20s\",\n\"spike base=100 peak=500 at=10s for=2s\"")
	fs.IntVar(&o.connections, "connections", 0, fmt.Sprintf("at most `N` connections per endpoint (balancer URL, server, host), like wrk2's -c; a request\n"+
		"that finds them all busy waits for one, its latency counted from its intended start\n"+
		"(default %d against a plain service, %d in a lab)", loadgen.DefaultConnections, loadgen.DefaultLabConnections))
	fs.IntVar(&o.maxInflight, "max-inflight", 0, "at most this many attempts out at once; beyond it new requests wait\n(and count as late) (default: --connections times the endpoints)")
	fs.BoolVar(&o.json, "json", false, "print the JSON report instead of the table")
	fs.BoolVar(&o.series, "series", false, "include 250 ms time series in the report")
	fs.StringVar(&o.admin, "admin", "", "serve the admin API on this address (e.g. 127.0.0.1:0) and print the LBLAB-READY line first")
	fs.StringVar(&o.tlsCA, "tls-ca", "", "with network.tls: the certificate (PEM) to trust when connecting over TLS\n(lab run passes the one it makes at start)")
	fs.BoolVar(&o.check, "check-config", false, "validate the flags and the lab, print a summary and exit")
	fs.BoolVar(&o.debug, "debug", false, "debug logging (every attempt) on stderr")
	fs.BoolVar(&o.logWaits, "log-waits", false, "log how late the emulated waits ended (\"wait lateness\") on stderr at the end of the run (lab run and lab up pass it: it is in their process log)")
	o.access = adminflags.Add(fs, false)
	fs.StringVar(&o.files.Record, "record", "", "write the request stream and the answers as a trace to `FILE` (docs/traces.md); one target only")
	fs.StringVar(&o.replay, "replay", "", "send the requests of a trace `FILE` (an lblab trace, or a CSV timestamp,duration[,key])\ninstead of the lab's generated stream (docs/traces.md); the duration defaults to the trace's")
	fs.StringVar(&o.files.Out, "out", "", "write one CSV row per request to `FILE` (docs/report.md)")
	fs.StringVar(&o.files.HdrLog, "hdr-log", "", "write the latencies as an HdrHistogram interval log to `FILE`, one interval per second (docs/report.md)")
	fs.StringVar(&o.method, "method", "GET", "the HTTP `METHOD` of every attempt")
	fs.Var(&o.headers, "header", "\"Name: value\" header sent with every attempt; may be repeated")
	fs.StringVar(&o.body, "body", "", "send the content of `FILE` as every attempt's body")
	fs.StringVar(&o.targetsFile, "targets-file", "", "`FILE` of requests to send, in vegeta's text format (METHOD URL, Header: value lines, @body);\nrequest n goes to entry n mod count; replaces --target")
	fs.BoolVar(&o.plain, "plain", false, "a service that is not lblab's: send no X-Lab-* headers and inject no network hop\n"+
		"(the default with --target or --targets-file and no --lab; --plain=false sends lblab's headers)")
	fs.Usage = func() {
		fmt.Fprintln(errOut, "usage: loadgen --target [NAME=]URL[,...] | --servers s1=HOST:PORT,... | --servers-dns HOST:PORT [flags]\n\nflags:")
		usage.PrintDefaults(fs)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return o, fs, err
		}
		return o, fs, usageError{err}
	}
	if fs.NArg() > 0 {
		return o, fs, usageError{fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))}
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if !set["plain"] { // a plain load tool unless a lab is named or the clients balance lblab's servers
		o.plain = o.lab == "" && len(o.servers) == 0 && !set["servers-dns"] && (len(o.targets) > 0 || o.targetsFile != "")
	}
	return o, fs, nil
}

// loadLab reads the lab and applies the flag overrides.
func loadLab(o options, fs *flag.FlagSet) (*labfile.Lab, error) {
	lab := labfile.Default()
	if o.lab != "" {
		var err error
		if lab, err = labfile.Load(o.lab); err != nil {
			return nil, err
		}
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if set["seed"] {
		lab.Seed = o.seed
	}
	if set["duration"] {
		if err := lab.Apply("duration", o.duration.String()); err != nil {
			return nil, fmt.Errorf("--duration: %w", err)
		}
	}
	if set["rate"] {
		if err := lab.Apply("clients.rate", fmt.Sprint(o.rate)); err != nil {
			return nil, fmt.Errorf("--rate: %w", err)
		}
	}
	if set["profile"] {
		p, err := labfile.ParseProfile(o.profile)
		if err == nil {
			lab.Clients.Profile = p
			err = lab.Validate()
		}
		if err != nil {
			return nil, fmt.Errorf("--profile: %w", err)
		}
	}
	return lab, nil
}

// replay checks the trace of --replay and, without --duration, runs for
// the trace's duration.
func replay(o options, fs *flag.FlagSet, lab *labfile.Lab) (*workload.Trace, error) {
	if o.replay == "" {
		return nil, nil
	}
	tr, err := output.OpenTrace(o.replay)
	if err != nil {
		return nil, fmt.Errorf("--replay: %w", err)
	}
	durationSet := false
	fs.Visit(func(f *flag.Flag) { durationSet = durationSet || f.Name == "duration" })
	if !durationSet {
		if err := lab.Apply("duration", tr.Info.Duration().String()); err != nil {
			return nil, fmt.Errorf("--replay: %w", err)
		}
	}
	return tr, nil
}

// maxConnections bounds --connections (file descriptors run out first).
const maxConnections = 100_000

// httpOptions reads --method, --header, --body, --targets-file and --plain.
func httpOptions(o options, cfg *loadgen.Config) error {
	cfg.HTTP = loadgen.HTTP{Method: o.method, Plain: o.plain}
	for _, h := range o.headers {
		hd, err := loadgen.ParseHeader(h)
		if err != nil {
			return fmt.Errorf("--header: %w", err)
		}
		cfg.HTTP.Header = append(cfg.HTTP.Header, hd)
	}
	var err error
	if o.body != "" {
		if cfg.HTTP.Body, err = loadgen.ReadBody(o.body); err != nil {
			return fmt.Errorf("--body: %w", err)
		}
	}
	if o.targetsFile != "" {
		if cfg.Requests, err = loadgen.ReadTargetsFile(o.targetsFile); err != nil {
			return fmt.Errorf("--targets-file: %w", err)
		}
	}
	return nil
}

func config(o options, lab *labfile.Lab, errOut io.Writer) (loadgen.Config, error) {
	if o.maxInflight < 0 {
		return loadgen.Config{}, fmt.Errorf("--max-inflight: must be at least 1, got %d", o.maxInflight)
	}
	if o.connections < 0 || o.connections > maxConnections {
		return loadgen.Config{}, fmt.Errorf("--connections: must be in [1, %d], got %d", maxConnections, o.connections)
	}
	cfg := loadgen.Config{Lab: lab, Series: o.series, Drain: o.drain, Warn: errOut, MaxInflight: o.maxInflight,
		Connections: o.connections, LogWaits: o.logWaits || o.debug, Log: wire.Logger("loadgen", o.debug)}
	var err error
	if len(o.targets) > 0 {
		if cfg.Targets, err = loadgen.ParseTargets(o.targets.String()); err != nil {
			return cfg, fmt.Errorf("--target: %w", err)
		}
	}
	if len(o.servers) > 0 {
		if cfg.Servers, err = loadgen.ParseServers(o.servers.String()); err != nil {
			return cfg, fmt.Errorf("--servers: %w", err)
		}
	}
	if cfg.Discover, err = o.dns.Config(); err != nil {
		return cfg, err
	}
	if len(o.admins) > 0 {
		if cfg.Admins, err = loadgen.ParseAdmins(o.admins.String()); err != nil {
			return cfg, fmt.Errorf("--admins: %w", err)
		}
	}
	if cfg.Token, err = o.access.Token(); err != nil {
		return cfg, err
	}
	if o.tlsCA != "" {
		if cfg.TLS, err = conns.ClientTLS(o.tlsCA); err != nil {
			return cfg, fmt.Errorf("--tls-ca: %w", err)
		}
	}
	if f, ok := errOut.(*os.File); ok && wire.IsTerminal(f) && !o.debug {
		cfg.Progress = errOut
	}
	if o.files.Record != "" && len(cfg.Targets) > 1 {
		return cfg, errors.New("--record: a trace holds one run: give one --target")
	}
	return cfg, httpOptions(o, &cfg)
}

func run(args []string, out, errOut io.Writer) error {
	o, fs, err := parseFlags(args, errOut)
	if err != nil {
		return err
	}
	lab, err := loadLab(o, fs)
	if err != nil {
		return usageError{err}
	}
	trace, err := replay(o, fs, lab)
	if err != nil {
		return usageError{err}
	}
	cfg, err := config(o, lab, errOut)
	if err != nil {
		return usageError{err}
	}
	cfg.Replay = trace
	var exports *output.Exports // opened once the configuration is known to be good
	cfg.Logs = func(target string) report.RequestLog { return exports.Log(target) }
	r, err := loadgen.New(cfg)
	if err != nil {
		return usageError{err}
	}
	var access wire.Access
	if o.admin != "" {
		if access, err = o.access.Access(o.admin); err != nil {
			return usageError{err}
		}
	}
	if o.check && o.plain && o.lab == "" {
		conns := o.connections
		if conns == 0 {
			conns = loadgen.DefaultConnections
		}
		what := strings.Join(o.targets, ",")
		if o.targetsFile != "" {
			what = o.targetsFile
		}
		load := fmt.Sprintf("%g requests/s", lab.Clients.Rate)
		if lab.Clients.Mode == labfile.ClosedLoop {
			load = fmt.Sprintf("%d users", lab.Clients.Users)
		}
		fmt.Fprintf(out, "config ok: plain load of %s, %s for %v, at most %d connections per endpoint\n", what, load, lab.Duration, conns)
		return nil
	}
	if o.check {
		fmt.Fprintf(out, "config ok: lab %s, seed %d, %v, %s loop, %d target(s)", lab.Name, lab.Seed, lab.Duration, lab.Clients.Mode, max(len(cfg.Targets), 1))
		if cfg.Discover != nil {
			fmt.Fprintf(out, ", servers from DNS %s", cfg.Discover)
		}
		fmt.Fprintln(out)
		return nil
	}
	exports, err = output.OpenExports(o.files, workload.TraceHeader{Lab: lab.Name, Mode: "live", Seed: lab.Seed,
		Duration: workload.FormatMs(lab.Duration)})
	if err != nil {
		return usageError{err}
	}
	if o.admin != "" {
		stop, err := serveAdmin(o.admin, access, r, out, cfg.Log)
		if err != nil {
			return usageError{fmt.Errorf("--admin: %w", err)}
		}
		defer stop()
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	rep, err := r.Run(ctx)
	if err2 := exports.Close(); err == nil && err2 != nil {
		err = fmt.Errorf("writing the exports: %w", err2)
	}
	if err != nil {
		return err
	}
	if o.plain && o.lab == "" {
		rep.Lab = "" // the built-in lab only set the load: the report is about the target
	}
	if o.json {
		err = rep.WriteJSON(out)
	} else if o.plain {
		err = rep.WriteLoad(out)
	} else {
		err = rep.WriteTable(out)
	}
	if err == nil && o.plain {
		err = unanswered(rep)
	}
	return err
}

// unanswered fails a run against a plain service in which no attempt got an
// HTTP answer (a wrong port, a host that is down): it measured nothing, and
// a script should notice. Any answer at all, even a 500, is a measurement.
func unanswered(rep *report.Report) error {
	for _, run := range rep.Runs {
		if run.Load == nil || len(run.Load.StatusCodes) > 0 || len(run.Load.ErrorKinds) == 0 {
			return nil
		}
	}
	var parts []string
	for _, run := range rep.Runs {
		kinds := make([]string, 0, len(run.Load.ErrorKinds))
		for k, n := range run.Load.ErrorKinds {
			kinds = append(kinds, fmt.Sprintf("%s: %d", k, n))
		}
		slices.Sort(kinds)
		parts = append(parts, fmt.Sprintf("%s: %s", run.Load.Target, strings.Join(kinds, ", ")))
	}
	return fmt.Errorf("no answer: every attempt failed (%s)", strings.Join(parts, "; "))
}

// serveAdmin listens on addr, prints the readiness line and serves the
// admin API behind its access guard, logging to log (secrets redacted).
func serveAdmin(addr string, access wire.Access, r *loadgen.Runner, out io.Writer, log *zap.Logger) (func(), error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	srv := &fasthttp.Server{Handler: wire.NewGuard(access, ln.Addr()).Fasthttp(r.Admin()), Name: "loadgen",
		MaxRequestBodySize: 64 << 10, ReadBufferSize: 8 << 10, // admin bodies are small JSON
		Logger: wire.ServerLogger(log)}
	wire.Serve(srv, ln, wire.AdminLimits(), nil)
	if err := wire.PrintReady(out, wire.Ready{Name: "loadgen", Admin: ln.Addr().String(), PID: os.Getpid()}); err != nil {
		return nil, err
	}
	return func() { srv.Shutdown() }, nil
}
