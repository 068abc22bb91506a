package deploytest

import (
	"strings"
	"testing"

	"github.com/lblab/lblab/internal/metrics"
)

// documentedMetrics reads the tables of docs/metrics.md with the parser the
// exporter's own test uses: name -> type.
func documentedMetrics(t *testing.T) map[string]string {
	t.Helper()
	docs, err := metrics.ReadDoc(repoFile("docs", "metrics.md"))
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	for _, d := range docs {
		names[d.Name] = d.Type
	}
	return names
}

// metricKnown reports whether a name in a query is documented: the name
// itself, or a histogram's _bucket, _count or _sum series.
func metricKnown(docs map[string]string, name string) bool {
	if docs[name] != "" {
		return true
	}
	for _, suffix := range []string{"_bucket", "_count", "_sum"} {
		if base, ok := strings.CutSuffix(name, suffix); ok && docs[base] == "histogram" {
			return true
		}
	}
	return false
}
