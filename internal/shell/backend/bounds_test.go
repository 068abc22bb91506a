package backend

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/lblab/lblab/internal/shell/wire"
)

// TestAdminValuesWithinTheLabFileBounds: the admin API takes the ranges the
// lab file does (labfile.Bounds): a speed of 1e308, which used to overflow
// the work clock and make every later request wait ~292 years (restore or
// not), a two-hour GC pause or a queue of a billion slots are refused with
// 400 naming the field, and the server keeps answering on time.
func TestAdminValuesWithinTheLabFileBounds(t *testing.T) {
	cases := []struct{ path, body, field, msg string }{
		{"/admin/drill", `{"action":"slow","speed":1e308}`, "speed", "speed: slow needs speed in (0, 100] (0.25 = quarter speed), got 1e+308"},
		{"/admin/drill", `{"action":"slow","speed":101}`, "speed", "slow needs speed in (0, 100]"},
		{"/admin/drill", `{"action":"gc","pause":"2h"}`, "pause", "pause: gc needs pause in (0s, 1h]"},
		{"/admin/drill", `{"action":"errors","share":1.5}`, "share", "share: must be in [0, 1], got 1.5"},
		{"/admin/queue", `{"capacity":1000000000}`, "capacity", "capacity: must be between 0 and 100000"},
		{"/admin/limiter", `{"kind":"aimd","initial":10,"min":1,"max":1000000000}`, "max", "max: must be between 1 and 1000000"},
		{"/admin/set", `{"path":"servers.speed","value":"1e308"}`, "", "servers[0].speed: must be in (0, 100]"},
	}
	synctest.Test(t, func(t *testing.T) {
		_, n := startMem(t, labWith(t))
		c := client{t, n}
		for _, tc := range cases {
			r := c.admin("POST", tc.path, tc.body)
			e := errorBody(t, r)
			if r.code != 400 || e.Field != tc.field || !contains(e.Error, tc.msg) {
				t.Errorf("%s %s: %d %+v, want 400 naming %q with %q", tc.path, tc.body, r.code, e, tc.field, tc.msg)
			}
		}
		c.post("/admin/drill", `{"action":"restore"}`, nil)
		if r := c.data("GET", "/", wire.HWork, "10ms"); r.code != 200 || r.took > time.Second {
			t.Fatalf("a request after the refused values: %d in %v", r.code, r.took)
		}
	})
}
