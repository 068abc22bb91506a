package sim

import (
	"testing"

	"github.com/lblab/lblab/internal/labfile/labyaml"
)

// A balancer that has answered 504 stays answered: the server's late reply,
// produced before the 504 reaches the client, must not turn the client's
// answer into a success. Here every attempt reaches its server at 10 ms,
// the balancer gives up at 25 ms, the server replies at 27 ms and the 504
// reaches the client at 30 ms, before the reply gets back to the balancer
// at 32 ms: every request times out, and every reply is wasted work.
func TestLateReplyDoesNotUndoA504(t *testing.T) {
	lab, err := labyaml.Parse("late.yaml", []byte(`
duration: 2s
network: {hop: 5ms}
clients: {rate: 20, work: {dist: constant, mean: 17ms}}
balancers: {algorithm: round-robin, timeout: 20ms}
servers: [{count: 2, workers: 100}]
`))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(lab, Options{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Run
	if r.Requests == 0 || r.Succeeded != 0 || r.Timeouts != r.Requests {
		t.Fatalf("%d requests: %d succeeded, %d timeouts; want every one timed out at the balancer", r.Requests, r.Succeeded, r.Timeouts)
	}
	if r.Wasted != r.Requests {
		t.Errorf("%d replies wasted, want all %d", r.Wasted, r.Requests)
	}
}
