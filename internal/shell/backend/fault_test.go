package backend

import (
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lblab/lblab/internal/core/server"
	"github.com/lblab/lblab/internal/policy"
	"github.com/lblab/lblab/internal/shell/wire"
)

// A caller's fault, by header or by query: the status at once, the delay on
// top of the work, and the share drawn by the pick number as the core does.
func TestRequestFaults(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, n := startMem(t, labWith(t))
		c := client{t, n}
		r := c.data("GET", "/x", wire.HWork, "20ms", wire.HFault, "status=503")
		if r.code != 503 || r.header(wire.HReason) != server.ReasonFault || r.took != 5*time.Millisecond {
			t.Fatalf("status fault: %d %q took %v %s", r.code, r.header(wire.HReason), r.took, r.body)
		}
		errorBody(t, r)
		r = c.data("GET", "/x?status=429&delay=40ms", wire.HWork, "20ms")
		if r.code != 429 || r.took != 45*time.Millisecond {
			t.Fatalf("query status+delay: %d took %v", r.code, r.took)
		}
		r = c.data("GET", "/x?delay=30ms", wire.HWork, "20ms")
		if r.code != 200 || r.took != 55*time.Millisecond || r.header(wire.HServiceMs) != "20" {
			t.Fatalf("delay fault: %d took %v service %s", r.code, r.took, r.header(wire.HServiceMs))
		}
		// A 10% share: the requests whose pick number the core draws get it.
		f := server.Fault{Status: 500, StatusPercent: 10}
		hits := 0
		for req := range uint64(60) {
			r := c.data("GET", "/", wire.HWork, "1ms", wire.HRequest, strconv.FormatUint(req, 10), wire.HFault, "status=500:10")
			st, _ := f.Draw(1, policy.PickNumber(req, 1))
			if (r.code == 500) != (st == 500) {
				t.Fatalf("request %d answered %d, the core draws %d", req, r.code, st)
			}
			if r.code == 500 {
				hits++
			}
		}
		if hits == 0 || hits > 20 {
			t.Errorf("%d of 60 requests hit a 10%% fault", hits)
		}
		if st := c.state(); st.Counters.Faults != uint64(2+hits) {
			t.Errorf("faults counter %d, want %d", st.Counters.Faults, 2+hits)
		}
	})
}

func TestBadFaultIs400(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, n := startMem(t, labWith(t))
		c := client{t, n}
		for _, tc := range []struct {
			path  string
			hdr   []string
			names string
		}{
			{"/?status=700", nil, "query parameter status"},
			{"/?delay=fast", nil, "query parameter delay"},
			{"/?status=503:150", nil, "query parameter status"},
			{"/", []string{wire.HFault, "delay=10m"}, "X-Lab-Fault: delay"},
			{"/", []string{wire.HFault, "colour=red"}, "X-Lab-Fault: colour"},
			{"/?status=503", []string{wire.HFault, "status=500"}, "not both"},
		} {
			r := c.data("GET", tc.path, tc.hdr...)
			if r.code != 400 || !contains(errorBody(t, r).Error, tc.names) {
				t.Errorf("%s %v: %d %s; want 400 naming %s", tc.path, tc.hdr, r.code, r.body, tc.names)
			}
		}
	})
}
