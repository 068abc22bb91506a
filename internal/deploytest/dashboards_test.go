package deploytest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
)

// dashboard is the part of a Grafana dashboard these tests read.
type dashboard struct {
	UID        string  `json:"uid"`
	Title      string  `json:"title"`
	Panels     []panel `json:"panels"`
	Templating struct {
		List []struct {
			Name       string     `json:"name"`
			Datasource datasource `json:"datasource"`
			Query      any        `json:"query"` // a string or {"query": ...}
		} `json:"list"`
	} `json:"templating"`
}

type panel struct {
	Type       string      `json:"type"`
	Title      string      `json:"title"`
	Datasource *datasource `json:"datasource"`
	Targets    []struct {
		RefID      string      `json:"refId"`
		Expr       string      `json:"expr"`
		Datasource *datasource `json:"datasource"`
	} `json:"targets"`
	Panels []panel `json:"panels"` // a collapsed row's
}

type datasource struct {
	Type string `json:"type"`
	UID  string `json:"uid"`
}

// loadDashboards reads every dashboards/*.json: file name -> dashboard.
func loadDashboards(t *testing.T) map[string]dashboard {
	t.Helper()
	files, err := filepath.Glob(repoFile("dashboards", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no dashboards/*.json (%v)", err)
	}
	out := map[string]dashboard{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var d dashboard
		if err := json.Unmarshal(data, &d); err != nil {
			t.Fatalf("%s: invalid JSON: %v", filepath.Base(f), err)
		}
		out[filepath.Base(f)] = d
	}
	return out
}

// queryPanels are the panels that run queries (rows and text hold none).
func (d dashboard) queryPanels() []panel {
	var out []panel
	var walk func([]panel)
	walk = func(ps []panel) {
		for _, p := range ps {
			switch p.Type {
			case "row":
				walk(p.Panels)
			case "text":
			default:
				out = append(out, p)
			}
		}
	}
	walk(d.Panels)
	return out
}

// variableQueries are the templating variables' queries.
func (d dashboard) variableQueries() []string {
	var out []string
	for _, v := range d.Templating.List {
		switch q := v.Query.(type) {
		case string:
			out = append(out, q)
		case map[string]any:
			s, _ := q["query"].(string)
			out = append(out, s)
		}
	}
	return out
}

// provisionedUID is the datasource uid Grafana's provisioning file creates.
func provisionedUID(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(repoFile("dashboards", "provisioning", "datasources", "prometheus.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Datasources []struct{ UID, Type, URL string } `yaml:"datasources"`
	}
	if err := yaml.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Datasources) != 1 || f.Datasources[0].Type != "prometheus" || f.Datasources[0].URL != "http://prometheus:9090" {
		t.Fatalf("want one prometheus datasource at http://prometheus:9090, got %+v", f.Datasources)
	}
	return f.Datasources[0].UID
}

func TestDashboardsWellFormed(t *testing.T) {
	uid := provisionedUID(t)
	seen := map[string]string{}
	for file, d := range loadDashboards(t) {
		if d.UID == "" || d.Title == "" {
			t.Errorf("%s: needs a uid and a title", file)
		}
		if other, dup := seen[d.UID]; dup {
			t.Errorf("%s and %s share the uid %q", file, other, d.UID)
		}
		seen[d.UID] = file
		for _, p := range d.queryPanels() {
			if p.Datasource == nil || p.Datasource.UID != uid {
				t.Errorf("%s: panel %q: datasource must be {uid: %q}, got %+v", file, p.Title, uid, p.Datasource)
			}
			if len(p.Targets) == 0 {
				t.Errorf("%s: panel %q has no targets", file, p.Title)
			}
			for _, tg := range p.Targets {
				if strings.TrimSpace(tg.Expr) == "" || (tg.Datasource != nil && tg.Datasource.UID != uid) {
					t.Errorf("%s: panel %q target %s: empty expr or another datasource", file, p.Title, tg.RefID)
				}
			}
		}
		for _, v := range d.Templating.List {
			if v.Datasource.UID != uid {
				t.Errorf("%s: variable %s: datasource must be {uid: %q}", file, v.Name, uid)
			}
		}
	}
}

var metricName = regexp.MustCompile(`lblab_[a-z0-9_]+`)

// TestDashboardsUseDocumentedMetrics checks every lblab_ name in a query is
// one docs/metrics.md lists (the processes' exporter is tested against it).
func TestDashboardsUseDocumentedMetrics(t *testing.T) {
	docs := documentedMetrics(t)
	for file, d := range loadDashboards(t) {
		exprs := d.variableQueries()
		for _, p := range d.queryPanels() {
			for _, tg := range p.Targets {
				exprs = append(exprs, tg.Expr)
			}
		}
		for _, e := range exprs {
			for _, name := range metricName.FindAllString(e, -1) {
				if !metricKnown(docs, name) {
					t.Errorf("%s: %s is not in docs/metrics.md (in %s)", file, name, e)
				}
			}
		}
	}
}

// TestGrafanaProvisioningPaths checks the dashboard provider reads the
// directory compose mounts dashboards/ at.
func TestGrafanaProvisioningPaths(t *testing.T) {
	data, err := os.ReadFile(repoFile("dashboards", "provisioning", "dashboards", "lblab.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Providers []struct {
			Options struct{ Path string } `yaml:"options"`
		} `yaml:"providers"`
	}
	if err := yaml.Unmarshal(data, &f); err != nil || len(f.Providers) != 1 {
		t.Fatalf("provider file: %v (%d providers)", err, len(f.Providers))
	}
	want := "../dashboards:" + f.Providers[0].Options.Path + ":ro"
	for _, v := range loadCompose(t).Services["grafana"].Volumes {
		if v == want {
			return
		}
	}
	t.Errorf("compose's grafana service does not mount %s", want)
}
