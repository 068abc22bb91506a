package sim

import (
	"testing"
	"time"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/labfile/labyaml"
)

// add-server with a speed and workers adds a server of its own: before
// the event there are three, after it s4 runs at speed 2 with 4 workers,
// the balancer weighs it 2 and it serves; a plain add-server after it is
// like the last server (s4).
func TestAddServerWithSpeedAndWorkers(t *testing.T) {
	lab := parseLab(t, `
name: add-fast
seed: 1
duration: 6s
clients: {rate: 200, work: {dist: exponential, mean: 8ms}}
balancers: {algorithm: round-robin}
servers: [{count: 3, workers: 1}]
events:
  - {at: 2s, action: add-server, speed: 2, workers: 4}
  - {at: 4s, action: add-server}
`)
	if got := lab.Events[0].String(); got != "add-server s4 speed=2 workers=4" {
		t.Errorf("the event reads %q", got)
	}
	if got := lab.Events[1].String(); got != "add-server s5" {
		t.Errorf("the plain event reads %q", got)
	}
	s, err := NewSession(lab, SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AdvanceTo(clock.Instant(1900 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	if n := len(s.State().Servers); n != 3 {
		t.Fatalf("%d servers before the event, want 3", n)
	}
	if err := s.AdvanceTo(clock.Instant(3900 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	st := s.State()
	s4 := st.Servers[3]
	if len(st.Servers) != 4 || s4.Spec.Name != "s4" || s4.Speed != 2 || s4.Workers != 4 || s4.Completed == 0 {
		t.Fatalf("after the event: %d servers, s4 %q at speed %g with %d workers, %d done", len(st.Servers), s4.Spec.Name, s4.Speed, s4.Workers, s4.Completed)
	}
	if w := st.Balancers[0].Servers[3].Weight; w != 2 {
		t.Errorf("the balancer weighs s4 %g, want its speed 2", w)
	}
	if err := s.AdvanceTo(clock.Instant(5 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if s5 := s.State().Servers[4]; s5.Speed != 2 || s5.Workers != 4 {
		t.Errorf("the plain add-server after it: speed %g, %d workers; want the last server's (s4's)", s5.Speed, s5.Workers)
	}
	for _, bad := range []string{"{at: 2s, action: add-server, speed: 200}", "{at: 2s, action: add-server, workers: -1}", "{at: 2s, action: kill, target: s1, workers: 2}"} {
		if _, err := labyaml.Parse("bad.yaml", []byte(`
name: bad
duration: 6s
servers: [{count: 3}]
events: [`+bad+`]
`)); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}
