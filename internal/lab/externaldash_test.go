package lab

import (
	"bufio"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/lblab/lblab/internal/lab/dash"
)

// proxyCard is the snapshot's external balancer of kind (nil: none).
func proxyCard(s dash.Snapshot, kind string) *dash.BalancerView {
	for i, b := range s.Balancers {
		if b.Proxy != nil && b.Proxy.Kind == kind {
			return &s.Balancers[i]
		}
	}
	return nil
}

// haproxyCommand sends one command to HAProxy's runtime API (its stats
// socket in the proxy's directory) and returns the answer.
func haproxyCommand(t *testing.T, sock, cmd string) string {
	t.Helper()
	c, err := net.DialTimeout("unix", sock, 2*time.Second)
	if err != nil {
		t.Fatalf("HAProxy's stats socket: %v", err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := fmt.Fprintf(c, "%s\n", cmd); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	sc := bufio.NewScanner(c)
	for sc.Scan() {
		out.WriteString(sc.Text() + "\n")
	}
	return out.String()
}

// The live dashboard of lab up through HAProxy has the proxy's balancer
// card: its algorithm and the requests it sent, and per server what
// HAProxy has in flight, how many it sent (its stats CSV's stot, which
// grows as the run goes) and its status. A server HAProxy puts in
// maintenance (MAINT, through its runtime API) shows as an open breaker,
// gets no more requests, and comes back closed when enabled again.
func TestExternalDashboardHAProxy(t *testing.T) {
	proxyTool(t, "haproxy")
	lab := smallLab(t, "least-outstanding", 3600)
	if err := lab.Apply("balancers.kind", "haproxy"); err != nil {
		t.Fatal(err)
	}
	var dir string
	addr := startUp(t, lab, func(o *UpOptions) { dir = o.Dir })
	sent := func(s dash.Snapshot, name string) uint64 {
		if b := proxyCard(s, "haproxy"); b != nil {
			for _, ps := range b.Proxy.Servers {
				if ps.Name == name && ps.Sent != nil {
					return *ps.Sent
				}
			}
		}
		return 0
	}
	s := waitSnapshot(t, addr, 20*time.Second, "HAProxy's card with requests sent to every server", func(s dash.Snapshot) bool {
		b := proxyCard(s, "haproxy")
		return b != nil && len(b.Proxy.Servers) == 3 && sent(s, "s1") > 20 && sent(s, "s2") > 20 && sent(s, "s3") > 20 && len(s.Series.T) >= 8
	})
	b := proxyCard(s, "haproxy")
	if b.Algorithm != "least-outstanding" || b.Proxy.Directive != "balance leastconn" || b.Picks == 0 || b.Error != "" || b.Settings != nil {
		t.Errorf("HAProxy's card: %+v, proxy %+v", b, b.Proxy)
	}
	if len(s.Balancers) != 1 || s.Settings["algorithm"] != "least-outstanding" {
		t.Errorf("%d balancers, settings %+v", len(s.Balancers), s.Settings)
	}
	for _, sv := range s.Servers {
		if len(sv.Views) != 1 || sv.Views[0].Breaker != "closed" || sv.Views[0].Picks == 0 || sv.Breaker != "closed" {
			t.Errorf("%s: HAProxy's view %+v, breaker %s", sv.Name, sv.Views, sv.Breaker)
		}
		if float64(sv.Share) < 0.15 || float64(sv.Share) > 0.5 { // three equal servers: a third each
			t.Errorf("%s: share %v", sv.Name, sv.Share)
		}
	}
	for _, ps := range b.Proxy.Servers {
		if ps.Status != "UP" && ps.Status != "no check" {
			t.Errorf("HAProxy says %s is %q", ps.Name, ps.Status)
		}
	}
	later := waitSnapshot(t, addr, 10*time.Second, "HAProxy's counts growing", func(n dash.Snapshot) bool {
		return sent(n, "s1") > sent(s, "s1")+20
	})
	if later.T <= s.T {
		t.Errorf("the snapshots did not move on: %v then %v", s.T, later.T)
	}

	sock := filepath.Join(dir, "haproxy", "haproxy.sock")
	if out := haproxyCommand(t, sock, "disable server servers/s2"); strings.TrimSpace(out) != "" {
		t.Fatalf("disable server: %q", out)
	}
	open := waitSnapshot(t, addr, 10*time.Second, "s2 in maintenance shown as an open breaker", func(n dash.Snapshot) bool {
		for _, sv := range n.Servers {
			if sv.Name == "s2" {
				return sv.Breaker == "open" && len(sv.Badges) > 0 && sv.Badges[len(sv.Badges)-1].Text == "OPEN"
			}
		}
		return false
	})
	if ps := proxyCard(open, "haproxy").Proxy.Servers[1]; ps.Name != "s2" || !strings.HasPrefix(ps.Status, "MAINT") {
		t.Errorf("s2 as HAProxy's card shows it: %+v", ps)
	}
	// in maintenance s2 gets nothing: its share over the last 2 s falls to 0
	gone := waitSnapshot(t, addr, 10*time.Second, "s2's share gone", func(n dash.Snapshot) bool {
		return float64(n.Servers[1].Share) == 0 && n.Servers[1].Breaker == "open"
	})
	if a, c := sent(gone, "s2"), sent(waitSnapshot(t, addr, 5*time.Second, "a second later", func(n dash.Snapshot) bool { return n.T > gone.T+1 }), "s2"); c != a {
		t.Errorf("HAProxy sent s2 %d more requests in maintenance", c-a)
	}
	haproxyCommand(t, sock, "enable server servers/s2")
	waitSnapshot(t, addr, 10*time.Second, "s2 back, closed, with a share", func(n dash.Snapshot) bool {
		return n.Servers[1].Breaker == "closed" && float64(n.Servers[1].Share) > 0.1
	})
}

// Through nginx and Caddy the card says what their stats give: nginx's
// active connections and requests handled, and why there are no
// per-server figures; Caddy's requests in flight per upstream, named as
// the lab names the servers.
func TestExternalDashboardNginxCaddy(t *testing.T) {
	for _, kind := range []string{"nginx", "caddy"} {
		t.Run(kind, func(t *testing.T) {
			proxyTool(t, kind)
			lab := smallLab(t, "least-outstanding", 3600)
			if err := lab.Apply("balancers.kind", kind); err != nil {
				t.Fatal(err)
			}
			addr := startUp(t, lab)
			s := waitSnapshot(t, addr, 20*time.Second, kind+"'s card", func(s dash.Snapshot) bool {
				b := proxyCard(s, kind)
				return b != nil && b.Picks > 100 && len(s.Series.T) >= 8
			})
			b := proxyCard(s, kind)
			if b.Error != "" || b.Proxy.Source == "" || b.Algorithm != "least-outstanding" {
				t.Errorf("%s's card: %+v, proxy %+v", kind, b, b.Proxy)
			}
			for _, sv := range s.Servers {
				if float64(sv.Share) < 0.15 || float64(sv.Share) > 0.5 {
					t.Errorf("%s: share %v (from the backends' counts)", sv.Name, sv.Share)
				}
			}
			switch kind {
			case "nginx":
				if b.Proxy.Active == nil || *b.Proxy.Active < 1 || b.Proxy.Requests == nil || *b.Proxy.Requests < 100 ||
					len(b.Proxy.Servers) != 0 || !strings.Contains(b.Proxy.Note, "no per-server figures") || len(s.Servers[0].Views) != 0 {
					t.Errorf("nginx's card: %+v; s1's views %+v", b.Proxy, s.Servers[0].Views)
				}
			case "caddy":
				if b.Proxy.Active != nil || len(b.Proxy.Servers) != 3 || b.Proxy.Servers[0].Name != "s1" || len(s.Servers[0].Views) != 1 {
					t.Errorf("Caddy's card: %+v; s1's views %+v", b.Proxy, s.Servers[0].Views)
				}
			}
		})
	}
}

// The page draws HAProxy's card as it draws lb's: a balancer node named
// after the proxy, its inspector with what HAProxy's stats say of each
// server, and HAProxy's in-flight count on every server card.
func TestExternalDashboardInBrowser(t *testing.T) {
	proxyTool(t, "haproxy")
	b := newBrowser(t)
	lab := smallLab(t, "least-outstanding", 3600)
	if err := lab.Apply("balancers.kind", "haproxy"); err != nil {
		t.Fatal(err)
	}
	addr := startUp(t, lab)
	b.do(t, 60*time.Second, chromedp.Navigate("http://"+addr+"/"))
	b.wait(t, 30*time.Second, `document.querySelectorAll('#diagram .server').length === 3 && !!document.querySelector('#diagram .node.balancer.proxy')`)
	if text := eval[string](t, b, `document.querySelector('#diagram .node.balancer.proxy').textContent`); !strings.HasPrefix(text, "HAProxy\nleast-outstanding") {
		t.Errorf("the proxy's node says %q", text)
	}
	b.wait(t, 10*time.Second, `[...document.querySelectorAll('#diagram .server .srv-line')].every(e => / out \d+/.test(e.textContent))`)
	b.do(t, 5*time.Second, click(`#diagram .node.balancer`))
	b.wait(t, 5*time.Second, `document.querySelector('#inspector').dataset.kind === 'balancer' && document.querySelector('#inspector').textContent.includes('stats CSV') && /s2.*in flight.*sent.*(UP|no check)/.test(document.querySelector('#inspector .details').textContent)`)
	b.screenshot(t, "dashboard-haproxy")
	if errs := b.jsErrors(); len(errs) > 0 {
		t.Errorf("JavaScript errors in the dashboard:\n%v", errs)
	}
}
