package backend

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/shell/wire"
)

// With zones the answer's hop back is the link's between this server's
// zone and its sender's: s1 is in b, lb1 in a and lb2 in b, the client ids
// in a: from lb1 it takes the cross-zone 30 ms, from lb2 the zone's own
// 5 ms, from a client that balances itself (id 3, in a) 30 ms, and from a
// sender the lab does not know, 5 ms.
func TestZoneHopBack(t *testing.T) {
	lab, err := labfile.Parse("z.yaml", []byte(`
zones: [{name: a}, {name: b}]
network: {hop: 5ms, cross_zone: {hop: 30ms}}
clients: {zones: [a]}
balancers: {count: 2, zones: [a, b]}
servers: [{zone: b}]
`))
	if err != nil {
		t.Fatal(err)
	}
	synctest.Test(t, func(t *testing.T) {
		_, n := startMem(t, lab)
		c := client{t, n}
		for _, x := range []struct {
			headers []string
			want    time.Duration
		}{
			{[]string{wire.HBalancer, "lb1", wire.HClient, "3"}, 30 * time.Millisecond},
			{[]string{wire.HBalancer, "lb2", wire.HClient, "3"}, 5 * time.Millisecond},
			{[]string{wire.HClient, "3"}, 30 * time.Millisecond},
			{nil, 5 * time.Millisecond},
		} {
			r := c.data("GET", "/", append([]string{wire.HWork, "10ms", wire.HRequest, "1"}, x.headers...)...)
			if r.code != 200 || r.took != 10*time.Millisecond+x.want {
				t.Errorf("%v: %d after %v, want 200 after 10ms of work and a %v hop", x.headers, r.code, r.took, x.want)
			}
		}
	})
}
