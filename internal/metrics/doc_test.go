package metrics

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/core/breaker"
)

const docPath = "../../docs/metrics.md"

func TestDocumentedNames(t *testing.T) {
	names, err := DocumentedNames(docPath)
	if err != nil {
		t.Fatal(err)
	}
	for section, want := range map[string]string{"backend": "lblab_backend_requests_total",
		"lb": "lblab_lb_requests_total", "loadgen": "lblab_client_latency_seconds", "every process": "lblab_events_total"} {
		if !slices.Contains(names[section], want) {
			t.Errorf("section %q: %v lacks %s", section, names[section], want)
		}
	}
	if len(names) != 4 {
		t.Errorf("sections %v, want backend, lb, loadgen, every process", names)
	}
}

func TestParseDocRejects(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{"| `lblab_x_total` | counter | | x |\n", "under no"},
		{"## a\n| `lblab_x_total` | counter | | x |\n## b\n| `lblab_x_total` | counter | | x |\n", "twice"},
		{"## a\n| `lblab_x` | summary | | x |\n", "summary"},
		{"## a\n| `lblab_x` | gauge |\n", "4 cells"},
		{"## a\n| name | type |\n", "no metric rows"},
	} {
		if _, err := ParseDoc(strings.NewReader(tc.doc)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want one with %q", tc.doc, err, tc.want)
		}
	}
	docs, err := ParseDoc(strings.NewReader("## lb (one per balancer)\n| `lblab_y` | gauge | a, b | y |\n"))
	if err != nil || len(docs) != 1 || docs[0].Section != "lb" || !slices.Equal(docs[0].Labels, []string{"a", "b"}) {
		t.Errorf("parsed %+v, %v", docs, err)
	}
}

// TestExportsMatchDoc checks each process's metrics alone, with made-up
// state, against docs/metrics.md (the shell tests do it end to end).
func TestExportsMatchDoc(t *testing.T) {
	docs, err := ReadDoc(docPath)
	if err != nil {
		t.Fatal(err)
	}
	b := NewBackend("s1", func() ServerState { return ServerState{Up: true} }, []string{"kill"})
	l := NewLB("lb1", func() []BackendView {
		return []BackendView{{Name: "s1", EWMA: time.Millisecond, Breaker: breaker.Open, Healthy: true}}
	}, []string{"breaker"})
	l.Backend("s1")
	g := NewLoadgen(func() []TargetState { return []TargetState{{Name: "p2c", Budget: true, Tokens: 3}} }, []string{"rate"})
	g.Requests("p2c")
	g.Attempts("p2c")
	for section, r := range map[string]registry{"backend": b.registry, "lb": l.registry, "loadgen": g.registry} {
		_, body := scrape(r.Handler(), "")
		problems, err := CheckExposition(bytes.NewReader(body), docs, section, "every process")
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range problems {
			t.Errorf("%s: %s", section, p)
		}
	}
}

func TestCheckExpositionFindsDrift(t *testing.T) {
	docs := []Doc{{Section: "x", Name: "lblab_a_total", Type: "counter", Labels: []string{"k"}},
		{Section: "x", Name: "lblab_b", Type: "gauge"}, {Section: "x", Name: "lblab_c", Type: "gauge"}}
	text := "# TYPE lblab_a_total counter\nlblab_a_total{j=\"1\"} 1\n# TYPE lblab_b counter\nlblab_b 1\n" +
		"# TYPE lblab_extra gauge\nlblab_extra 1\n"
	problems, err := CheckExposition(strings.NewReader(text), docs, "x")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"lblab_a_total: labels [j]", "lblab_b: exported as a counter", "lblab_c: documented under x, not exported", "lblab_extra: exported, not documented"}
	if len(problems) != len(want) {
		t.Fatalf("problems %q", problems)
	}
	for i := range want {
		if !strings.HasPrefix(problems[i], want[i]) {
			t.Errorf("problem %q, want %q...", problems[i], want[i])
		}
	}
}
