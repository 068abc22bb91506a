package wire

import (
	"errors"
	"fmt"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/lblab/lblab/internal/core/server"
	"github.com/lblab/lblab/internal/policy"
)

// Every status the backend answers with reads back as the status it came
// from, so the live processes classify like the simulator.
func TestStatusRoundTrip(t *testing.T) {
	for _, st := range []server.Status{server.OK, server.Error, server.Rejected, server.Dropped, server.Cancelled} {
		code, reason := st.HTTPCode(), ""
		switch st {
		case server.Dropped:
			code, reason = 503, server.ReasonExpired
		case server.Cancelled:
			code, reason = 503, server.ReasonCancelled
		case server.Rejected:
			reason = "queue-full"
		}
		if got := StatusOf(code, []byte(reason)); got != st {
			t.Errorf("%v answered %d %q reads back as %v", st, code, reason, got)
		}
		if got, want := Classify(nil, code, []byte(reason)), policy.ResultOf(st); got != want {
			t.Errorf("%v: live result %v, simulated %v", st, got, want)
		}
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string { return "i/o timeout" }
func (timeoutErr) Timeout() bool { return true }

func TestClassify(t *testing.T) {
	cases := []struct {
		err    error
		status int
		reason string
		want   policy.Result
	}{
		{nil, 200, "", policy.OK},
		{nil, 404, "", policy.OK}, // the client's doing, not the server's failure
		{nil, 500, "error", policy.Error},
		{nil, 500, "cancelled", policy.Error},
		{nil, 502, "", policy.Error},
		{nil, 503, "queue-full", policy.Rejected},
		{nil, 503, "", policy.Rejected},
		{nil, 503, "cancelled", policy.Cancelled}, // a hedge's loser withdrawn: no verdict
		{nil, 503, "expired", policy.Timeout},     // dropped expired, as in the simulator
		{nil, 504, "", policy.Timeout},
		{fasthttp.ErrTimeout, 0, "", policy.Timeout},
		{fmt.Errorf("dial: %w", timeoutErr{}), 0, "", policy.Timeout},
		{errors.New("connection refused"), 0, "", policy.Error},
	}
	for _, c := range cases {
		if got := Classify(c.err, c.status, []byte(c.reason)); got != c.want {
			t.Errorf("%v %d %q: %v, want %v", c.err, c.status, c.reason, got, c.want)
		}
	}
}
