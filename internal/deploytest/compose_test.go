package deploytest

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestComposeCommands runs every lblab service's command with --check-config
// appended, with the mounted files (lab.yaml) at their place in the repository.
func TestComposeCommands(t *testing.T) {
	c := loadCompose(t)
	bin := binaries(t)
	for name, s := range c.Services {
		if s.Image != lblabImage {
			continue
		}
		t.Run(name, func(t *testing.T) {
			if len(s.Command) == 0 {
				t.Fatal("no command")
			}
			args := append(s.hostArgs(), "--check-config")
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, filepath.Join(bin, args[0]), args[1:]...)
			cmd.Env = s.env()
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			err := cmd.Run()
			if err != nil && pending(out.String()) {
				notYet(t, "%s: %s", strings.Join(args, " "), out.String())
			}
			if err != nil {
				t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out.String())
			}
			t.Logf("%s", strings.TrimSpace(out.String()))
		})
	}
}

// pending reports a subcommand that is not in the binary yet (lab dashboard
// is being added alongside this package).
func pending(out string) bool { return strings.Contains(out, `unknown command "dashboard"`) }

// notYet skips locally and fails under CI.
func notYet(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf("not implemented yet: "+format, args...)
	}
	t.Skipf("not implemented yet: "+format, args...)
}

// TestComposePorts checks published host ports are unique and on 127.0.0.1,
// published container ports are ones the command listens on, and no two
// listeners share a port in one network namespace.
func TestComposePorts(t *testing.T) {
	c := loadCompose(t)
	hostUsed := map[string]string{}
	nsUsed := map[string]map[string]string{} // netns -> port -> service
	for _, name := range sortedNames(c) {
		s := c.Services[name]
		listens := s.listenPorts(t, name)
		ns := s.netns(name)
		if nsUsed[ns] == nil {
			nsUsed[ns] = map[string]string{}
		}
		for port := range listens {
			if other, dup := nsUsed[ns][port]; dup {
				t.Errorf("services %s and %s both listen on :%s in one network namespace", other, name, port)
			}
			nsUsed[ns][port] = name
		}
		for _, p := range s.Ports {
			if !strings.HasPrefix(p, "127.0.0.1:") {
				t.Errorf("service %s: port %q: publish on 127.0.0.1 only (the lab has no authentication)", name, p)
			}
			host, container, err := hostPorts(p)
			if err != nil {
				t.Errorf("service %s: %v", name, err)
				continue
			}
			if other, dup := hostUsed[host]; dup {
				t.Errorf("host port %s published by both %s and %s", host, other, name)
			}
			hostUsed[host] = name
			if s.Image == lblabImage && listens[container] == "" {
				t.Errorf("service %s publishes container port %s but its command does not listen there", name, container)
			}
		}
	}
	for _, want := range []string{"8080", "8000", "9090", "3000"} {
		if hostUsed[want] == "" {
			t.Errorf("host port %s is not published", want)
		}
	}
}

// TestComposeReferences checks every address a command names (--backends,
// --target, ...) is a service listening on that port, and depends_on names
// services.
func TestComposeReferences(t *testing.T) {
	c := loadCompose(t)
	listens := map[string]map[string]string{}
	for name, s := range c.Services {
		listens[name] = s.listenPorts(t, name)
	}
	for _, name := range sortedNames(c) {
		s := c.Services[name]
		for flag, vals := range flagValues(s.Command, refFlags) {
			for _, v := range vals {
				for _, ref := range addrRefs(flag, v) {
					host, port, err := net.SplitHostPort(ref)
					if err != nil {
						t.Errorf("service %s: %s %q: %v", name, flag, ref, err)
					} else if listens[host][port] == "" {
						t.Errorf("service %s: %s names %s, but no service %s listens on :%s", name, flag, ref, host, port)
					}
				}
			}
		}
		for d := range s.DependsOn {
			if _, ok := c.Services[d]; !ok {
				t.Errorf("service %s depends on unknown service %s", name, d)
			}
		}
	}
}

// TestComposeMounts checks every bind-mounted file or directory exists.
func TestComposeMounts(t *testing.T) {
	c := loadCompose(t)
	for _, name := range sortedNames(c) {
		for cpath, hpath := range c.Services[name].mounts() {
			if _, err := os.Stat(hpath); err != nil {
				t.Errorf("service %s mounts %s at %s: %v", name, hpath, cpath, err)
			}
		}
	}
}

func sortedNames(c compose) []string {
	var names []string
	for n := range c.Services {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
