package labfile_test

import (
	"strings"
	"testing"
)

// Prequal probes from the balancer tier: clients that balance themselves
// may not use it, in the lab file, a compare setting, an algorithm event or
// a set event, and each refusal says why at its place; the tier may.
func TestProbingAlgorithmIsTheTiers(t *testing.T) {
	for name, src := range map[string]string{
		"clients": "clients: {algorithm: prequal}\n",
		"compare": "clients: {algorithm: p2c}\ncompare: [{name: pq, algorithm: prequal}]\n",
		"drill":   "clients: {algorithm: p2c}\nevents: [{at: 1s, action: algorithm, algorithm: prequal}]\n",
		"set":     "clients: {algorithm: p2c}\nevents: [{at: 1s, action: set, set: {clients.algorithm: prequal}}]\n",
	} {
		if err := parseErr(t, "name: x\n"+src); !strings.Contains(err, "clients.algorithm") || !strings.Contains(err, "balancer tier") {
			t.Errorf("%s: %q, want clients.algorithm refused: clients send no probes", name, err)
		}
	}
	lab := mustParse(t, "name: x\nbalancers: {algorithm: prequal, prequal: {probe_rate: 1.5, q_rif: 0.6}}\n")
	if p := lab.Balancers.Prequal; p.ProbeRate != 1.5 || p.QRIF != 0.6 || p.PoolSize != 16 || p.MaxAge.String() != "1s" || p.ReuseDelta != 1 {
		t.Errorf("prequal's settings %+v, want the two given and the defaults", p)
	}
}
