package backend

import (
	"io"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lblab/lblab/internal/shell/pace"
	"github.com/lblab/lblab/internal/shell/wire"
)

// The agent check: on each connection one line, the weight the server
// gives itself from its load report (gRFC A58's capacity, 2 workers / 10
// ms = 200 requests/s, over the scale of 400: 50%); a slowed server's
// weight falls with its capacity; "drain" while it leaves; no word while
// it is killed, and its weight again once restarted.
func TestAgentCheck(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lab := labWith(t, "servers.workers", "2", "balancers.orca.blackout_period", "0s")
		b, n := startMemWith(t, Config{Lab: lab, Name: "s1", Hop: 5 * time.Millisecond, Waits: pace.Runtime, Agent: "agent", AgentScale: 400})
		c := client{t, n}
		ask := func() string {
			t.Helper()
			conn, err := n.dial("agent")
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			line, err := io.ReadAll(conn)
			if err != nil {
				t.Fatal(err)
			}
			return string(line)
		}
		percent := func(line, prefix string) int {
			t.Helper()
			p, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(line, prefix), "%\n"))
			if err != nil || !strings.HasPrefix(line, prefix) || !strings.HasSuffix(line, "%\n") {
				t.Fatalf("agent answered %q, want %sP%%\\n", line, prefix)
			}
			return p
		}
		serve := func(d time.Duration) { // one request at a time, 10 ms of work each
			for end := time.Now().Add(d); time.Now().Before(end); {
				if r := c.data("GET", "/", wire.HWork, "10ms"); r.code != 200 {
					t.Fatalf("request: %d %v", r.code, r.err)
				}
			}
		}
		if got := ask(); got != "100%\n" {
			t.Errorf("before any request: %q, want the initial weight 100%%", got)
		}
		serve(1500 * time.Millisecond)
		if p := percent(ask(), ""); p < 48 || p > 52 {
			t.Errorf("at full speed: %d%%, want 50%% (200 requests/s at full utilization, over 400)", p)
		}
		c.post("/admin/drill", `{"action":"slow","speed":0.5}`, nil)
		serve(1500 * time.Millisecond)
		if p := percent(ask(), ""); p < 23 || p > 27 {
			t.Errorf("at half speed: %d%%, want 25%%", p)
		}
		c.post("/admin/drill", `{"action":"kill"}`, nil)
		if got := ask(); got != "" {
			t.Errorf("killed: %q, want no answer (HAProxy keeps the weight it had)", got)
		}
		c.post("/admin/drill", `{"action":"restart"}`, nil)
		if p := percent(ask(), ""); p < 23 || p > 27 {
			t.Errorf("restarted: %d%%, want the weight it had (25%%)", p)
		}
		b.Leave()
		if p := percent(ask(), "drain "); p < 23 || p > 27 {
			t.Errorf("leaving: drain %d%%, want drain 25%%", p)
		}
		if rd := b.Ready(1); rd.Agent != "agent" {
			t.Errorf("readiness line %+v, want the agent's address", rd)
		}
	})
}
