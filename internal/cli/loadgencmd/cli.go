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
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/valyala/fasthttp"
	"go.uber.org/zap"

	"github.com/lblab/lblab/internal/cli/adminflags"
	"github.com/lblab/lblab/internal/cli/dnsflags"
	"github.com/lblab/lblab/internal/cli/usage"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/labfile/labyaml"
	_ "github.com/lblab/lblab/internal/proxies" // balancers.kind: the lab file lab writes for its processes may name a proxy
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
	seed, count                uint64
	duration, drain            time.Duration
	rate, perConnection        float64
	maxInflight, connections   int
	json, series, check, debug bool
	logWaits                   bool
	access                     *adminflags.Flags
	dns                        dnsflags.Flags
}

// Main is the whole program; it returns the exit status: 0, 2 on bad input,
// 1 on a failed run (and on a plain run in which no request succeeded).
func Main(args []string, stdout, stderr io.Writer) int {
	err := run(args, stdout, stderr)
	if errors.Is(err, flag.ErrHelp) || errors.Is(err, usage.ErrVersion) {
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

// The short flags, as hey and wrk spell them: each another name of a long
// flag, listed with it by --help.
var shortFlags = [][2]string{
	{"c", "connections"},
	{"d", "duration"},
	{"n", "requests"},
	{"H", "header"},
	{"q", "rate-per-connection"},
}

// foreignFlags are other load tools' flags the loadgen has under another
// name, for the message about an unknown flag.
var foreignFlags = map[string]string{
	"z":   "-d, --duration (hey's -z)",
	"R":   "--rate (wrk2's -R: requests/s in total)",
	"m":   "--method (hey's -m)",
	"D":   "--body FILE (hey's -D)",
	"T":   "-H \"Content-Type: TYPE\" (hey's -T)",
	"t":   "nothing: the loadgen runs on every core (GOMAXPROCS); wrk's -t has no counterpart",
	"vus": "-c, --connections (k6's --vus: users in a closed loop)",
	"rps": "--rate (k6's --rps)",
}

func parseFlags(args []string, out, errOut io.Writer) (options, *usage.Set, error) {
	var o options
	fs := usage.New("loadgen", out, errOut)
	fs.Var(&o.targets, "target", "balancer(s) to load: [NAME=]URL[,...]; each target gets every request and is one run\nof the report (e.g. p2c=http://127.0.0.1:8081,rr=http://127.0.0.1:8082); URL1|URL2 spreads\nclient ids over several balancers of one target; may be repeated; a URL given as an argument\nis a --target too")
	fs.Var(&o.servers, "servers", "client-side balancing: the servers, s1=127.0.0.1:9001,s2=...; no balancer in between\n(algorithm: the lab's clients.algorithm, else balancers.algorithm)")
	fs.Var(&o.admins, "admins", "DATA=ADMIN,...: the admin address (host:port) of each balancer target (DATA: its URL's host:port)\nor, with --servers, of each server (DATA: its address); a hedge's loser is cancelled there\nif still queued. Endpoints without one abandon their losers; may be repeated")
	o.dns = dnsflags.Define(fs.FlagSet, "servers", "servers", "where their hedge losers are cancelled")
	fs.StringVar(&o.lab, "lab", "", "lab file (default: the built-in playground lab)")
	fs.Uint64Var(&o.seed, "seed", 0, "random seed (default: the lab's); the same seed sends the same requests as lab sim")
	fs.DurationVar(&o.duration, "duration", 0, fmt.Sprintf("how long to send, e.g. 30s (default: the lab's duration, %v for the built-in lab;\nwith --requests and no --duration, as long as they take)", defaults().Duration))
	fs.Uint64Var(&o.count, "requests", 0, "stop after `N` requests per target, as hey's -n; with --duration, at whichever comes first")
	fs.DurationVar(&o.drain, "drain", loadgen.DefaultDrain, "after the run, wait this long for requests still out; the rest end as timed out")
	fs.Float64Var(&o.rate, "rate", 0, fmt.Sprintf("open-loop arrival rate in requests/s, in total (default: the lab's clients.rate, %g for the built-in lab)",
		defaults().Clients.Rate))
	fs.Float64Var(&o.perConnection, "rate-per-connection", 0, "`R` requests/s per connection, as hey's -q is per worker: the open loop's rate is then\n"+
		"--connections x R in total (so it needs --connections, and takes the place of --rate)")
	fs.StringVar(&o.profile, "profile", "", "make the load change with time (the lab's clients.profile): the rate in open loop,\nthe users in closed loop; a shape and its fields, e.g. \"ramp from=10 to=200 over=30s\",\n\"steps levels=50,100,200 every=10s\", \"sine mean=100 amplitude=50 period=20s\",\n\"spike base=100 peak=500 at=10s for=2s\"")
	fs.IntVar(&o.connections, "connections", 0, fmt.Sprintf("at most `N` connections per endpoint (balancer URL, server, host), like wrk2's -c; a request\n"+
		"that finds them all busy waits for one, its latency counted from its intended start\n"+
		"(default %d against a plain service, %d in a lab). Without --lab and without a rate\n"+
		"(--rate, -q, --profile, --replay), N users in a closed loop instead, each sending its next\n"+
		"request when its answer comes, as hey's and wrk's -c", loadgen.DefaultConnections, loadgen.DefaultLabConnections))
	fs.IntVar(&o.maxInflight, "max-inflight", 0, "at most this many attempts out at once; beyond it new requests wait\n(and count as late) (default: --connections times the endpoints)")
	fs.BoolVar(&o.json, "json", false, "print the JSON report instead of the table")
	fs.BoolVar(&o.series, "series", false, "include 250 ms time series in the report")
	fs.StringVar(&o.admin, "admin", "", "serve the admin API on this address (e.g. 127.0.0.1:0) and print the LBLAB-READY line first")
	fs.StringVar(&o.tlsCA, "tls-ca", "", "with network.tls: the certificate (PEM) to trust when connecting over TLS\n(lab run passes the one it makes at start)")
	fs.BoolVar(&o.check, "check-config", false, "validate the flags and the lab, print a summary and exit")
	fs.BoolVar(&o.debug, "debug", false, "debug logging (every attempt) on stderr")
	fs.BoolVar(&o.logWaits, "log-waits", false, "log how late the emulated waits ended (\"wait lateness\") on stderr at the end of the run (lab run and lab up pass it: it is in their process log)")
	o.access = adminflags.Add(fs.FlagSet, false)
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
	for _, a := range shortFlags {
		fs.Alias(a[0], a[1])
	}
	fs.Foreign = foreignFlags
	fs.Head, fs.Tail = helpHead(), helpTail
	pos, err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp), errors.Is(err, usage.ErrVersion):
		return o, fs, err
	case err != nil:
		return o, fs, usageError{err}
	}
	for _, p := range pos {
		if !looksLikeTarget(p) {
			return o, fs, usageError{fmt.Errorf("unexpected argument %q: an argument is a target, [NAME=]http://host:port[/path]", p)}
		}
		o.targets = append(o.targets, p)
	}
	if !fs.Given("plain") { // a plain load tool unless a lab is named or the clients balance lblab's servers
		o.plain = o.lab == "" && len(o.servers) == 0 && !fs.Given("servers-dns") && (len(o.targets) > 0 || o.targetsFile != "")
	}
	return o, fs, nil
}

// looksLikeTarget says a positional argument is a URL to load: http://...
// or host:port, optionally NAME=.
func looksLikeTarget(arg string) bool {
	if name, rest, ok := strings.Cut(arg, "="); ok && !strings.Contains(name, "/") {
		arg = rest
	}
	if strings.Contains(arg, "://") {
		return true
	}
	_, port, err := net.SplitHostPort(arg)
	return err == nil && port != ""
}

// defaults is the built-in lab, whose load a run without --lab takes.
func defaults() *labfile.Lab { return labfile.Default() }

// helpHead is what --help prints above the flags: how to call the loadgen,
// the built-in lab's load, and examples in hey's and wrk's terms.
func helpHead() string {
	d := defaults()
	return fmt.Sprintf(`usage: loadgen [flags] URL...        (a URL is a --target)
       loadgen --target [NAME=]URL[,...] | --servers s1=HOST:PORT,... | --servers-dns HOST:PORT [flags]

loadgen sends a lab's seeded request stream over HTTP and prints a report (docs/loadgen.md).
Without --lab it loads any HTTP service as a plain load tool: %g requests/s (open loop,
Poisson arrivals, latency from each request's intended start) for %v, no X-Lab-* headers.

examples:
  loadgen http://127.0.0.1:8080/                   %g requests/s for %v (the built-in lab's load)
  loadgen -c 10 -d 30s http://127.0.0.1:8080/      10 users in a closed loop for 30s (hey -c 10 -z 30s, wrk -c 10 -d 30s)
  loadgen -n 1000 -c 10 http://127.0.0.1:8080/     1000 requests by 10 users, then stop (hey -n 1000 -c 10)
  loadgen -c 5 -q 20 http://127.0.0.1:8080/        100 requests/s in total over at most 5 connections (hey -c 5 -q 20)
  loadgen --rate 500 -d 1m -H "Accept: text/plain" http://127.0.0.1:8080/api
  loadgen --lab my-lab.yaml --target http://127.0.0.1:8080   a lab's stream and client policy through lblab's lb`,
		d.Clients.Rate, d.Duration, d.Clients.Rate, d.Duration)
}

const helpTail = `exit status: 0 after a run, whatever its results; 1 when the run failed, or when no
request of a plain run succeeded (the report is printed first); 2 for bad input.`

// loadLab reads the lab and applies the flag overrides, among them the
// load the short flags set: -c without a rate is a closed loop of that many
// users, -q a rate per connection.
func loadLab(o options, fs *usage.Set) (*labfile.Lab, error) {
	lab := labfile.Default()
	if o.lab != "" {
		var err error
		if lab, err = labyaml.Load(o.lab); err != nil {
			return nil, err
		}
	}
	if fs.Given("seed") {
		lab.Seed = o.seed
	}
	if err := applyCount(o, fs, lab); err != nil {
		return nil, err
	}
	if fs.Given("duration") {
		if err := lab.Apply("duration", o.duration.String()); err != nil {
			return nil, fmt.Errorf("--duration: %w", err)
		}
	}
	if err := applyLoad(o, fs, lab); err != nil {
		return nil, err
	}
	if fs.Given("profile") {
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

// applyCount checks --requests; without --duration, the run then lasts as
// long as they take (the longest run a lab may have).
func applyCount(o options, fs *usage.Set, lab *labfile.Lab) error {
	if !fs.Given("requests") {
		return nil
	}
	if o.count == 0 {
		return fmt.Errorf("%s: must be at least 1", fs.Used("requests"))
	}
	if fs.Given("duration") {
		return nil
	}
	return lab.Apply("duration", labfile.Bounds.Duration.Max.String())
}

// applyLoad sets the open loop's rate (--rate, or -c x -q) or, without a
// lab and without a rate, -c's closed loop. A rate of any kind for a lab in
// closed loop, or two of them, is refused: they would be ignored.
func applyLoad(o options, fs *usage.Set, lab *labfile.Lab) error {
	q, c := fs.Used("rate-per-connection"), fs.Used("connections")
	rate, perConn := fs.Given("rate"), fs.Given("rate-per-connection")
	which := "--rate" // the rate flag given
	if perConn {
		which = q
	}
	switch {
	case perConn && rate:
		return fmt.Errorf("%s and --rate both set the rate: give one (--rate is requests/s in total, %s per connection)", q, q)
	case perConn && fs.Given("profile"):
		return fmt.Errorf("%s and --profile both set the rate: give one", q)
	case (perConn || rate) && o.replay != "":
		return fmt.Errorf("%s: the trace of --replay sets when requests start: leave the rate out", which)
	case perConn && !fs.Given("connections"):
		return fmt.Errorf("%s is requests/s per connection (hey's -q is per worker): give -c N too (the rate is then N x %s in total), or --rate for a rate in total", q, q)
	case perConn && !(o.perConnection > 0):
		return fmt.Errorf("%s: must be > 0, got %g", q, o.perConnection)
	case (perConn || rate) && lab.Clients.Mode == labfile.ClosedLoop:
		return fmt.Errorf("%s: the lab's clients are a closed loop (clients.mode: closed), whose users set the load: a rate would be ignored", which)
	case perConn:
		return applied(lab, "clients.rate", fmt.Sprint(o.perConnection*float64(o.connections)), q)
	case rate:
		return applied(lab, "clients.rate", fmt.Sprint(o.rate), "--rate")
	case o.lab == "" && fs.Given("connections") && !fs.Given("profile") && o.replay == "":
		if err := lab.ApplyAll([][2]string{{"clients.mode", string(labfile.ClosedLoop)},
			{"clients.users", strconv.Itoa(o.connections)}, {"clients.think", "0s"}}); err != nil {
			return fmt.Errorf("%s: %w", c, err)
		}
	}
	return nil
}

// applied sets path to value, an error naming flag if the lab refuses it.
func applied(lab *labfile.Lab, path, value, flag string) error {
	if err := lab.Apply(path, value); err != nil {
		return fmt.Errorf("%s: %w", flag, err)
	}
	return nil
}

// replay checks the trace of --replay and, without --duration, runs for
// the trace's duration.
func replay(o options, fs *usage.Set, lab *labfile.Lab) (*workload.Trace, error) {
	if o.replay == "" {
		return nil, nil
	}
	tr, err := output.OpenTrace(o.replay)
	if err != nil {
		return nil, fmt.Errorf("--replay: %w", err)
	}
	if !fs.Given("duration") {
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
		Connections: o.connections, Count: o.count, LogWaits: o.logWaits || o.debug, Log: wire.Logger("loadgen", o.debug)}
	if o.plain && !o.json {
		cfg.Warn = nil // the report printed says it (BEHIND), and run adds one line on stderr
	}
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
	o, fs, err := parseFlags(args, out, errOut)
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
	builtIn := o.plain && o.lab == "" // the built-in lab only set the load: the run is about the target
	if o.check {
		checked(out, o, fs, lab, cfg, builtIn)
		return nil
	}
	if builtIn {
		o.files.Plain, o.files.Title = true, "lblab loadgen "+targetsOf(o)
	} else if o.plain {
		o.files.Plain = true
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
	if builtIn {
		rep.Lab = ""
	}
	if o.json {
		err = rep.WriteJSON(out)
	} else if o.plain {
		err = rep.WriteLoad(out)
		if err == nil && len(rep.Runs) > 0 {
			if line := report.BehindLine(&rep.Runs[0]); line != "" {
				fmt.Fprintf(errOut, "loadgen: %s; see BEHIND in the report\n", line)
			}
		}
	} else {
		err = rep.WriteTable(out)
	}
	if err == nil && o.plain {
		err = noneSucceeded(rep)
	}
	return err
}

// targetsOf is what a plain run loads, for its summary and the titles of
// its exports.
func targetsOf(o options) string {
	if o.targetsFile != "" {
		return o.targetsFile
	}
	return strings.Join(o.targets, ",")
}

// checked prints --check-config's one-line summary.
func checked(out io.Writer, o options, fs *usage.Set, lab *labfile.Lab, cfg loadgen.Config, builtIn bool) {
	until := fmt.Sprintf("for %v", lab.Duration)
	switch {
	case o.count > 0 && fs.Given("duration"):
		until = fmt.Sprintf("until %d requests or %v", o.count, lab.Duration)
	case o.count > 0:
		until = fmt.Sprintf("until %d requests", o.count)
	}
	if builtIn {
		conns := o.connections
		if conns == 0 {
			conns = loadgen.DefaultConnections
		}
		load := fmt.Sprintf("%g requests/s", lab.Clients.Rate)
		if lab.Clients.Mode == labfile.ClosedLoop {
			load = fmt.Sprintf("%d users in a closed loop", lab.Clients.Users)
		}
		fmt.Fprintf(out, "config ok: plain load of %s, %s %s, at most %d connections per endpoint\n", targetsOf(o), load, until, conns)
		return
	}
	fmt.Fprintf(out, "config ok: lab %s, seed %d, %s, %s loop, %d target(s)", lab.Name, lab.Seed, until, lab.Clients.Mode, max(len(cfg.Targets), 1))
	if cfg.Discover != nil {
		fmt.Fprintf(out, ", servers from DNS %s", cfg.Discover)
	}
	fmt.Fprintln(out)
}

// noneSucceeded fails a run against a plain service in which no request
// succeeded (a wrong port, a host that is down, a service that answers
// only errors or hangs): the report, printed first, says what happened,
// and a script should notice.
func noneSucceeded(rep *report.Report) error {
	for _, run := range rep.Runs {
		if run.Load == nil || run.Succeeded > 0 {
			return nil
		}
	}
	var parts []string
	for _, run := range rep.Runs {
		var what []string
		if len(run.Load.StatusCodes) > 0 {
			codes := make([]string, 0, len(run.Load.StatusCodes))
			for c, n := range run.Load.StatusCodes {
				codes = append(codes, fmt.Sprintf("%d: %d", c, n))
			}
			slices.Sort(codes)
			what = append(what, "answers "+strings.Join(codes, ", "))
		}
		kinds := make([]string, 0, len(run.Load.ErrorKinds))
		for k, n := range run.Load.ErrorKinds {
			kinds = append(kinds, fmt.Sprintf("%s: %d", k, n))
		}
		slices.Sort(kinds)
		what = append(what, kinds...)
		if len(what) == 0 {
			what = append(what, "nothing sent")
		}
		parts = append(parts, fmt.Sprintf("%s: 0 of %s succeeded (%s)", run.Load.Target, report.Plural(run.Requests, "request"),
			strings.Join(what, ", ")))
	}
	return fmt.Errorf("no request succeeded: %s", strings.Join(parts, "; "))
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
