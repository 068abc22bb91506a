package lab

import (
	"testing"
	"time"

	"github.com/lblab/lblab/internal/lab/admin"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/shell/state"
)

// connLab is a small lab that models connections over TLS: handshakes of
// one round trip, a keepalive short enough that some connections close
// idle during the run.
func connLab(t *testing.T, clientSide bool) *labfile.Lab {
	t.Helper()
	lab := smallLab(t, "p2c", 2)
	set := [][2]string{{"network.handshake", "1"}, {"network.keepalive", "150ms"}, {"network.tls", "true"},
		{"clients.rate", "80"}, {"clients.count", "8"}, {"balancers.count", "2"}}
	if clientSide {
		set = append(set, [2]string{"clients.algorithm", "p2c"})
	}
	for _, kv := range set {
		if err := lab.Apply(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	return lab
}

// accepted sums the connections the backends accepted.
func accepted(t *testing.T, f *fleet) uint64 {
	t.Helper()
	var n uint64
	for _, p := range f.servers() {
		var st state.Backend
		if err := admin.Call(ctxFor(t, 10*time.Second), p.Ready.Admin, "GET", "/admin/state", nil, &st); err != nil {
			t.Fatal(err)
		}
		n += st.AcceptedConnections
	}
	return n
}

// Live, the processes open a real connection (here over TLS) exactly when
// the model says one is new: the connections the backends accept are the
// handshakes the report counts on the leg that reaches them (the clients'
// when they balance themselves, the balancers' behind balancers), and the
// connections the balancers accept are the clients' handshakes. The
// tolerance is zero: the only known differences are dials that fail (a
// server down: counted, never accepted), and there is none here.
func TestLiveConnectionsAreTheModelsHandshakes(t *testing.T) {
	for _, clientSide := range []bool{true, false} {
		ctx := ctxFor(t, 90*time.Second)
		f, err := startFleet(ctx, connLab(t, clientSide), testOptions(t))
		if err != nil {
			t.Fatal(err)
		}
		run, _ := runLoadgen(t, ctx, f)
		c := run.Connections
		if c == nil || run.Requests < 100 || run.Succeeded != run.Requests {
			f.stop()
			t.Fatalf("client-side %v: %d requests, %d succeeded, connections %+v", clientSide, run.Requests, run.Succeeded, c)
		}
		if clientSide {
			if got := accepted(t, f); got != c.ByClients || got == 0 {
				t.Errorf("client-side: the backends accepted %d connections, the clients' model opened %d", got, c.ByClients)
			}
		} else {
			var opened, lbAccepted uint64
			for _, p := range f.balancers() {
				var st state.LB
				if err := admin.Call(ctx, p.Ready.Admin, "GET", "/admin/state", nil, &st); err != nil || st.Connections == nil {
					t.Fatalf("%s: state %+v, %v", p.Name, st.Connections, err)
				}
				opened += st.Connections.Opened
				lbAccepted += st.Connections.Accepted
			}
			if got := accepted(t, f); got != opened || got == 0 {
				t.Errorf("behind balancers: the backends accepted %d connections, the balancers' model opened %d", got, opened)
			}
			if lbAccepted != c.ByClients || lbAccepted == 0 {
				t.Errorf("behind balancers: the balancers accepted %d connections, the clients' model opened %d", lbAccepted, c.ByClients)
			}
		}
		t.Logf("client-side %v: %d requests, %d attempts, connections %+v", clientSide, run.Requests, run.Attempts, *c)
		// Some connections were reused, some closed idle and opened again.
		if c.ByClients >= run.Attempts || c.PerRequest == 0 {
			t.Errorf("client-side %v: %d client handshakes for %d attempts: want reuse and handshakes both", clientSide, c.ByClients, run.Attempts)
		}
		f.stop()
	}
}
