package loadgen

import (
	"encoding/json"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttputil"

	"github.com/lblab/lblab/internal/labfile"
)

// cancelPost is one POST /admin/cancel an admin recorder received.
type cancelPost struct {
	Admin   string
	Path    string
	ID      uint64 `json:"id"`
	Attempt string `json:"attempt"`
	At      time.Time
	Auth    string // the Authorization header
}

// adminRec is an in-memory admin API that records every request it gets.
type adminRec struct {
	name   string
	mem    *fasthttputil.InmemoryListener
	srv    *fasthttp.Server
	served chan error
	mu     sync.Mutex
	posts  []cancelPost
}

func newAdminRec(t *testing.T, name string) *adminRec {
	a := &adminRec{name: name, mem: fasthttputil.NewInmemoryListener(), served: make(chan error, 1)}
	a.srv = &fasthttp.Server{Handler: a.serve, NoDefaultDate: true, NoDefaultServerHeader: true,
		MaxIdleWorkerDuration: 50 * time.Millisecond, CloseOnShutdown: true, Logger: quiet{}}
	go func() { a.served <- a.srv.Serve(a.mem) }()
	t.Cleanup(func() {
		a.srv.Shutdown()
		a.mem.Close()
		<-a.served
	})
	return a
}

func (a *adminRec) serve(ctx *fasthttp.RequestCtx) {
	p := cancelPost{Admin: a.name, Path: string(ctx.Method()) + " " + string(ctx.Path()), At: time.Now(),
		Auth: string(ctx.Request.Header.Peek("Authorization"))}
	if err := json.Unmarshal(ctx.PostBody(), &p); err != nil {
		p.Path += " (bad body " + string(ctx.PostBody()) + ")"
	}
	a.mu.Lock()
	a.posts = append(a.posts, p)
	a.mu.Unlock()
	ctx.SetContentType("application/json")
	ctx.SetBodyString(`{"id":1,"cancelled":0}`)
}

func (a *adminRec) addr() string { return a.name + ":80" }

func (a *adminRec) got() []cancelPost {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]cancelPost(nil), a.posts...)
}

// dialAll routes to the admin recorders, else like dialer(fakes...).
func dialAll(fakes []*fake, admins ...*adminRec) func(string) (net.Conn, error) {
	base := dialer(fakes...)
	return func(addr string) (net.Conn, error) {
		for _, a := range admins {
			if a.addr() == addr {
				return a.mem.Dial()
			}
		}
		return base(addr)
	}
}

// slowFirst makes every request hedge and every hedge win: first attempts
// answer after a second (so a hedge wins even on a machine that stalls for a
// while), the others at once.
func slowFirst(g got, i int) answer { return slowFirstBy(time.Second)(g, i) }

// slowFirstBy answers first attempts after d, the others at once.
func slowFirstBy(d time.Duration) func(got, int) answer {
	return func(g got, _ int) answer {
		if g.Kind == "first" {
			return answer{status: 200, delay: d, loadQ: -1}
		}
		return answer{status: 200, loadQ: -1}
	}
}

// hedgeLab hedges after 10 ms, with the default 5 ms hop and no jitter.
func hedgeLab(t *testing.T, set map[string]string) *labfile.Lab {
	if set == nil {
		set = map[string]string{}
	}
	set["clients.hedge"] = "10ms"
	set["clients.rate"] = "100"
	set["network.jitter"] = "0s"
	return testLab(t, set)
}

// checkCancels checks that every hedged request cancelled its first
// attempt (the loser) once, at the admin of the endpoint that got it, at
// least a hop after the winning hedge reached its endpoint. None may be
// missing: the run waits for the last ones, still on their hop, before it
// closes its connections.
func checkCancels(t *testing.T, hedges uint64, byAdmin map[*adminRec]*fake) {
	t.Helper()
	type sent struct {
		at time.Time
		ep string
	}
	firsts, hedged := map[uint64]sent{}, map[uint64]sent{}
	for _, f := range byAdmin {
		for _, g := range f.got() {
			switch g.Kind {
			case "first":
				firsts[g.Seq] = sent{g.At, f.name}
			case "hedge":
				hedged[g.Seq] = sent{g.At, f.name}
			}
		}
	}
	cancelled := map[uint64]bool{}
	for a, f := range byAdmin {
		for _, p := range a.got() {
			first, hedge := firsts[p.ID], hedged[p.ID]
			switch {
			case p.Path != "POST /admin/cancel" || p.Attempt != "first":
				t.Errorf("%s got %s %+v, want POST /admin/cancel of a first attempt", a.name, p.Path, p)
			case cancelled[p.ID]:
				t.Errorf("request %d cancelled twice", p.ID)
			case first.ep != f.name:
				t.Errorf("%s got the cancellation of request %d, whose first attempt went to %q", a.name, p.ID, first.ep)
			case hedge.ep == "" || p.At.Sub(hedge.at) < 5*time.Millisecond:
				t.Errorf("request %d cancelled %v after its hedge reached %q, want at least the 5ms hop", p.ID, p.At.Sub(hedge.at), hedge.ep)
			}
			cancelled[p.ID] = true
		}
	}
	if uint64(len(hedged)) != hedges || uint64(len(cancelled)) != hedges {
		t.Fatalf("%d cancellations for %d hedges (%d seen) that all won", len(cancelled), hedges, len(hedged))
	}
}

// Balancer mode: the loser's cancellation goes to the admin address of the
// balancer it was sent to (clients are spread over two), naming the
// request and the loser's attempt kind, presenting the lab's token.
func TestCancelPostsToTheLosersBalancer(t *testing.T) {
	const token = "lab-token-0123456789abcdef"
	b1, b2 := newFake(t, "b1", false, slowFirst), newFake(t, "b2", false, slowFirst)
	a1, a2 := newAdminRec(t, "adm1"), newAdminRec(t, "adm2")
	target := Target{Name: "hedged", URLs: []string{"http://" + b1.addr() + "/|http://" + b2.addr() + "/"}}
	target.URLs = strings.Split(target.URLs[0], "|")
	rep, _ := runLive(t, Config{Lab: hedgeLab(t, nil), Targets: []Target{target},
		Admins: map[string]string{b1.addr(): a1.addr(), b2.addr(): a2.addr()},
		Dial:   dialAll([]*fake{b1, b2}, a1, a2), Token: token})
	run := rep.Runs[0]
	checkAccounted(t, run)
	if run.Hedges != run.Requests || len(b1.got()) == 0 || len(b2.got()) == 0 {
		t.Fatalf("want every request hedged, on both balancers: %s (b1 %d, b2 %d)", describe(run), len(b1.got()), len(b2.got()))
	}
	checkCancels(t, run.Hedges, map[*adminRec]*fake{a1: b1, a2: b2})
	for _, p := range append(a1.got(), a2.got()...) {
		if p.Auth != "Bearer "+token {
			t.Fatalf("a cancellation presented %q, want the lab's token", p.Auth)
		}
	}
}

// Client-side mode: the hedge goes to the other server, and the loser's
// cancellation to the admin address of the server that holds the loser.
func TestCancelPostsToTheLosersServer(t *testing.T) {
	lab := hedgeLab(t, map[string]string{"clients.algorithm": "round-robin"})
	s1, s2 := newFake(t, "s1", false, slowFirst), newFake(t, "s2", false, slowFirst)
	a1, a2 := newAdminRec(t, "adm1"), newAdminRec(t, "adm2")
	rep, _ := runLive(t, Config{Lab: lab, Servers: []Backend{{"s1", s1.addr()}, {"s2", s2.addr()}},
		Admins: map[string]string{s1.addr(): a1.addr(), s2.addr(): a2.addr()},
		Dial:   dialAll([]*fake{s1, s2}, a1, a2)})
	run := rep.Runs[0]
	checkAccounted(t, run)
	if run.Hedges != run.Requests {
		t.Fatalf("want every request hedged: %s", describe(run))
	}
	checkCancels(t, run.Hedges, map[*adminRec]*fake{a1: s1, a2: s2})
}

// Without admin addresses nothing is posted anywhere: the endpoints get
// the attempts and nothing else, and the losers run to their (wasted) end.
func TestNoAdminsNoCancel(t *testing.T) {
	b1 := newFake(t, "b1", false, slowFirstBy(150*time.Millisecond)) // the losers answer before the run ends
	a1 := newAdminRec(t, "adm1")
	rep, _ := runLive(t, Config{Lab: hedgeLab(t, nil), Targets: []Target{toFakes("hedged", b1)},
		Dial: dialAll([]*fake{b1}, a1)})
	run := rep.Runs[0]
	checkAccounted(t, run)
	if run.Hedges == 0 || run.Wasted == 0 {
		t.Errorf("want requests hedged and abandoned first attempts wasted: %s", describe(run))
	}
	if n := len(a1.got()); n != 0 {
		t.Errorf("the admin API got %d requests without --admins", n)
	}
	for _, g := range b1.got() {
		if g.Kind != "first" && g.Kind != "hedge" {
			t.Errorf("the balancer got a request that is not an attempt: %+v", g)
		}
	}
	if n := uint64(len(b1.got())); n != run.Attempts {
		t.Errorf("the balancer got %d requests for %d attempts", n, run.Attempts)
	}
}

func TestAdminsConfig(t *testing.T) {
	m, err := ParseAdmins("127.0.0.1:8080=127.0.0.1:9080, http://127.0.0.1:8081/=127.0.0.1:9081")
	if err != nil || len(m) != 2 || m["127.0.0.1:8080"] != "127.0.0.1:9080" || m["127.0.0.1:8081"] != "127.0.0.1:9081" {
		t.Fatalf("ParseAdmins: %v, %v", m, err)
	}
	for _, bad := range []string{"", "127.0.0.1:8080", "127.0.0.1:8080=nowhere", "x=127.0.0.1:1",
		"127.0.0.1:1=127.0.0.1:2,127.0.0.1:1=127.0.0.1:3"} {
		if _, err := ParseAdmins(bad); err == nil {
			t.Errorf("ParseAdmins(%q) accepted", bad)
		}
	}
	lab := testLab(t, nil)
	cfg := Config{Lab: lab, Targets: []Target{{URLs: []string{"http://127.0.0.1:8080/"}}}}
	cfg.Admins = map[string]string{"127.0.0.1:8080": "127.0.0.1:9080"}
	if _, err := New(cfg); err != nil {
		t.Errorf("admins of the target: %v", err)
	}
	cfg.Admins = map[string]string{"127.0.0.1:8081": "127.0.0.1:9080"}
	if _, err := New(cfg); err == nil || !strings.Contains(err.Error(), "admins: 127.0.0.1:8081") {
		t.Errorf("admins of no target: err = %v", err)
	}
	cfg = Config{Lab: lab, Servers: []Backend{{"s1", "127.0.0.1:8081"}}, Admins: map[string]string{"127.0.0.1:8081": "127.0.0.1:9081"}}
	if _, err := New(cfg); err != nil {
		t.Errorf("admins of a server: %v", err)
	}
}
