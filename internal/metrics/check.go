package metrics

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// CheckExposition compares a scraped text exposition with the doc: every
// metric documented under one of sections must be exported with at least
// one series, its type and its label names, and every lblab_* metric
// exported must be documented under one of them. It returns one line per
// difference (none when they agree).
func CheckExposition(text io.Reader, docs []Doc, sections ...string) ([]string, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := p.TextToMetricFamilies(text)
	if err != nil {
		return nil, fmt.Errorf("parsing the exposition: %w", err)
	}
	var problems []string
	documented := map[string]bool{}
	for _, d := range docs {
		if !slices.Contains(sections, d.Section) {
			continue
		}
		documented[d.Name] = true
		mf, ok := mfs[d.Name]
		if !ok || len(mf.GetMetric()) == 0 {
			problems = append(problems, d.Name+": documented under "+d.Section+", not exported")
			continue
		}
		if typ := strings.ToLower(mf.GetType().String()); typ != d.Type {
			problems = append(problems, fmt.Sprintf("%s: exported as a %s, documented as a %s", d.Name, typ, d.Type))
		}
		if got, want := labelNames(mf.GetMetric()), sorted(d.Labels); !slices.Equal(got, want) {
			problems = append(problems, fmt.Sprintf("%s: labels %v, documented %v", d.Name, got, want))
		}
	}
	for name := range mfs {
		if strings.HasPrefix(name, "lblab_") && !documented[name] {
			problems = append(problems, fmt.Sprintf("%s: exported, not documented under %v", name, sections))
		}
	}
	sort.Strings(problems)
	return problems, nil
}

// labelNames is the sorted union of the series' label names.
func labelNames(ms []*dto.Metric) []string {
	var names []string
	for _, m := range ms {
		for _, l := range m.GetLabel() {
			if !slices.Contains(names, l.GetName()) {
				names = append(names, l.GetName())
			}
		}
	}
	return sorted(names)
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
