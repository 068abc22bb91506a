package lab

import (
	"testing"
	"time"

	"github.com/lblab/lblab/internal/labfile"
)

// add-server, remove-server and set behind a proxy rewrite its
// configuration and reload it, and the log says so: under round robin, s4
// added at 1 s gets about the share of a server that was there all along
// from then on, s1 removed at 2.5 s gets none after (about half of what s2
// gets in the whole run, where round robin alone gives them the same), a
// set of balancers.timeout reloads it too, and every request is accounted
// for: each reached a backend but the few sent on a connection a reload
// closed (measured: none through HAProxy, 23 through nginx and 23-33
// through Caddy of 1,018 over the three reloads on a quiet machine, up to
// 164 through Caddy at load average 25, where each reload takes longer
// and more attempts meet a closing connection; under a quarter allowed).
func TestExternalServersThroughReload(t *testing.T) {
	for _, kind := range []string{"haproxy", "nginx", "caddy"} {
		t.Run(kind, func(t *testing.T) {
			proxyTool(t, kind)
			ctx := ctxFor(t, 60*time.Second)
			lab := smallLab(t, "round-robin", 5)
			lab.Events = []labfile.Event{{At: time.Second, Action: labfile.ActionAddServer, Target: "s4"},
				{At: 2500 * time.Millisecond, Action: labfile.ActionRemoveServer, Target: "s1"},
				{At: 3 * time.Second, Action: labfile.ActionSet, Set: map[string]string{"balancers.timeout": "2s"}}}
			if err := lab.ApplyAll([][2]string{{"balancers.kind", kind}, {"clients.rate", "200"}}); err != nil {
				t.Fatal(err)
			}
			opts := testOptions(t)
			rep, err := Run(ctx, lab, []labfile.Setting{{Name: "reloads"}}, RunOptions{Options: opts})
			if err != nil {
				t.Fatal(err)
			}
			run := &rep.Runs[0]
			sent := map[string]uint64{}
			var all uint64
			for _, s := range run.Servers {
				sent[s.Name] = s.Sent
				all += s.Sent
			}
			o := run.Outcomes
			if run.Requests < 800 || o.Succeeded+o.Failed+o.Rejected+o.TimedOut != run.Requests || run.Attempts-all > run.Errors || run.Errors*4 > run.Requests {
				t.Errorf("%d requests, outcomes %+v; %d attempts, %d reached a backend, %d errors", run.Requests, o, run.Attempts, all, run.Errors)
			}
			t.Logf("%s: sent %v, %d errors of %d", kind, sent, run.Errors, run.Requests)
			for _, want := range []string{"reloaded gracefully with s4 added (4 servers)", "reloaded gracefully without s1 (3 servers)",
				"reloaded gracefully with balancers.timeout=2s"} {
				if !hasLog(run, want) {
					t.Errorf("the log lacks %q: %+v", want, run.Log)
				}
			}
			// s2: a third for 1 s, a quarter for 1.5 s, a third for 2.5 s (1.54 s
			// worth of the rate); s4 a quarter for 1.5 s and a third for 2.5 s
			// (1.21 s, 0.79 of s2's); s1 a third for 1 s and a quarter for
			// 1.5 s (0.71 s, 0.46 of s2's).
			if r := float64(sent["s4"]) / float64(sent["s2"]); r < 0.55 || r > 1 {
				t.Errorf("s4 got %.2f of s2's requests (want about 0.79): it did not join the rotation at 1 s", r)
			}
			if r := float64(sent["s1"]) / float64(sent["s2"]); r > 0.62 || r < 0.3 {
				t.Errorf("s1 got %.2f of s2's requests (want about 0.46): it did not leave the rotation at 2.5 s", r)
			}
		})
	}
}
