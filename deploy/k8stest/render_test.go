package k8stest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// repoRoot is the lblab repository (this module sits in deploy/k8stest).
func repoRoot(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	root, err := filepath.Abs(filepath.Join(filepath.Dir(file), "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// baseDir is the kustomize base under test.
func baseDir(t *testing.T) string { return filepath.Join(repoRoot(t), "deploy", "k8s") }

// manifests is one rendering, decoded: every object by kind and name.
type manifests struct {
	ConfigMaps      map[string]*corev1.ConfigMap
	Services        map[string]*corev1.Service
	Deployments     map[string]*appsv1.Deployment
	StatefulSets    map[string]*appsv1.StatefulSet
	ServiceMonitors map[string]*serviceMonitor
	Jobs            map[string]*batchv1.Job
}

// serviceMonitor is the part of the Prometheus operator's type the
// component uses; unknown fields fail decoding like the k8s.io/api types.
type serviceMonitor struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name      string            `json:"name"`
		Namespace string            `json:"namespace"`
		Labels    map[string]string `json:"labels"`
	} `json:"metadata"`
	Spec struct {
		Selector struct {
			MatchLabels map[string]string `json:"matchLabels"`
		} `json:"selector"`
		Endpoints []struct {
			Port        string `json:"port"`
			Path        string `json:"path"`
			Interval    string `json:"interval"`
			Relabelings []struct {
				SourceLabels []string `json:"sourceLabels"`
				TargetLabel  string   `json:"targetLabel"`
			} `json:"relabelings"`
		} `json:"endpoints"`
	} `json:"spec"`
}

// render runs kustomize on dir and decodes what it yields.
func render(t *testing.T, dir string) *manifests {
	t.Helper()
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	rm, err := k.Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		t.Fatalf("kustomize build %s: %v", dir, err)
	}
	m := &manifests{ConfigMaps: map[string]*corev1.ConfigMap{}, Services: map[string]*corev1.Service{},
		Deployments: map[string]*appsv1.Deployment{}, StatefulSets: map[string]*appsv1.StatefulSet{},
		ServiceMonitors: map[string]*serviceMonitor{}, Jobs: map[string]*batchv1.Job{}}
	for _, r := range rm.Resources() {
		data, err := r.MarshalJSON()
		if err != nil {
			t.Fatalf("%s: %v", r.CurId(), err)
		}
		id := r.GetApiVersion() + " " + r.GetKind() + " " + r.GetName()
		var obj any
		switch r.GetApiVersion() + "/" + r.GetKind() {
		case "v1/ConfigMap":
			obj = put(m.ConfigMaps, r.GetName())
		case "v1/Service":
			obj = put(m.Services, r.GetName())
		case "apps/v1/Deployment":
			obj = put(m.Deployments, r.GetName())
		case "apps/v1/StatefulSet":
			obj = put(m.StatefulSets, r.GetName())
		case "batch/v1/Job":
			obj = put(m.Jobs, r.GetName())
		case "monitoring.coreos.com/v1/ServiceMonitor":
			obj = put(m.ServiceMonitors, r.GetName())
		default:
			t.Errorf("%s: a kind this check does not know (add it here)", id)
			continue
		}
		if err := decodeStrict(data, obj); err != nil {
			t.Errorf("%s: %v", id, err)
		}
	}
	return m
}

func put[T any](m map[string]*T, name string) *T {
	v := new(T)
	m[name] = v
	return v
}

// decodeStrict decodes JSON into v, failing on fields v's type lacks (a
// misspelt or misplaced key the API server would drop or refuse).
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
	buildOut  []byte
)

// binaries builds lblab's ./cmd/... once, into a directory removed when the
// tests end (TestMain).
func binaries(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		if binDir, buildErr = os.MkdirTemp("", "k8stest-bin-"); buildErr != nil {
			return
		}
		cmd := exec.Command("go", "build", "-o", binDir+string(filepath.Separator), "./cmd/...")
		cmd.Dir = repoRoot(t)
		buildOut, buildErr = cmd.CombinedOutput()
	})
	if buildErr != nil {
		t.Fatalf("go build ./cmd/...: %v\n%s", buildErr, buildOut)
	}
	return binDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// workload is a Deployment's or StatefulSet's pod template, by kind/name.
type workload struct {
	id       string
	selector map[string]string
	pod      *corev1.PodTemplateSpec
	replicas *int32
}

func (m *manifests) workloads() []workload {
	var out []workload
	for name, d := range m.Deployments {
		out = append(out, workload{id: "Deployment " + name, selector: d.Spec.Selector.MatchLabels, pod: &d.Spec.Template, replicas: d.Spec.Replicas})
	}
	for name, s := range m.StatefulSets {
		out = append(out, workload{id: "StatefulSet " + name, selector: s.Spec.Selector.MatchLabels, pod: &s.Spec.Template, replicas: s.Spec.Replicas})
	}
	return out
}

// selects reports whether every label of sel is in labels.
func selects(sel, labels map[string]string) bool {
	if len(sel) == 0 {
		return false
	}
	for k, v := range sel {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// selected are the workloads a Service's selector picks.
func (m *manifests) selected(svc *corev1.Service) []workload {
	var out []workload
	for _, w := range m.workloads() {
		if selects(svc.Spec.Selector, w.pod.Labels) {
			out = append(out, w)
		}
	}
	return out
}

// containerPort resolves a port (number or name) in a pod; 0 if none.
func containerPort(pod *corev1.PodTemplateSpec, port string) int32 {
	for _, c := range pod.Spec.Containers {
		for _, p := range c.Ports {
			if p.Name == port || fmt.Sprint(p.ContainerPort) == port {
				return p.ContainerPort
			}
		}
	}
	return 0
}
