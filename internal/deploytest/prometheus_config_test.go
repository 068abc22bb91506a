package deploytest

import (
	"context"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goccy/go-yaml"
)

// promConfig is the part of a Prometheus configuration these tests read.
type promConfig struct {
	ScrapeConfigs []struct {
		JobName       string `yaml:"job_name"`
		StaticConfigs []struct {
			Targets []string          `yaml:"targets"`
			Labels  map[string]string `yaml:"labels"`
		} `yaml:"static_configs"`
		HTTPSDConfigs []struct {
			URL string `yaml:"url"`
		} `yaml:"http_sd_configs"`
		DNSSDConfigs []struct {
			Names []string `yaml:"names"`
			Type  string   `yaml:"type"`
			Port  int      `yaml:"port"`
		} `yaml:"dns_sd_configs"`
		RelabelConfigs []struct {
			SourceLabels []string `yaml:"source_labels"`
			TargetLabel  string   `yaml:"target_label"`
			Replacement  string   `yaml:"replacement"`
		} `yaml:"relabel_configs"`
	} `yaml:"scrape_configs"`
}

func loadPromConfig(t *testing.T, name string) promConfig {
	t.Helper()
	data, err := os.ReadFile(repoFile("deploy", name))
	if err != nil {
		t.Fatal(err)
	}
	var c promConfig
	if err := yaml.Unmarshal(data, &c); err != nil {
		t.Fatalf("deploy/%s: %v", name, err)
	}
	return c
}

func TestPromtoolCheckConfig(t *testing.T) {
	promtool := tool(t, "promtool")
	for _, name := range []string{"prometheus.yml", "prometheus-lab-up.yml"} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		out, err := exec.CommandContext(ctx, promtool, "check", "config", repoFile("deploy", name)).CombinedOutput()
		cancel()
		if err != nil {
			t.Errorf("promtool check config deploy/%s: %v\n%s", name, err, out)
		}
	}
}

// TestPrometheusScrapesEveryProcess checks deploy/prometheus.yml scrapes
// exactly the lblab services' admin listeners: the single ones as static
// targets, the fleet the lb finds by DNS (--backends-dns) by the same name
// on its admin port, every target labelled as lab up's discovery labels it.
func TestPrometheusScrapesEveryProcess(t *testing.T) {
	c := loadCompose(t)
	fleet := dnsFleets(t, c)
	want := map[string]bool{}
	for name, s := range c.Services {
		if s.Image != lblabImage || len(s.Command) == 0 || s.Command[0] == "lab" { // lab dashboard exports no metrics
			continue
		}
		for _, v := range flagValues(s.Command, map[string]bool{"--admin": true})["--admin"] {
			_, port, _ := net.SplitHostPort(v)
			want[net.JoinHostPort(name, port)] = true
		}
	}
	got := map[string]bool{}
	for _, sc := range loadPromConfig(t, "prometheus.yml").ScrapeConfigs {
		for _, st := range sc.StaticConfigs {
			for _, target := range st.Targets {
				if !want[target] || fleet[strings.Split(target, ":")[0]] {
					t.Errorf("prometheus.yml scrapes %s statically, which is no single lblab admin listener", target)
				}
				if st.Labels["process"] == "" || st.Labels["name"] == "" {
					t.Errorf("prometheus.yml: target %s lacks the process and name labels lab up's discovery gives", target)
				}
				got[target] = true
			}
		}
		for _, sd := range sc.DNSSDConfigs {
			process := ""
			for _, r := range sc.RelabelConfigs {
				if r.TargetLabel == "process" && len(r.SourceLabels) == 0 {
					process = r.Replacement
				}
			}
			for _, n := range sd.Names {
				target := net.JoinHostPort(n, strconv.Itoa(sd.Port))
				if sd.Type != "A" || !want[target] || !fleet[n] {
					t.Errorf("prometheus.yml: dns_sd %s (type %s) is no lblab fleet's admin listener", target, sd.Type)
				}
				if process != c.Services[n].Command[0] {
					t.Errorf("prometheus.yml: dns_sd %s: relabel process to %q, got %q", target, c.Services[n].Command[0], process)
				}
				got[target] = true
			}
		}
	}
	for target := range want {
		if !got[target] {
			t.Errorf("prometheus.yml does not scrape %s", target)
		}
	}
}

func TestPrometheusLabUpDiscovery(t *testing.T) {
	const url = "http://127.0.0.1:8000/api/sd" // lab up's default --listen
	for _, sc := range loadPromConfig(t, "prometheus-lab-up.yml").ScrapeConfigs {
		for _, sd := range sc.HTTPSDConfigs {
			if sd.URL == url {
				return
			}
		}
	}
	t.Errorf("prometheus-lab-up.yml has no http_sd_configs url %s", url)
}
