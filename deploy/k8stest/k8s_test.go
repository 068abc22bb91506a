package k8stest

import (
	"bytes"
	"context"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// listenFlags take a listen address; refFlags name other processes'.
var (
	listenFlags = []string{"--addr", "--admin", "--listen"}
	refFlags    = []string{"--backends", "--backend-admins", "--backends-dns", "--target", "--admins", "--lb", "--loadgen"}
)

// flagValues are the values of flag in a command line (--f v and --f=v).
func flagValues(cmd []string, flag string) []string {
	var out []string
	for i := 0; i < len(cmd); i++ {
		name, val, hasVal := strings.Cut(cmd[i], "=")
		if name != flag {
			continue
		}
		if !hasVal && i+1 < len(cmd) {
			i++
			val = cmd[i]
		}
		out = append(out, val)
	}
	return out
}

func commandLine(c corev1.Container) []string { return append(slices.Clone(c.Command), c.Args...) }

// listenPorts maps the ports a command listens on to their flag.
func listenPorts(t *testing.T, id string, cmd []string) map[int32]string {
	out := map[int32]string{}
	for _, f := range listenFlags {
		for _, v := range flagValues(cmd, f) {
			host, port, err := net.SplitHostPort(v)
			p, perr := strconv.Atoi(port)
			if err != nil || perr != nil {
				t.Errorf("%s: %s %q is not HOST:PORT", id, f, v)
				continue
			}
			if host != "0.0.0.0" {
				t.Errorf("%s: %s %q must bind 0.0.0.0 to be reachable from other pods", id, f, v)
			}
			out[int32(p)] = f
		}
	}
	return out
}

// adminPort is where a process serves GET /healthz (and, except lab
// dashboard, /metrics): --admin, or --listen.
func adminPort(cmd []string) int32 {
	for _, f := range []string{"--admin", "--listen"} {
		for _, v := range flagValues(cmd, f) {
			if _, port, err := net.SplitHostPort(v); err == nil {
				p, _ := strconv.Atoi(port)
				return int32(p)
			}
		}
	}
	return 0
}

// refs are the host:port addresses a command names.
func refs(cmd []string) []string {
	var out []string
	for _, f := range refFlags {
		for _, v := range flagValues(cmd, f) {
			for item := range strings.SplitSeq(v, ",") {
				name, rest, ok := strings.Cut(item, "=")
				switch {
				case ok && f == "--admins":
					out = append(out, name, rest)
					continue
				case ok && !strings.Contains(name, "/"):
					item = rest
				}
				for u := range strings.SplitSeq(item, "|") {
					if p, err := url.Parse(u); err == nil && p.Host != "" {
						u = p.Host
					}
					out = append(out, strings.TrimSpace(u))
				}
			}
		}
	}
	if dns := flagValues(cmd, "--backends-dns"); len(dns) > 0 {
		for _, p := range flagValues(cmd, "--backends-dns-admin") {
			host, _, _ := net.SplitHostPort(dns[0])
			out = append(out, net.JoinHostPort(host, p))
		}
	}
	return out
}

// TestRenderStrict renders the base and checks its objects decode into the
// Kubernetes API types with no unknown field, and are the ones expected.
func TestRenderStrict(t *testing.T) {
	m := render(t, baseDir(t))
	var got []string
	for name := range m.Services {
		got = append(got, "Service "+name)
	}
	for _, w := range m.workloads() {
		got = append(got, w.id)
	}
	slices.Sort(got)
	want := []string{"Deployment dashboard", "Deployment lb", "Deployment loadgen", "Service backend", "Service dashboard",
		"Service lb", "Service loadgen", "StatefulSet backend"}
	if !slices.Equal(got, want) {
		t.Errorf("objects %v, want %v", got, want)
	}
	if len(m.ConfigMaps) != 1 || len(m.ServiceMonitors) != 0 {
		t.Errorf("want one ConfigMap (the lab) and no ServiceMonitor in the base, got %d and %d", len(m.ConfigMaps), len(m.ServiceMonitors))
	}
	for _, w := range m.workloads() {
		if !selects(w.selector, w.pod.Labels) {
			t.Errorf("%s: selector %v does not match its pod labels %v", w.id, w.selector, w.pod.Labels)
		}
		if w.pod.Labels["app.kubernetes.io/part-of"] != "lblab" {
			t.Errorf("%s: pods lack app.kubernetes.io/part-of=lblab", w.id)
		}
	}
}

// TestCommandsCheckConfig runs every container's command line with
// --check-config appended, with its ConfigMap volumes written where it
// mounts them: the binaries' own flag parsing accepts it.
func TestCommandsCheckConfig(t *testing.T) {
	m := render(t, baseDir(t))
	bin := binaries(t)
	for _, w := range m.workloads() {
		for _, c := range w.pod.Spec.Containers {
			t.Run(strings.ReplaceAll(w.id, " ", "/"), func(t *testing.T) {
				cmd := commandLine(c)
				if len(cmd) == 0 {
					t.Fatal("no command: the image's default is lab --help")
				}
				args := append(mountedArgs(t, m, w, c, cmd[1:]), "--check-config")
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				run := exec.CommandContext(ctx, filepath.Join(bin, cmd[0]), args...)
				run.Env = containerEnv(t, c)
				var out bytes.Buffer
				run.Stdout, run.Stderr = &out, &out
				if err := run.Run(); err != nil {
					t.Fatalf("%s %s: %v\n%s", cmd[0], strings.Join(args, " "), err, out.String())
				}
				t.Logf("%s", strings.TrimSpace(out.String()))
			})
		}
	}
}

// testToken stands for the lblab-token Secret's token.
const testToken = "k8s-check-0123456789abcdef"

// containerEnv is c's environment as the kubelet gives it, with the
// lblab-token Secret's key token as testToken.
func containerEnv(t *testing.T, c corev1.Container) []string {
	t.Helper()
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	for _, e := range c.Env {
		switch {
		case e.ValueFrom == nil:
			env = append(env, e.Name+"="+e.Value)
		case e.ValueFrom.SecretKeyRef != nil && e.ValueFrom.SecretKeyRef.Name == "lblab-token" && e.ValueFrom.SecretKeyRef.Key == "token":
			env = append(env, e.Name+"="+testToken)
		default:
			t.Fatalf("%s: env %s: a source this check does not know", c.Name, e.Name)
		}
	}
	return env
}

// TestEveryContainerHasTheToken: the admin APIs bind 0.0.0.0, so each
// process needs the lab's token (and presents it to the others): every
// container takes LBLAB_TOKEN from the Secret lblab-token, and answers to
// the Service names (LBLAB_ALLOW_HOST).
func TestEveryContainerHasTheToken(t *testing.T) {
	m := render(t, baseDir(t))
	for _, w := range m.workloads() {
		for _, c := range w.pod.Spec.Containers {
			var token, hosts bool
			for _, e := range c.Env {
				if r := e.ValueFrom; e.Name == "LBLAB_TOKEN" && r != nil && r.SecretKeyRef != nil && r.SecretKeyRef.Name == "lblab-token" {
					token = true
				}
				hosts = hosts || e.Name == "LBLAB_ALLOW_HOST" && e.Value == "*"
			}
			if !token || !hosts {
				t.Errorf("%s/%s: LBLAB_TOKEN from the Secret lblab-token %v, LBLAB_ALLOW_HOST=* %v; want both", w.id, c.Name, token, hosts)
			}
		}
	}
}

// mountedArgs writes the ConfigMaps a container mounts into a temporary
// directory and rewrites the paths in args that point into them.
func mountedArgs(t *testing.T, m *manifests, w workload, c corev1.Container, args []string) []string {
	t.Helper()
	out := slices.Clone(args)
	for _, vm := range c.VolumeMounts {
		var cm *corev1.ConfigMap
		for _, v := range w.pod.Spec.Volumes {
			if v.Name == vm.Name && v.ConfigMap != nil {
				cm = m.ConfigMaps[v.ConfigMap.Name]
				if cm == nil {
					t.Fatalf("volume %s: no ConfigMap %s", v.Name, v.ConfigMap.Name)
				}
			}
		}
		if cm == nil {
			t.Fatalf("volume mount %s: not a ConfigMap volume of the pod", vm.Name)
		}
		dir := t.TempDir()
		for name, data := range cm.Data {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for i, a := range out {
			if rest, ok := strings.CutPrefix(a, vm.MountPath+"/"); ok {
				out[i] = filepath.Join(dir, rest)
			}
		}
	}
	return out
}

// TestPortsProbesResources checks each container declares exactly the
// ports it listens on, probes /healthz on its admin port, and requests CPU
// and memory.
func TestPortsProbesResources(t *testing.T) {
	m := render(t, baseDir(t))
	for _, w := range m.workloads() {
		for _, c := range w.pod.Spec.Containers {
			id := w.id + " container " + c.Name
			cmd := commandLine(c)
			listens := listenPorts(t, id, cmd)
			declared := map[int32]bool{}
			for _, p := range c.Ports {
				declared[p.ContainerPort] = true
				if listens[p.ContainerPort] == "" {
					t.Errorf("%s: port %s (%d) is declared, but the command does not listen there", id, p.Name, p.ContainerPort)
				}
				if p.Name == "" {
					t.Errorf("%s: port %d needs a name (probes and Services refer to it)", id, p.ContainerPort)
				}
			}
			for p, f := range listens {
				if !declared[p] {
					t.Errorf("%s: listens on %d (%s) but does not declare it", id, p, f)
				}
			}
			admin := adminPort(cmd)
			for kind, probe := range map[string]*corev1.Probe{"readinessProbe": c.ReadinessProbe, "livenessProbe": c.LivenessProbe} {
				if probe == nil {
					if kind == "readinessProbe" {
						t.Errorf("%s: no readinessProbe", id)
					}
					continue
				}
				g := probe.HTTPGet
				if g == nil || g.Path != "/healthz" || resolve(w.pod, g.Port) != admin {
					t.Errorf("%s: %s must GET /healthz on the admin port %d, got %+v", id, kind, admin, g)
				}
			}
			req := c.Resources.Requests
			if req.Cpu().IsZero() || req.Memory().IsZero() {
				t.Errorf("%s: request CPU and memory (got %v)", id, req)
			}
			if c.Image != "lblab:local" {
				t.Errorf("%s: image %q, want lblab:local (the kustomize image lblab)", id, c.Image)
			}
		}
	}
}

// resolve is the container port an IntOrString names in a pod.
func resolve(pod *corev1.PodTemplateSpec, p intstr.IntOrString) int32 {
	if p.Type == intstr.Int {
		return containerPort(pod, strconv.Itoa(int(p.IntVal)))
	}
	return containerPort(pod, p.StrVal)
}

// TestServicesSelectPods checks each Service selects exactly one workload
// and forwards every port to one its pods listen on; the StatefulSet's
// serviceName is a headless Service that selects it.
func TestServicesSelectPods(t *testing.T) {
	m := render(t, baseDir(t))
	for name, svc := range m.Services {
		sel := m.selected(svc)
		if len(sel) != 1 {
			t.Errorf("Service %s: selector %v picks %d workloads, want 1", name, svc.Spec.Selector, len(sel))
			continue
		}
		listens := map[int32]string{}
		for _, c := range sel[0].pod.Spec.Containers {
			for p, f := range listenPorts(t, sel[0].id, commandLine(c)) {
				listens[p] = f
			}
		}
		for _, p := range svc.Spec.Ports {
			target := p.TargetPort
			if target.Type == intstr.Int && target.IntVal == 0 {
				target = intstr.FromInt32(p.Port)
			}
			if cp := resolve(sel[0].pod, target); cp == 0 || listens[cp] == "" {
				t.Errorf("Service %s port %s: targetPort %s is no port %s listens on", name, p.Name, target.String(), sel[0].id)
			}
		}
	}
	for name, ss := range m.StatefulSets {
		svc := m.Services[ss.Spec.ServiceName]
		if svc == nil || svc.Spec.ClusterIP != corev1.ClusterIPNone {
			t.Errorf("StatefulSet %s: serviceName %q must be a headless Service (clusterIP: None)", name, ss.Spec.ServiceName)
		} else if !selects(svc.Spec.Selector, ss.Spec.Template.Labels) {
			t.Errorf("StatefulSet %s: its Service %s does not select its pods", name, svc.Name)
		}
	}
}

// TestReferences checks every address a command names is a Service on a
// port whose target the selected pods listen on; a --backends-dns name is
// a headless Service (its A records are the pods).
func TestReferences(t *testing.T) {
	m := render(t, baseDir(t))
	for _, w := range m.workloads() {
		for _, c := range w.pod.Spec.Containers {
			cmd := commandLine(c)
			for _, ref := range refs(cmd) {
				host, port, err := net.SplitHostPort(ref)
				if err != nil {
					t.Errorf("%s: %q is not HOST:PORT", w.id, ref)
					continue
				}
				svc := m.Services[host]
				if svc == nil {
					t.Errorf("%s names %s, but there is no Service %s", w.id, ref, host)
					continue
				}
				if !slices.ContainsFunc(svc.Spec.Ports, func(p corev1.ServicePort) bool { return strconv.Itoa(int(p.Port)) == port }) {
					t.Errorf("%s names %s, but Service %s has no port %s", w.id, ref, host, port)
				}
			}
			for _, v := range flagValues(cmd, "--backends-dns") {
				host, _, _ := net.SplitHostPort(v)
				if svc := m.Services[host]; svc != nil && svc.Spec.ClusterIP != corev1.ClusterIPNone {
					t.Errorf("%s: --backends-dns %s: Service %s must be headless, or its name resolves to one virtual IP", w.id, v, host)
				}
			}
		}
	}
}

// TestFleetScales checks the backends are a StatefulSet that can grow to a
// hundred at once, each emulating a lab server under its pod name, leaving
// in lame-duck mode within the grace period, and that the lb and the
// dashboard follow its Service by DNS.
func TestFleetScales(t *testing.T) {
	m := render(t, baseDir(t))
	ss := m.StatefulSets["backend"]
	if ss == nil {
		t.Fatal("no StatefulSet backend")
	}
	if ss.Spec.PodManagementPolicy != "Parallel" {
		t.Errorf("StatefulSet backend: podManagementPolicy %q: a hundred pods should start in parallel", ss.Spec.PodManagementPolicy)
	}
	cmd := commandLine(ss.Spec.Template.Spec.Containers[0])
	if len(flagValues(cmd, "--server")) != 1 || len(flagValues(cmd, "--name")) != 0 {
		t.Errorf("backend: want --server and no --name (each pod is named after its host name), got %v", cmd)
	}
	lame, err := time.ParseDuration(strings.Join(flagValues(cmd, "--lame-duck"), ""))
	grace := ss.Spec.Template.Spec.TerminationGracePeriodSeconds
	if err != nil || grace == nil || time.Duration(*grace)*time.Second < lame+5*time.Second {
		t.Errorf("backend: --lame-duck %v plus the 5 s drain must fit terminationGracePeriodSeconds %v (%v)", lame, grace, err)
	}
	for _, name := range []string{"lb", "dashboard"} {
		c := m.Deployments[name].Spec.Template.Spec.Containers[0]
		dns := flagValues(commandLine(c), "--backends-dns")
		if len(dns) != 1 || !strings.HasPrefix(dns[0], ss.Spec.ServiceName+":") {
			t.Errorf("%s: want --backends-dns %s:PORT, got %v", name, ss.Spec.ServiceName, dns)
		}
		if v := flagValues(commandLine(c), "--backends"); len(v) > 0 {
			t.Errorf("%s: --backends %v would not follow the StatefulSet's scale", name, v)
		}
	}
}

// TestPrometheusAnnotations checks every pod that serves /metrics (all but
// lab dashboard's) is annotated for Prometheus's kubernetes-pods discovery
// with its admin port.
func TestPrometheusAnnotations(t *testing.T) {
	m := render(t, baseDir(t))
	for _, w := range m.workloads() {
		cmd := commandLine(w.pod.Spec.Containers[0])
		a := w.pod.Annotations
		if cmd[0] == "lab" {
			if a["prometheus.io/scrape"] == "true" {
				t.Errorf("%s: lab dashboard serves no /metrics: do not annotate it for scraping", w.id)
			}
			continue
		}
		want := map[string]string{"prometheus.io/scrape": "true", "prometheus.io/port": strconv.Itoa(int(adminPort(cmd))), "prometheus.io/path": "/metrics"}
		for k, v := range want {
			if a[k] != v {
				t.Errorf("%s: annotation %s = %q, want %q", w.id, k, a[k], v)
			}
		}
	}
}

// TestServiceMonitorComponent renders the base with the Prometheus
// operator component: its ServiceMonitor selects the Service of every
// process that serves /metrics, on the port that reaches its admin API.
func TestServiceMonitorComponent(t *testing.T) {
	m := render(t, filepath.Join("testdata", "with-operator"))
	if len(m.ServiceMonitors) != 1 {
		t.Fatalf("want one ServiceMonitor, got %d", len(m.ServiceMonitors))
	}
	for _, sm := range m.ServiceMonitors {
		if len(sm.Spec.Endpoints) != 1 {
			t.Fatalf("ServiceMonitor %s: want one endpoint, got %d", sm.Metadata.Name, len(sm.Spec.Endpoints))
		}
		ep := sm.Spec.Endpoints[0]
		if ep.Path != "/metrics" {
			t.Errorf("ServiceMonitor %s: path %q, want /metrics", sm.Metadata.Name, ep.Path)
		}
		scraped := map[string]bool{}
		for name, svc := range m.Services {
			if !selects(sm.Spec.Selector.MatchLabels, svc.Labels) {
				continue
			}
			for _, p := range svc.Spec.Ports {
				if p.Name != ep.Port {
					continue
				}
				w := m.selected(svc)[0]
				if resolve(w.pod, p.TargetPort) != adminPort(commandLine(w.pod.Spec.Containers[0])) {
					t.Errorf("ServiceMonitor %s: Service %s port %s does not reach the admin API", sm.Metadata.Name, name, ep.Port)
				}
				scraped[name] = true
			}
		}
		for _, w := range m.workloads() {
			if commandLine(w.pod.Spec.Containers[0])[0] == "lab" {
				continue
			}
			found := false
			for name, svc := range m.Services {
				found = found || scraped[name] && selects(svc.Spec.Selector, w.pod.Labels)
			}
			if !found {
				t.Errorf("ServiceMonitor %s does not scrape %s", sm.Metadata.Name, w.id)
			}
		}
	}
}
