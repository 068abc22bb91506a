package lb

import (
	"testing"

	"github.com/lblab/lblab/internal/policy"
)

func TestClassify(t *testing.T) {
	cases := []struct {
		status int
		reason string
		want   policy.Result
	}{
		{200, "", policy.OK}, {500, "error", policy.Error}, {502, "", policy.Error},
		{503, "queue-full", policy.Rejected}, {503, "cancelled", policy.Cancelled}, {504, "", policy.Timeout},
	}
	for _, c := range cases {
		if got := classify(nil, c.status, []byte(c.reason)); got != c.want {
			t.Errorf("%d %q: %v, want %v", c.status, c.reason, got, c.want)
		}
	}
}
