package k8stest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDocsOverlay renders the overlay docs/kubernetes.md shows ("Your own
// overlay"), with its paths pointed at this checkout, and checks it does
// what the page says: namespace, image, replicas, the ServiceMonitor, and
// the user's lab file in place of the base's.
func TestDocsOverlay(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(repoRoot(t), "docs", "kubernetes.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```yaml\n# my-lab/kustomization.yaml\n(.*?)```").FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/kubernetes.md has no my-lab/kustomization.yaml block")
	}
	dir := t.TempDir()
	rel, err := filepath.Rel(dir, baseDir(t)) // kustomize takes no absolute path

	if err != nil {
		t.Fatal(err)
	}
	k := strings.ReplaceAll(string(m[1]), "../deploy/k8s", filepath.ToSlash(rel))
	lab := "name: mine\nclients: {rate: 8000}\nservers: [{count: 1, workers: 8}]\n"
	for name, data := range map[string]string{"kustomization.yaml": k, "lab.yaml": lab} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := render(t, dir)
	ss := r.StatefulSets["backend"]
	if ss == nil || ss.Spec.Replicas == nil || *ss.Spec.Replicas != 100 || ss.Namespace != "lblab" {
		t.Fatalf("StatefulSet backend: %+v", ss)
	}
	if img := ss.Spec.Template.Spec.Containers[0].Image; img != "registry.example/lblab:v1" {
		t.Errorf("image %q", img)
	}
	if len(r.ServiceMonitors) != 1 {
		t.Errorf("%d ServiceMonitors, want the component's one", len(r.ServiceMonitors))
	}
	if len(r.ConfigMaps) != 1 {
		t.Fatalf("%d ConfigMaps, want one", len(r.ConfigMaps))
	}
	for name, cm := range r.ConfigMaps {
		if cm.Data["lab.yaml"] != lab {
			t.Errorf("ConfigMap %s holds %q, want the overlay's lab", name, cm.Data["lab.yaml"])
		}
		if v := ss.Spec.Template.Spec.Volumes[0].ConfigMap; v == nil || v.Name != name {
			t.Errorf("the backends mount %+v, not the overlay's ConfigMap %s", v, name)
		}
	}
}
