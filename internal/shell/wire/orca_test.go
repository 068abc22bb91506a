package wire

import (
	"strings"
	"testing"

	"github.com/lblab/lblab/internal/core/load"
)

// A report written in either form reads back the same; the forms are
// ORCA's (the field names of xds.data.orca.v3.OrcaLoadReport, the
// TEXT/JSON prefixes), and a reader takes what other writers send.
func TestLoadReportRoundTrips(t *testing.T) {
	rep := load.Report{Valid: true, Queued: 3, InService: 4, Utilization: 0.425, RPS: 183.5, EPS: 2}
	text := string(AppendLoad(nil, rep, LoadText))
	if want := "TEXT cpu_utilization:0.425, rps_fractional:183.5, eps:2, named_metrics.queued:3, named_metrics.in_service:4"; text != want {
		t.Errorf("TEXT: %q, want %q", text, want)
	}
	js := string(AppendLoad(nil, rep, LoadJSON))
	if want := `JSON {"cpu_utilization":0.425,"rps_fractional":183.5,"eps":2,"named_metrics":{"queued":3,"in_service":4}}`; js != want {
		t.Errorf("JSON: %q, want %q", js, want)
	}
	for _, v := range []string{text, js,
		"TEXT cpu_utilization=0.425, rps_fractional=183.5, eps=2, named_metrics.queued=3, named_metrics.in_service=4, mem_utilization=0.8", // vLLM's and Triton's =
		`JSON {"cpu_utilization": 0.425, "rps_fractional": 183.5, "eps": 2, "utilization": {"gpu": 0.5}, "named_metrics": {"queued": 3, "in_service": 4, "kv_cache": 0.2}}`} {
		got, err := ParseLoad([]byte(v))
		if err != nil || got != rep {
			t.Errorf("%s read as %+v, %v; want %+v", v, got, err, rep)
		}
	}
	buf := make([]byte, 0, 256)
	if n := testing.AllocsPerRun(100, func() { buf = AppendLoad(buf[:0], rep, LoadText) }); n > 0 {
		t.Errorf("writing TEXT allocates %g times", n)
	}
	if got := AppendLoad(nil, rep, NoLoad); len(got) != 0 {
		t.Errorf("not asked: %q", got)
	}
	for _, v := range []string{"TEXT cpu_utilization:abc", "TEXT eps:-1", "TEXT eps:NaN", "TEXT named_metrics.queued:1.5",
		"TEXT eps:1, eps:2", "BIN AAAA", "cpu_utilization:0.3", `JSON {"eps": "x"`, "TEXT nothing"} {
		if _, err := ParseLoad([]byte(v)); err == nil || !strings.HasPrefix(err.Error(), HLoadMetrics) {
			t.Errorf("%q: %v, want an error naming the header", v, err)
		}
	}
	for v, f := range map[string]LoadFormat{"TEXT": LoadText, " text ": LoadText, "Json": LoadJSON, "bin": NoLoad, "": NoLoad} {
		if got := LoadFormatOf([]byte(v)); got != f {
			t.Errorf("format %q: %v, want %v", v, got, f)
		}
	}
	b := []byte(text)
	if n := testing.AllocsPerRun(100, func() { _, _ = ParseLoad(b) }); n > 0 {
		t.Errorf("reading TEXT allocates %g times", n)
	}
}
