package discover

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/lblab/lblab/internal/shell/discover/dnstest"
)

// fakeFleet records the calls; refuse makes Add fail for a name.
type fakeFleet struct {
	members map[string]Member
	log     []string
	refuse  map[string]bool
}

func (f *fakeFleet) Add(m Member) error {
	if f.refuse[m.Name] {
		return fmt.Errorf("refused %s", m.Name)
	}
	f.members[m.Name] = m
	f.log = append(f.log, "+"+m.Name)
	return nil
}

func (f *fakeFleet) Remove(name string) {
	delete(f.members, name)
	f.log = append(f.log, "-"+name)
}

// names maps IPs to the names their processes give; a missing IP does not answer.
type names struct {
	mu sync.Mutex
	m  map[string]string
}

func (n *names) set(ip, name string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.m[ip] = name
}

func (n *names) identify(_ context.Context, m Member) (string, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	ip, _, _ := net.SplitHostPort(m.Admin)
	if name, ok := n.m[ip]; ok {
		return name, nil
	}
	return "", errors.New("connection refused")
}

func setup(t *testing.T) (*Watcher, *dnstest.Records, *fakeFleet, *names) {
	t.Helper()
	dns := dnstest.New()
	fl := &fakeFleet{members: map[string]Member{}, refuse: map[string]bool{}}
	nm := &names{m: map[string]string{}}
	w, err := New(Config{Host: "backend", Port: 9001, AdminPort: 9100, Resolver: dns, Identify: nm.identify}, fl)
	if err != nil {
		t.Fatal(err)
	}
	return w, dns, fl, nm
}

func sortedMembers(fl *fakeFleet) []string {
	var out []string
	for name, m := range fl.members {
		out = append(out, name+"@"+m.Addr+"/"+m.Admin)
	}
	slices.Sort(out)
	return out
}

func TestRoundAddsAndRemoves(t *testing.T) {
	w, dns, fl, nm := setup(t)
	for i := 1; i <= 5; i++ {
		nm.set(fmt.Sprintf("10.0.0.%d", i), fmt.Sprintf("b%d", i))
	}
	dns.Set("10.0.0.1", "10.0.0.2", "10.0.0.3")
	if err := w.Round(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := []string{"b1@10.0.0.1:9001/10.0.0.1:9100", "b2@10.0.0.2:9001/10.0.0.2:9100", "b3@10.0.0.3:9001/10.0.0.3:9100"}
	if got := sortedMembers(fl); !slices.Equal(got, want) {
		t.Fatalf("after the first round: %v, want %v", got, want)
	}

	dns.Set("10.0.0.2", "10.0.0.3", "10.0.0.4", "10.0.0.5") // scale: 1 gone, 4 and 5 new
	round := func() {
		t.Helper()
		if err := w.Round(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	round()
	if got := strings.Join(fl.log, " "); got != "+b1 +b2 +b3 +b4 +b5" {
		t.Errorf("after one round without b1: calls %s (b1 goes after two)", got)
	}
	round()
	if got := strings.Join(fl.log, " "); got != "+b1 +b2 +b3 +b4 +b5 -b1" {
		t.Errorf("after two rounds without b1: calls %s", got)
	}
	if st := w.Status(); st.Rounds != 3 || st.Members != 4 || st.Error != "" || st.Name != "backend:9001" {
		t.Errorf("status %+v", st)
	}
	dns.Set() // scaled to zero: NXDOMAIN, twice
	round()
	round()
	if len(fl.members) != 0 {
		t.Errorf("two NXDOMAIN answers left %v", sortedMembers(fl))
	}
}

// One resolution that misses members (an NXDOMAIN out of a timed-out A
// query under load) removes nothing; the next full answer keeps them.
func TestRoundToleratesOneMiss(t *testing.T) {
	w, dns, fl, nm := setup(t)
	nm.set("10.0.0.1", "b1")
	nm.set("10.0.0.2", "b2")
	for _, records := range [][]string{{"10.0.0.1", "10.0.0.2"}, nil, {"10.0.0.1", "10.0.0.2"}, {"10.0.0.2"}, {"10.0.0.1", "10.0.0.2"}} {
		dns.Set(records...)
		if err := w.Round(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if got := strings.Join(fl.log, " "); got != "+b1 +b2" {
		t.Errorf("calls %s: a single miss must not remove a member", got)
	}
}

// A resolution that fails (not NXDOMAIN) must not empty the fleet.
func TestRoundKeepsMembersWhenDNSFails(t *testing.T) {
	w, dns, fl, nm := setup(t)
	nm.set("10.0.0.1", "b1")
	dns.Set("10.0.0.1")
	if err := w.Round(context.Background()); err != nil {
		t.Fatal(err)
	}
	dns.Fail(&net.DNSError{Err: "server misbehaving", Name: "backend", IsTemporary: true})
	err := w.Round(context.Background())
	if err == nil || !strings.Contains(err.Error(), "server misbehaving") {
		t.Fatalf("want the resolver's error, got %v", err)
	}
	if len(fl.members) != 1 || !strings.Contains(w.Status().Error, "misbehaving") {
		t.Errorf("members %v, status %+v", sortedMembers(fl), w.Status())
	}
}

// A member that does not tell its name yet is offered again next round;
// one the fleet refuses too.
func TestRoundRetriesUnnamedAndRefused(t *testing.T) {
	w, dns, fl, nm := setup(t)
	dns.Set("10.0.0.1", "10.0.0.2")
	nm.set("10.0.0.1", "b1")
	fl.refuse["b1"] = true
	err := w.Round(context.Background())
	if err == nil || !strings.Contains(err.Error(), "10.0.0.2: connection refused") || !strings.Contains(err.Error(), "refused b1") {
		t.Fatalf("round error %v", err)
	}
	if len(fl.members) != 0 {
		t.Fatalf("added %v", sortedMembers(fl))
	}
	nm.set("10.0.0.2", "b2")
	delete(fl.refuse, "b1")
	if err := w.Round(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := sortedMembers(fl); len(got) != 2 {
		t.Errorf("members %v", got)
	}
}

// An address reused by another process (its name changed) is a removal
// and an addition; a name claimed by two addresses is added once.
func TestRoundNameChanges(t *testing.T) {
	w, dns, fl, nm := setup(t)
	dns.Set("10.0.0.1", "10.0.0.2")
	nm.set("10.0.0.1", "b1")
	nm.set("10.0.0.2", "b1")
	err := w.Round(context.Background())
	if err == nil || !strings.Contains(err.Error(), `name "b1" is already taken`) {
		t.Fatalf("round error %v", err)
	}
	if len(fl.members) != 1 {
		t.Fatalf("members %v", sortedMembers(fl))
	}
	dns.Set("10.0.0.1")
	nm.set("10.0.0.1", "b9")
	if err := w.Round(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(fl.log, " "); got != "+b1 -b1 +b9" {
		t.Errorf("calls %s", got)
	}
}

func TestParseAndCheck(t *testing.T) {
	c, err := Parse("--backends-dns", "backend:9001", false)
	if err != nil || c.Host != "backend" || c.Port != 9001 || c.AdminPort != 0 {
		t.Fatalf("%+v %v", c, err)
	}
	c, err = Parse("--backends-dns", " backend.lblab.svc.cluster.local:9100 ", true)
	if err != nil || c.AdminPort != 9100 || c.Port != 0 {
		t.Fatalf("%+v %v", c, err)
	}
	for _, bad := range []string{"backend", ":9001", "backend:0", "backend:x", "backend:70000"} {
		if _, err := Parse("--backends-dns", bad, false); err == nil || !strings.Contains(err.Error(), "--backends-dns") {
			t.Errorf("%q: want an error naming the flag, got %v", bad, err)
		}
	}
	if _, err := New(Config{Host: "b"}, &fakeFleet{}); err == nil || !strings.HasPrefix(err.Error(), "port:") {
		t.Errorf("no port: %v", err)
	}
	if _, err := New(Config{Host: "b", Port: 1, Every: 10 * 1e6}, &fakeFleet{}); err == nil || !strings.HasPrefix(err.Error(), "every:") {
		t.Errorf("10ms: %v", err)
	}
}

// Identify reads the backend's /healthz; a server without a name in its
// answer is named after its address; a non-200 without a name is an error.
func TestIdentify(t *testing.T) {
	named := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/healthz" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, `{"status":"ok","server":"3f9a0c1b2d4e"}`)
	}))
	defer named.Close()
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") }))
	defer plain.Close()
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(500) }))
	defer broken.Close()
	ctx := context.Background()
	addr := func(s *httptest.Server) string { return strings.TrimPrefix(s.URL, "http://") }

	if n, err := Identify(ctx, Member{Addr: "127.0.0.1:1", Admin: addr(named)}); err != nil || n != "3f9a0c1b2d4e" {
		t.Errorf("admin: %q %v", n, err)
	}
	if n, err := Identify(ctx, Member{Addr: addr(plain)}); err != nil || n != addressName(addr(plain)) || strings.ContainsAny(n, ".:") {
		t.Errorf("plain: %q %v", n, err)
	}
	if _, err := Identify(ctx, Member{Addr: addr(broken)}); err == nil {
		t.Error("a 500 without a name must be an error")
	}
}
