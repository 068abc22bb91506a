package backend

import (
	"testing"
	"testing/synctest"

	"github.com/lblab/lblab/internal/shell/wire"
)

// A hedge and its first attempt queue behind a busy worker; cancelling
// attempt "hedge" of their request removes the hedge only.
func TestAdminCancelAttemptFilter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, n := startMem(t, labWith(t)) // one worker
		c := client{t, n}
		send := func(id, kind string) <-chan result {
			ch := async(func() result {
				return c.data("GET", "/", wire.HWork, "50ms", wire.HRequest, id, wire.HAttempt, kind)
			})
			synctest.Wait()
			return ch
		}
		busy := send("7", "first")
		first := send("9", "first")
		hedge := send("9", "hedge")

		r := c.admin("POST", "/admin/cancel", `{"id":9,"attempt":"retry"}`)
		if r.code != 200 || string(r.body) != "{\"id\":9,\"attempt\":\"retry\",\"cancelled\":0}\n" {
			t.Errorf("cancel retry: %d %s, want nothing cancelled", r.code, r.body)
		}
		r = c.admin("POST", "/admin/cancel", `{"id":9,"attempt":"hedge"}`)
		if r.code != 200 || string(r.body) != "{\"id\":9,\"attempt\":\"hedge\",\"cancelled\":1}\n" {
			t.Errorf("cancel hedge: %d %s", r.code, r.body)
		}
		if h := <-hedge; h.code != 503 || h.header(wire.HReason) != "cancelled" {
			t.Errorf("the hedge: %d %q, want 503 cancelled", h.code, h.header(wire.HReason))
		}
		if st := c.state(); len(st.QueuedKinds) != 1 || st.QueuedKinds[0] != "first" {
			t.Errorf("still queued: %v, want the first attempt only", st.QueuedKinds)
		}
		if f := <-first; f.code != 200 {
			t.Errorf("the first attempt of the same request: %d %q, want served", f.code, f.header(wire.HReason))
		}
		if b := <-busy; b.code != 200 {
			t.Errorf("the request in service: %d", b.code)
		}
		// Without a filter the answer has no attempt field.
		r = c.admin("POST", "/admin/cancel", `{"id":9}`)
		if r.code != 200 || string(r.body) != "{\"id\":9,\"cancelled\":0}\n" {
			t.Errorf("cancel without attempt: %d %s", r.code, r.body)
		}
	})
}

func TestAdminCancelBadInput(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, n := startMem(t, labWith(t))
		c := client{t, n}
		for _, tc := range []struct{ body, field string }{
			{`{"id":9,"attempt":"loser"}`, "attempt"},
			{`{"id":9,"attempt":""}`, "attempt"},
			{`{"id":9,"attempt":1}`, "attempt"},
			{`{"attempt":"hedge"}`, "id"},
			{`{"id":-1}`, "id"},
			{`{"id":9,"kind":"hedge"}`, "kind"},
			{`{"id":`, "JSON"},
		} {
			r := c.admin("POST", "/admin/cancel", tc.body)
			if r.code != 400 {
				t.Errorf("%s: %d %s, want 400", tc.body, r.code, r.body)
				continue
			}
			if e := errorBody(t, r); !contains(e.Error, tc.field) {
				t.Errorf("%s: reason %q does not name %q", tc.body, e.Error, tc.field)
			}
		}
	})
}
