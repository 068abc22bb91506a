package gather

import (
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/shell/state"
)

func TestProgressText(t *testing.T) {
	st := state.Loadgen{Rate: 400, ElapsedS: 2, Late: 3, Targets: []state.Target{{Requests: 790, P50: 33.2, P99: 210, Errors: 1}}}
	got := progressText(st, 20*time.Second)
	for _, want := range []string{"2.0s of 20s", "395/s of 400/s", "p50 33.2ms", "p99 210.0ms", "errors 1", "LATE 3"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q lacks %q", got, want)
		}
	}
}
