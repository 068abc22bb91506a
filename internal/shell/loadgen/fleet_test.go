package loadgen

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/shell/discover"
	"github.com/lblab/lblab/internal/shell/discover/dnstest"
)

// waitFor polls cond every 10 ms for up to 3 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(3 * time.Second); !cond(); {
		if time.Now().After(end) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// startRun runs cfg on a goroutine; the report arrives on the channel.
func startRun(t *testing.T, cfg Config) (*Runner, chan *report.Report) {
	t.Helper()
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan *report.Report, 1)
	go func() {
		rep, err := r.Run(context.Background())
		if err != nil {
			t.Error(err)
		}
		done <- rep
	}()
	return r, done
}

func logHas(run report.Run, text string) bool {
	return slices.ContainsFunc(run.Log, func(l report.LogLine) bool { return strings.Contains(l.Text, text) })
}

// Client-side, the loadgen holds the servers and takes the lb's admin calls
// to change them: an added server gets traffic, a removed one none after
// its attempts out have answered, and a name can come back as a new server.
func TestClientSideServersAddedAndRemovedLive(t *testing.T) {
	lab := testLab(t, map[string]string{"clients.algorithm": "round-robin", "clients.rate": "400", "duration": "1500ms"})
	s1 := newFake(t, "s1", false, okAfterWork)
	s2 := newFake(t, "s2", false, okAfterWork)
	r, done := startRun(t, Config{Lab: lab, Servers: []Backend{{"s1", s1.addr()}}, Dial: dialer(s1, s2)})
	h := r.Admin()
	waitFor(t, "s1's first requests", func() bool { return len(s1.got()) >= 10 })

	for _, c := range []struct {
		method, path, body string
		code               int
		field              string
	}{
		{"POST", "/admin/backends", `{"name": "s1", "addr": "` + s2.addr() + `"}`, 409, ""},
		{"POST", "/admin/backends", `{"addr": "` + s2.addr() + `"}`, 400, "name"},
		{"POST", "/admin/backends", `{"name": "s9", "addr": "nowhere"}`, 400, "addr"},
		{"POST", "/admin/backends", `{"name": "s9", "addr": "s9:80", "admin": "x"}`, 400, "admin"},
		{"POST", "/admin/backends", `{"name": "s9", "addr": "s9:80", "extra": 1}`, 400, ""},
		{"DELETE", "/admin/backends/s9", "", 404, ""},
	} {
		code, body := call(t, h, c.method, c.path, c.body)
		if code != c.code || body["error"] == "" || c.field != "" && body["field"] != c.field {
			t.Errorf("%s %s %s: %d %v, want %d field %q", c.method, c.path, c.body, code, body, c.code, c.field)
		}
	}

	if code, body := call(t, h, "POST", "/admin/backends", `{"name": "s2", "addr": "`+s2.addr()+`"}`); code != 200 || body["name"] != "s2" {
		t.Fatalf("add s2: %d %v", code, body)
	}
	waitFor(t, "traffic on the added server", func() bool { return len(s2.got()) >= 20 })
	if code, body := call(t, h, "DELETE", "/admin/backends/s2", ""); code != 200 || body["removed"] != "s2" {
		t.Fatalf("remove s2: %d %v", code, body)
	}
	atRemoval := len(s2.got())
	n1 := len(s1.got())
	waitFor(t, "traffic on s1 after the removal", func() bool { return len(s1.got()) >= n1+40 })
	if late := len(s2.got()) - atRemoval; late > 5 { // at most the attempts already on their way
		t.Errorf("s2 got %d requests after its removal", late)
	}
	if code, _ := call(t, h, "POST", "/admin/backends", `{"name": "s2", "addr": "`+s2.addr()+`"}`); code != 200 {
		t.Errorf("s2 could not come back: %d", code)
	}

	run := (<-done).Runs[0]
	checkAccounted(t, run)
	var names []string
	var sent uint64
	for _, s := range run.Servers {
		names = append(names, s.Name)
		sent += s.Sent
	}
	if fmt.Sprint(names) != "[s1 s2 s2]" || sent != run.Attempts {
		t.Errorf("servers %v sent %d of %d attempts", names, sent, run.Attempts)
	}
	if got := run.Servers[1].Sent + run.Servers[2].Sent; got != uint64(len(s2.got())) {
		t.Errorf("the report sent %d to s2, s2 got %d", got, len(s2.got()))
	}
	if !logHas(run, "server s2 added at "+s2.addr()) || !logHas(run, "server s2 removed") {
		t.Errorf("log %v", run.Log)
	}
}

// A loadgen that sends to balancers has no servers to change.
func TestBalancerTargetsRefuseServerChanges(t *testing.T) {
	f := newFake(t, "b1", false, okAfterWork)
	r, done := startRun(t, Config{Lab: testLab(t, map[string]string{"duration": "300ms"}), Targets: []Target{toFakes("lb", f)}, Dial: dialer(f)})
	h := r.Admin()
	if code, body := call(t, h, "POST", "/admin/backends", `{"name": "s9", "addr": "s9:80"}`); code != 409 || !strings.Contains(body["error"].(string), "balancers") {
		t.Errorf("add: %d %v", code, body)
	}
	if code, _ := call(t, h, "DELETE", "/admin/backends/s1", ""); code != 409 {
		t.Errorf("remove: %d", code)
	}
	checkAccounted(t, (<-done).Runs[0])
}

// nameFromAddr names a member after its host, as the fakes are named.
func nameFromAddr(_ context.Context, m discover.Member) (string, error) {
	host, _, err := net.SplitHostPort(m.Addr)
	return host, err
}

// Client-side servers from DNS: the run starts with the name's members,
// a member that appears gets traffic, one that vanishes is taken out.
func TestClientSideServersFromDNS(t *testing.T) {
	lab := testLab(t, map[string]string{"clients.algorithm": "round-robin", "clients.rate": "400", "duration": "1500ms"})
	s1 := newFake(t, "s1", false, okAfterWork)
	s2 := newFake(t, "s2", false, okAfterWork)
	s3 := newFake(t, "s3", false, okAfterWork)
	dns := dnstest.New("s1", "s2") // the in-memory fakes are dialed by name
	disc := &discover.Config{Host: "backend", Port: 80, AdminPort: 90, Every: 100 * time.Millisecond, Resolver: dns, Identify: nameFromAddr}
	r, done := startRun(t, Config{Lab: lab, Discover: disc, Dial: dialer(s1, s2, s3)})
	waitFor(t, "the first members' traffic", func() bool { return len(s1.got()) >= 10 && len(s2.got()) >= 10 })
	dns.Set("s1", "s3")
	waitFor(t, "the new member's traffic", func() bool { return len(s3.got()) >= 20 })
	waitFor(t, "s2's removal", func() bool {
		_, body := call(t, r.Admin(), "GET", "/admin/state", "")
		target := body["targets"].([]any)[0].(map[string]any)
		return fmt.Sprint(target["servers"]) == "[s1 s3]" && body["discovery"] != nil
	})
	atRemoval := len(s2.got())
	n3 := len(s3.got())
	waitFor(t, "traffic on s3 after the removal", func() bool { return len(s3.got()) >= n3+40 })
	if late := len(s2.got()) - atRemoval; late > 5 {
		t.Errorf("s2 got %d requests after it left the name", late)
	}

	run := (<-done).Runs[0]
	checkAccounted(t, run)
	if len(run.Servers) != 3 || run.Servers[2].Name != "s3" {
		t.Fatalf("servers %+v", run.Servers)
	}
	for _, l := range run.Log[:2] { // the first round ran before the first request
		if l.T != 0 || !strings.HasPrefix(l.Text, "server s") {
			t.Errorf("first log lines %v", run.Log)
		}
	}
	if !logHas(run, "server s3 added at s3:80") || !logHas(run, "server s2 removed") {
		t.Errorf("log %v", run.Log)
	}
	if got := r.l.cfg.Admins["s3:80"]; got != "s3:90" {
		t.Errorf("s3's hedge losers are cancelled at %q, want s3:90", got)
	}
}

// A run whose name has no member that answers is refused before it starts.
func TestServersFromDNSRefusesAnEmptyFleet(t *testing.T) {
	disc := &discover.Config{Host: "backend", Port: 80, Resolver: dnstest.New(), Identify: nameFromAddr}
	r, err := New(Config{Lab: testLab(t, map[string]string{"clients.algorithm": "p2c"}), Discover: disc})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "no server to send to") {
		t.Errorf("err = %v", err)
	}
}
