package deploytest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// keyPanels must return data against lab up running deploy/lab.yaml; the
// other queries need only run (a retry may not happen in a short run).
var keyPanels = map[string]bool{
	"Goodput": true, "Requests by outcome": true, "Latency quantiles": true,
	"Attempts per backend": true, "Share of attempts per backend": true, "Outstanding per backend": true,
	"Queue length": true, "Worker utilisation": true, "Served per server": true,
	"Retry amplification": true, "Attempts by kind": true,
	"Breaker state": true, "Concurrency limit and in use": true,
}

// TestPrometheusAgainstLabUp runs lab up, a real Prometheus discovering its
// processes through /api/sd, and every dashboard query.
func TestPrometheusAgainstLabUp(t *testing.T) {
	if testing.Short() {
		t.Skip("starts lab up and Prometheus")
	}
	prom := tool(t, "prometheus")
	lab := filepath.Join(binaries(t), "lab")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dir := t.TempDir()

	ctl := "127.0.0.1:" + freePort(t)
	start(t, dir, "lab-up", lab, "up", repoFile("deploy", "lab.yaml"), "--listen", ctl,
		"--lb", "127.0.0.1:"+freePort(t), "--logs", filepath.Join(dir, "processes.log"))
	var sd []struct{ Targets []string }
	waitFor(ctx, t, "lab up's /api/sd", func() error {
		if err := getJSON(ctx, "http://"+ctl+"/api/sd", &sd); err != nil {
			return err
		}
		if len(sd) == 0 {
			return fmt.Errorf("no targets yet")
		}
		return nil
	})

	api := "127.0.0.1:" + freePort(t)
	cfg := filepath.Join(dir, "prometheus.yml")
	writeFile(t, cfg, fmt.Sprintf(promLiveConfig, ctl))
	start(t, dir, "prometheus", prom, "--config.file="+cfg, "--storage.tsdb.path="+filepath.Join(dir, "tsdb"),
		"--web.listen-address="+api, "--log.level=warn")
	waitFor(ctx, t, "every target up", func() error { return targetsUp(ctx, api, len(sd)) })
	runDashboardQueries(ctx, t, api)
}

const promLiveConfig = `global: {scrape_interval: 1s, evaluation_interval: 1s}
scrape_configs:
  - job_name: lblab
    http_sd_configs: [{url: "http://%s/api/sd", refresh_interval: 1s}]
`

// runDashboardQueries runs every panel's queries; key panels are retried
// until they return data (rates need a few scrapes).
func runDashboardQueries(ctx context.Context, t *testing.T, api string) {
	for file, d := range loadDashboards(t) {
		for _, p := range d.queryPanels() {
			for _, tg := range p.Targets {
				expr := substitute(tg.Expr)
				if !keyPanels[p.Title] {
					if n, err := query(ctx, api, expr); err != nil {
						t.Errorf("%s: panel %q: %v", file, p.Title, err)
					} else if n == 0 {
						t.Logf("%s: panel %q: no data yet (allowed): %s", file, p.Title, expr)
					}
					continue
				}
				waitFor(ctx, t, fmt.Sprintf("%s: panel %q: data for %s", file, p.Title, expr), func() error {
					n, err := query(ctx, api, expr)
					if err == nil && n == 0 {
						err = fmt.Errorf("no samples with a value")
					}
					return err
				})
			}
		}
	}
}

// substitute replaces Grafana's variables: intervals by fixed ones that
// suit a 1 s scrape, template variables by "everything".
func substitute(expr string) string {
	expr = strings.NewReplacer("$__rate_interval", "10s", "$__interval", "2s", "$__range", "1m").Replace(expr)
	return templateVar.ReplaceAllString(expr, ".*")
}

var templateVar = regexp.MustCompile(`\$\{?[a-z]+\}?`)

// query runs an instant query and counts the samples that are numbers.
func query(ctx context.Context, api, expr string) (int, error) {
	var r struct {
		Status string
		Error  string
		Data   struct {
			Result []struct{ Value []any }
		}
	}
	if err := getJSON(ctx, "http://"+api+"/api/v1/query?query="+url.QueryEscape(expr), &r); err != nil {
		return 0, err
	}
	if r.Status != "success" {
		return 0, fmt.Errorf("%s: %s", r.Status, r.Error)
	}
	n := 0
	for _, s := range r.Data.Result {
		if len(s.Value) == 2 && s.Value[1] != "NaN" {
			n++
		}
	}
	return n, nil
}

// targetsUp checks Prometheus has want active targets, all up.
func targetsUp(ctx context.Context, api string, want int) error {
	var r struct {
		Data struct {
			ActiveTargets []struct {
				ScrapeURL, Health, LastError string
			}
		}
	}
	if err := getJSON(ctx, "http://"+api+"/api/v1/targets", &r); err != nil {
		return err
	}
	var down []string
	for _, tg := range r.Data.ActiveTargets {
		if tg.Health != "up" {
			down = append(down, fmt.Sprintf("%s is %s (%s)", tg.ScrapeURL, tg.Health, tg.LastError))
		}
	}
	if len(r.Data.ActiveTargets) != want || len(down) > 0 {
		return fmt.Errorf("%d of %d targets found; down: %s", len(r.Data.ActiveTargets), want, strings.Join(down, "; "))
	}
	return nil
}

// getJSON GETs u into v; header is name, value pairs to send.
func getJSON(ctx context.Context, u string, v any, header ...string) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", u, nil)
	if err != nil {
		return err
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		return fmt.Errorf("GET %s: %s: %w", u, resp.Status, err)
	}
	return nil
}

// waitFor retries check every 250 ms until it passes; at ctx's end the test fails.
func waitFor(ctx context.Context, t *testing.T, what string, check func() error) {
	t.Helper()
	for {
		err := check()
		if err == nil {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v", what, err)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// start runs a program with its output in dir/NAME.log (logged on failure)
// and stops it at cleanup: SIGTERM, then SIGKILL after 10 s.
func start(t *testing.T, dir, name, prog string, args ...string) {
	t.Helper()
	logPath := filepath.Join(dir, name+".log")
	log, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(prog, args...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		log.Close()
		if t.Failed() {
			out, _ := os.ReadFile(logPath)
			t.Logf("%s output:\n%s", name, tail(string(out), 40))
		}
	})
}

func tail(s string, lines int) string {
	parts := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(parts[max(0, len(parts)-lines):], "\n")
}

func writeFile(t *testing.T, name, content string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
