package wire

import "testing"

// HAProxy reads a percentage ended by a newline, and "drain" as a word
// before it.
func TestAgentAnswer(t *testing.T) {
	for _, tc := range []struct {
		percent int
		leaving bool
		want    string
	}{{100, false, "100%\n"}, {67, false, "67%\n"}, {256, true, "drain 256%\n"}, {1, true, "drain 1%\n"}} {
		if got := string(AgentAnswer(tc.percent, tc.leaving)); got != tc.want {
			t.Errorf("AgentAnswer(%d, %v) = %q, want %q", tc.percent, tc.leaving, got, tc.want)
		}
	}
}
