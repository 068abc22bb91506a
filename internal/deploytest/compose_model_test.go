package deploytest

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
)

// lblabImage is the image of the services that run this repository's binaries.
const lblabImage = "lblab:local"

// compose is the part of a compose file these tests read.
type compose struct {
	Services map[string]service `yaml:"services"`
}

type service struct {
	Image       string            `yaml:"image"`
	Command     []string          `yaml:"command"`
	Ports       []string          `yaml:"ports"`
	Volumes     []string          `yaml:"volumes"`
	NetworkMode string            `yaml:"network_mode"`
	DependsOn   dependsOn         `yaml:"depends_on"`
	Environment map[string]string `yaml:"environment"`
	Healthcheck *healthcheck      `yaml:"healthcheck"`
	Deploy      struct {
		Replicas *int `yaml:"replicas"`
	} `yaml:"deploy"`
}

// composeTestToken stands for the LBLAB_TOKEN a user exports before
// docker compose up.
const composeTestToken = "compose-check-0123456789abcdef"

// env is the service's environment as a process would get it, with
// ${NAME...} references resolved (LBLAB_TOKEN to composeTestToken).
func (s service) env() []string {
	out := os.Environ()
	for k, v := range s.Environment {
		if strings.HasPrefix(v, "${LBLAB_TOKEN") {
			v = composeTestToken
		}
		out = append(out, k+"="+v)
	}
	return out
}

type healthcheck struct {
	Test     []string `yaml:"test"`
	Interval string   `yaml:"interval"`
}

// dependsOn is depends_on in either syntax: a list of services, or a map
// of service to {condition: ...}; a listed service's condition is
// service_started, compose's default.
type dependsOn map[string]string

func (d *dependsOn) UnmarshalYAML(unmarshal func(any) error) error {
	var list []string
	if err := unmarshal(&list); err == nil {
		*d = dependsOn{}
		for _, s := range list {
			(*d)[s] = "service_started"
		}
		return nil
	}
	var long map[string]struct {
		Condition string `yaml:"condition"`
	}
	if err := unmarshal(&long); err != nil {
		return err
	}
	*d = dependsOn{}
	for s, c := range long {
		if c.Condition == "" {
			c.Condition = "service_started"
		}
		(*d)[s] = c.Condition
	}
	return nil
}

func loadCompose(t *testing.T) compose {
	t.Helper()
	data, err := os.ReadFile(repoFile("deploy", "compose.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var c compose
	if err := yaml.Unmarshal(data, &c); err != nil {
		t.Fatalf("deploy/compose.yaml: %v", err)
	}
	if len(c.Services) == 0 {
		t.Fatal("deploy/compose.yaml: no services")
	}
	return c
}

// netns is the network namespace a service runs in: its own, or another
// service's with network_mode: service:NAME.
func (s service) netns(name string) string {
	if other, ok := strings.CutPrefix(s.NetworkMode, "service:"); ok {
		return other
	}
	return name
}

// listenFlags are the flags of our binaries that take a listen address.
var listenFlags = map[string]bool{"--addr": true, "--admin": true, "--listen": true}

// refFlags are the flags whose values name other processes' addresses.
var refFlags = map[string]bool{"--backends": true, "--backend-admins": true, "--target": true, "--lb": true, "--loadgen": true,
	"--backends-dns": true, "--admins": true}

// flagValues returns the values of the given flags in a command line
// (--flag value and --flag=value), keyed by flag.
func flagValues(cmd []string, flags map[string]bool) map[string][]string {
	out := map[string][]string{}
	for i := 0; i < len(cmd); i++ {
		name, val, hasVal := strings.Cut(cmd[i], "=")
		if !flags[name] {
			continue
		}
		if !hasVal && i+1 < len(cmd) {
			i++
			val = cmd[i]
		}
		out[name] = append(out[name], val)
	}
	return out
}

// listenPorts are the container ports a service's command binds.
func (s service) listenPorts(t *testing.T, name string) map[string]string {
	ports := map[string]string{} // port -> flag
	for flag, vals := range flagValues(s.Command, listenFlags) {
		for _, v := range vals {
			host, port, err := net.SplitHostPort(v)
			if err != nil {
				t.Errorf("service %s: %s %q: %v", name, flag, v, err)
				continue
			}
			if host != "0.0.0.0" {
				t.Errorf("service %s: %s %q must bind 0.0.0.0 to be reachable from other containers", name, flag, v)
			}
			ports[port] = flag
		}
	}
	return ports
}

// hostPorts parses the short port syntax [IP:]HOST:CONTAINER[/proto].
func hostPorts(spec string) (host, container string, err error) {
	spec, _, _ = strings.Cut(spec, "/")
	parts := strings.Split(spec, ":")
	if len(parts) < 2 {
		return "", "", fmt.Errorf("port %q: want [IP:]HOST:CONTAINER (publish explicitly)", spec)
	}
	return parts[len(parts)-2], parts[len(parts)-1], nil
}

// mounts maps a service's bind mounts: container path -> host path.
func (s service) mounts() map[string]string {
	m := map[string]string{}
	for _, v := range s.Volumes {
		parts := strings.Split(v, ":")
		if len(parts) < 2 || !strings.HasPrefix(parts[0], ".") {
			continue // a named volume
		}
		m[parts[1]] = filepath.Join(repoFile("deploy"), parts[0])
	}
	return m
}

// hostArgs rewrites container paths in a command to the files mounted there.
func (s service) hostArgs() []string {
	out := append([]string(nil), s.Command...)
	for i, a := range out {
		for cpath, hpath := range s.mounts() {
			if a == cpath || strings.HasPrefix(a, cpath+"/") {
				out[i] = hpath + strings.TrimPrefix(a, cpath)
			}
		}
	}
	return out
}

// addrRefs extracts host:port items from a flag value such as
// s1=s1:9001,s2=s2:9001 or lb1=http://lb:8080|http://lb2:8080, or
// --admins' DATA=ADMIN pairs, both of which are addresses.
func addrRefs(flag, val string) []string {
	var out []string
	for item := range strings.SplitSeq(val, ",") {
		if name, rest, ok := strings.Cut(item, "="); ok && flag == "--admins" {
			out = append(out, name)
			item = rest
		} else if ok && !strings.Contains(name, "/") {
			item = rest // NAME=ADDR
		}
		for u := range strings.SplitSeq(item, "|") {
			u = strings.TrimPrefix(strings.TrimPrefix(u, "http://"), "https://")
			u, _, _ = strings.Cut(u, "/")
			out = append(out, strings.TrimSpace(u))
		}
	}
	return out
}
