package labfile_test

import (
	"strings"
	"testing"
)

// jiq's servers announce themselves to the balancer tier: clients that
// balance themselves may not use it, and the refusal says why; the tier
// takes it with its settings, checked.
func TestIdleQueueAlgorithmIsTheTiers(t *testing.T) {
	for name, src := range map[string]string{
		"clients": "clients: {algorithm: jiq}\n",
		"compare": "clients: {algorithm: p2c}\ncompare: [{name: j, algorithm: jiq}]\n",
		"set":     "clients: {algorithm: p2c}\nevents: [{at: 1s, action: set, set: {clients.algorithm: jiq}}]\n",
	} {
		if err := parseErr(t, "name: x\n"+src); !strings.Contains(err, "clients.algorithm") || !strings.Contains(err, "announce to the balancer tier") {
			t.Errorf("%s: %q, want clients.algorithm refused: servers announce to the balancer tier", name, err)
		}
	}
	lab := mustParse(t, "name: x\nbalancers: {algorithm: jiq, count: 4, jiq: {join: shortest}}\n")
	if j := lab.Balancers.JIQ; j.Join != "shortest" || j.Choices != 2 {
		t.Errorf("jiq's settings %+v, want join shortest and the default 2 choices", j)
	}
	if def := mustParse(t, "name: x\n").Balancers.JIQ; def.Join != "random" || def.Choices != 2 {
		t.Errorf("jiq's defaults %+v", def)
	}
	for src, want := range map[string]string{
		"balancers: {jiq: {join: nearest}}\n": "balancers.jiq.join",
		"balancers: {jiq: {choices: 17}}\n":   "balancers.jiq.choices",
	} {
		if err := parseErr(t, "name: x\n"+src); !strings.Contains(err, want) {
			t.Errorf("%q: %q, want %s refused", src, err, want)
		}
	}
}
