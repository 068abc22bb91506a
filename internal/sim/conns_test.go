package sim

import (
	"strings"
	"testing"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/labfile/labyaml"
)

func checkedRun(t *testing.T, lab *labfile.Lab) Result {
	t.Helper()
	res, err := Run(lab, Options{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// At max_conns 1 requests queue for the one connection of their pair, on
// the clients' leg and the balancer's; a balancer timeout closes the
// connection it gave up on (or takes its attempt out of line), a killed
// server's connections die with it, and every request still ends once
// (the invariant checks run throughout).
func TestConnectionLimitTimeoutsAndKills(t *testing.T) {
	lab := parseLab(t, `
duration: 5s
network: {hop: 2ms, handshake: 1, keepalive: 500ms, max_conns: 1}
clients: {rate: 600, count: 4, timeout: 300ms, retries: 1, hedge: 15ms, work: {dist: exponential, mean: 8ms}}
balancers: {count: 2, algorithm: random, timeout: 30ms}
servers: [{count: 3, workers: 2}]
events:
  - {at: 2s, action: kill, target: s2}
  - {at: 3s, action: restart, target: s2}
`)
	run := checkedRun(t, lab).Run
	c := run.Connections
	if c == nil || c.Waits == 0 || c.ByBalancers == 0 || c.ByClients == 0 {
		t.Fatalf("connections %+v: want waits at max_conns 1 and handshakes on both legs", c)
	}
	var toServers uint64
	for _, s := range run.Servers {
		toServers += s.Connections
	}
	if toServers != c.ByBalancers {
		t.Fatalf("servers counted %d connections, the balancers opened %d", toServers, c.ByBalancers)
	}

	// The same with clients that balance themselves (and hedge: a hedge
	// waiting for a connection when its sibling wins leaves the line).
	lab.Clients.Algorithm, lab.Clients.Sticky = "p2c", 5
	run = checkedRun(t, lab).Run
	c = run.Connections
	if c.Waits == 0 || c.ByBalancers != 0 {
		t.Fatalf("client-side: connections %+v; want waits and no balancer", c)
	}
	toServers = 0
	for _, s := range run.Servers {
		toServers += s.Connections
	}
	if toServers != c.ByClients {
		t.Fatalf("client-side: servers counted %d connections, the clients opened %d", toServers, c.ByClients)
	}
}

// Without a limit nobody waits, and with keepalive 0 every attempt pays.
func TestKeepaliveZeroPaysEveryAttempt(t *testing.T) {
	lab := parseLab(t, `
duration: 2s
network: {handshake: 3ms, keepalive: 0}
clients: {rate: 200, count: 10}
servers: [{count: 2, workers: 4}]
`)
	run := checkedRun(t, lab).Run
	c := run.Connections
	// Each attempt opens a client connection to the balancer and the
	// balancer one to the server: two handshakes of 3 ms each.
	if c.Waits != 0 || c.ByClients != run.Attempts || c.ByBalancers != run.Attempts || c.PerRequestMs != 6 {
		t.Fatalf("connections %+v over %d attempts; want two 3 ms handshakes per attempt", c, run.Attempts)
	}
}

// The connection model is fixed for a run: the lab file refuses a script
// that changes it, at the set entry (labfile.FixedAtRunTime), instead of
// the run half applying it.
func TestConnectionSettingsFixedForARun(t *testing.T) {
	_, err := labyaml.Parse("conns.yaml", []byte(`
duration: 1s
network: {handshake: 1}
events:
  - {at: 500ms, action: set, set: {network.max_conns: "2"}}
`))
	if err == nil || !strings.Contains(err.Error(), "conns.yaml:5:") || !strings.Contains(err.Error(), "set.network.max_conns: is fixed for a run (") {
		t.Fatalf("%v; want the set refused at conns.yaml:5, fixed for a run", err)
	}
}
