package lab

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/core/load"
	"github.com/lblab/lblab/internal/lab/admin"
	"github.com/lblab/lblab/internal/shell/state"
	"github.com/lblab/lblab/internal/shell/wire"
)

// A request through the lb to a backend that asks for ORCA's load report
// gets a well-formed endpoint-load-metrics header, in TEXT and in JSON,
// whose utilization is the server's: one worker busy 300 ms of the last
// second is 0.3, and GET /load says the same; a request that does not ask
// gets no report. Through an lb balancing with wrr-orca, which asks the
// backend for the report itself, a client that did not ask still gets
// none, and the lb has taken the report in.
func TestORCAReportThroughTheLB(t *testing.T) {
	for _, algorithm := range []string{"round-robin", "wrr-orca"} {
		t.Run(algorithm, func(t *testing.T) {
			ctx := ctxFor(t, 60*time.Second)
			lab := smallLab(t, algorithm, 3600)
			for _, kv := range [][2]string{{"servers[0].count", "1"}, {"servers[0].workers", "1"}, {"network.hop", "0s"}} {
				if err := lab.Apply(kv[0], kv[1]); err != nil {
					t.Fatal(err)
				}
			}
			f, err := startFleet(ctx, lab, testOptions(t))
			if err != nil {
				t.Fatal(err)
			}
			defer f.stop()
			lb, backend := f.lbs[0].Ready, f.backends[0].Ready
			get := func(work, format string) http.Header {
				t.Helper()
				req, _ := http.NewRequestWithContext(ctx, "GET", "http://"+lb.Addr+"/", nil)
				req.Header.Set(wire.HWork, work)
				if format != "" {
					req.Header.Set(wire.HLoadMetricsFormat, format)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					t.Fatalf("%d", resp.StatusCode)
				}
				return resp.Header
			}
			start := time.Now()
			if h := get("300ms", ""); h.Get(wire.HLoadMetrics) != "" {
				t.Errorf("a request that did not ask got a report: %q", h.Get(wire.HLoadMetrics))
			}
			check := func(format, prefix string) load.Report {
				t.Helper()
				v := get("1ms", format).Get(wire.HLoadMetrics)
				rep, err := wire.ParseLoad([]byte(v))
				if err != nil || !strings.HasPrefix(v, prefix) {
					t.Fatalf("%s: %q: %v", format, v, err)
				}
				if time.Since(start) < 900*time.Millisecond && // the 300 ms job is still in the window
					(rep.Utilization < 0.29 || rep.Utilization > 0.4 || rep.InService != 0 || rep.Queued != 0 || rep.RPS < 2) {
					t.Errorf("%s: %+v, want utilization about 0.3 (300 ms of one worker), nothing in flight, 2 or more requests a second", v, rep)
				}
				return rep
			}
			check("TEXT", "TEXT cpu_utilization:")
			check("json", "JSON {")
			var out state.Load
			if err := admin.Call(context.Background(), backend.Admin, "GET", "/load", nil, &out); err != nil {
				t.Fatal(err)
			}
			if time.Since(start) < 900*time.Millisecond && (out.Utilization < 0.29 || out.Utilization > 0.4) {
				t.Errorf("GET /load: %+v, want utilization about 0.3", out)
			}
			if algorithm == "wrr-orca" {
				if h := get("1ms", ""); h.Get(wire.HLoadMetrics) != "" {
					t.Errorf("the lb asked for the report and left it on an answer whose client did not: %q", h.Get(wire.HLoadMetrics))
				}
				var st state.LB
				if err := admin.Call(context.Background(), lb.Admin, "GET", "/admin/state", nil, &st); err != nil {
					t.Fatal(err)
				}
				if b := st.Backends[0]; b.Utilization < 0.2 || b.ORCAWeight != 0 {
					t.Errorf("the lb's view of s1: %+v, want the reported utilization and no weight yet (the blackout)", b)
				}
			}
		})
	}
}
