// Package discover keeps a fleet in step with DNS: the A and AAAA records of
// one name (a compose service with replicas, a Kubernetes headless service),
// re-resolved every interval. Each address is asked for its name (GET
// /healthz answers {"server": NAME}), so the name a fleet uses for a member
// is the name the member gives itself; members that appear are handed to
// the fleet's Add, members that disappear to its Remove — the same path as
// the admin API's add-server and remove-server.
//
// This is a live-deployment concern only: the simulator has no DNS.
package discover

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/lblab/lblab/internal/shell/state"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultEvery is how often the name is re-resolved when Config.Every is 0.
const DefaultEvery = 2 * time.Second

// probeWait bounds one resolution and one member's name probe.
const probeWait = 2 * time.Second

// parallel bounds the name probes of one round that run at once.
const parallel = 16

// misses is how many resolutions in a row must lack a member's address
// before it is removed. One is not enough: on an overloaded machine the
// compose lab's lb once dropped a running backend for a round (the name
// briefly resolved without it, or not at all), which fails requests.
const misses = 2

// Member is one discovered process.
type Member struct {
	Name  string `json:"name"`
	Addr  string `json:"addr,omitempty"`  // data address IP:PORT ("" without a data port)
	Admin string `json:"admin,omitempty"` // admin address IP:PORT ("" without an admin port)
}

// Fleet receives the changes. Add may refuse a member (it is offered again
// next round); Remove is only called for members Add accepted.
type Fleet interface {
	Add(Member) error
	Remove(name string)
}

// Resolver is the part of *net.Resolver discovery uses (tests pass a fake).
type Resolver interface {
	LookupHost(ctx context.Context, host string) ([]string, error)
}

// Config says what to resolve and where the members listen.
type Config struct {
	Host      string        // the DNS name
	Port      int           // the members' data port (0 = none: only admin addresses are wanted)
	AdminPort int           // the members' admin port (0 = none)
	Every     time.Duration // between rounds (0 = DefaultEvery)

	Resolver Resolver // nil = net.DefaultResolver
	// Identify returns the name of the member at m's addresses; nil = GET
	// /healthz on the admin address (else the data address), see Identify.
	Identify func(ctx context.Context, m Member) (string, error)
}

// Parse reads HOST:PORT, the form of the --*-dns flags, into a Config with
// that data port (admin false) or admin port (admin true).
func Parse(flag, spec string, admin bool) (Config, error) {
	host, p, err := net.SplitHostPort(strings.TrimSpace(spec))
	port, perr := strconv.Atoi(p)
	if err != nil || host == "" || perr != nil || port < 1 || port > 65535 {
		return Config{}, fmt.Errorf("%s: %q: want HOST:PORT, a DNS name and a port in 1..65535", flag, spec)
	}
	c := Config{Host: host}
	if admin {
		c.AdminPort = port
	} else {
		c.Port = port
	}
	return c, nil
}

// Check validates the config; each error starts with the field it is about.
func (c Config) Check() error {
	switch {
	case c.Host == "":
		return errors.New("host: the DNS name to resolve is empty")
	case c.Port < 0 || c.Port > 65535 || c.AdminPort < 0 || c.AdminPort > 65535:
		return fmt.Errorf("port: want 1..65535, got %d and admin %d", c.Port, c.AdminPort)
	case c.Port == 0 && c.AdminPort == 0:
		return errors.New("port: give the members' data port, admin port or both")
	case c.Every < 0 || c.Every > 0 && c.Every < 100*time.Millisecond:
		return fmt.Errorf("every: want at least 100ms, got %v", c.Every)
	}
	return nil
}

// String is the config as a flag would give it: backend:9001 (admin 9100) every 2s.
func (c Config) String() string {
	port := c.Port
	if port == 0 {
		port = c.AdminPort
	}
	s := net.JoinHostPort(c.Host, strconv.Itoa(port))
	if c.Port != 0 && c.AdminPort != 0 {
		s += fmt.Sprintf(" (admin %d)", c.AdminPort)
	}
	return s + " every " + c.every().String()
}

func (c Config) every() time.Duration {
	if c.Every == 0 {
		return DefaultEvery
	}
	return c.Every
}

// Watcher resolves the name round after round and tells the fleet what
// changed. Round is not safe for concurrent use; Status is.
type Watcher struct {
	cfg    Config
	fleet  Fleet
	known  map[string]Member // by IP: the members Add accepted
	missed map[string]int    // by IP: resolutions in a row without it

	rounds  atomic.Uint64
	mu      sync.Mutex // guards lastErr and size
	lastErr string
	size    int
}

// New makes a watcher; it resolves nothing until Round or Run.
func New(cfg Config, fleet Fleet) (*Watcher, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	if cfg.Resolver == nil {
		cfg.Resolver = net.DefaultResolver
	}
	if cfg.Identify == nil {
		cfg.Identify = Identify
	}
	return &Watcher{cfg: cfg, fleet: fleet, known: map[string]Member{}, missed: map[string]int{}}, nil
}

// Status is state.Discovery.
type Status = state.Discovery

// Status reports the rounds so far and the last round's outcome.
func (w *Watcher) Status() Status {
	w.mu.Lock()
	defer w.mu.Unlock()
	port := w.cfg.Port
	if port == 0 {
		port = w.cfg.AdminPort
	}
	return Status{Name: net.JoinHostPort(w.cfg.Host, strconv.Itoa(port)), Every: w.cfg.every().String(),
		Rounds: w.rounds.Load(), Members: w.size, Error: w.lastErr}
}

// Run calls Round every interval until ctx ends. A round's error goes to
// report (if not nil) when it differs from the previous round's, so a
// lasting trouble is told once, not every interval.
func (w *Watcher) Run(ctx context.Context, report func(error)) {
	t := time.NewTicker(w.cfg.every())
	defer t.Stop()
	last := ""
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		err := w.Round(ctx)
		if msg := fmt.Sprint(err); err != nil && msg != last && report != nil && ctx.Err() == nil {
			report(err)
		}
		last = fmt.Sprint(err)
	}
}

// Round resolves the name once: members whose address is gone from this
// and the previous resolution (or that now answer with another name) are
// removed, new addresses that tell their name are added. A failed
// resolution changes nothing; a name without records (NXDOMAIN: scaled to
// zero) is an empty answer. The error says what went wrong, if anything;
// the round still applied what it could.
func (w *Watcher) Round(ctx context.Context) error {
	defer w.rounds.Add(1)
	ips, err := w.resolve(ctx)
	if err != nil {
		w.finish(err)
		return err
	}
	names := w.identify(ctx, ips)
	var problems []string
	for ip, m := range w.known { // gone, or replaced under the same address
		n, resolved := names[ip]
		if resolved {
			delete(w.missed, ip)
		} else {
			w.missed[ip]++
		}
		if w.missed[ip] >= misses || resolved && n.name != "" && n.name != m.Name {
			w.fleet.Remove(m.Name)
			delete(w.known, ip)
			delete(w.missed, ip)
		}
	}
	taken := map[string]bool{}
	for _, m := range w.known {
		taken[m.Name] = true
	}
	for _, ip := range ips {
		n := names[ip]
		if _, ok := w.known[ip]; ok {
			continue
		}
		m := w.member(ip)
		switch {
		case n.err != nil:
			problems = append(problems, fmt.Sprintf("%s: %v", ip, n.err))
			continue
		case taken[n.name]:
			problems = append(problems, fmt.Sprintf("%s: name %q is already taken by another address", ip, n.name))
			continue
		}
		m.Name = n.name
		if err := w.fleet.Add(m); err != nil {
			problems = append(problems, fmt.Sprintf("%s (%s): %v", ip, m.Name, err))
			continue
		}
		w.known[ip] = m
		taken[m.Name] = true
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		err = fmt.Errorf("%s: %s", w.cfg.Host, strings.Join(problems, "; "))
	}
	w.finish(err)
	return err
}

func (w *Watcher) finish(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.size = len(w.known)
	w.lastErr = ""
	if err != nil {
		w.lastErr = err.Error()
	}
}

// resolve returns the name's addresses, sorted; no records is an empty list.
func (w *Watcher) resolve(ctx context.Context) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, probeWait)
	defer cancel()
	ips, err := w.cfg.Resolver.LookupHost(ctx, w.cfg.Host)
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) && dnsErr.IsNotFound {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", w.cfg.Host, err)
	}
	slices.Sort(ips)
	return slices.Compact(ips), nil
}

// named is one address's answer to the name probe.
type named struct {
	name string
	err  error
}

// identify asks every address for its name, a few at a time.
func (w *Watcher) identify(ctx context.Context, ips []string) map[string]named {
	out := make(map[string]named, len(ips))
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, parallel)
	for _, ip := range ips {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			pctx, cancel := context.WithTimeout(ctx, probeWait)
			defer cancel()
			name, err := w.cfg.Identify(pctx, w.member(ip))
			if err == nil && name == "" {
				err = errors.New("no name")
			}
			mu.Lock()
			out[ip] = named{name: name, err: err}
			mu.Unlock()
		})
	}
	wg.Wait()
	return out
}

// member is the addresses of the process at ip.
func (w *Watcher) member(ip string) Member {
	var m Member
	if w.cfg.Port != 0 {
		m.Addr = net.JoinHostPort(ip, strconv.Itoa(w.cfg.Port))
	}
	if w.cfg.AdminPort != 0 {
		m.Admin = net.JoinHostPort(ip, strconv.Itoa(w.cfg.AdminPort))
	}
	return m
}

// Identify asks a member its name: GET /healthz on its admin address, else
// its data address, answers {"server": NAME} at an lblab backend. A process
// that answers 200 without a name (not lblab's) is named after its address
// (10-0-0-7-9001); one that does not answer is an error (asked again next
// round).
func Identify(ctx context.Context, m Member) (string, error) {
	addr := m.Admin
	if addr == "" {
		addr = m.Addr
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/healthz", nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	var h struct {
		Server string `json:"server"`
	}
	if json.Unmarshal(body, &h) == nil && h.Server != "" {
		return h.Server, nil
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET /healthz: %s", resp.Status)
	}
	return addressName(addr), nil
}

// addressName makes a name out of HOST:PORT: 10.0.0.7:9001 -> 10-0-0-7-9001.
func addressName(addr string) string {
	return strings.Trim(strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '-'
	}, addr), "-")
}
