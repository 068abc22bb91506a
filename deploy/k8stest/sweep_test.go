package k8stest

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// completionIndex is the annotation the Job controller sets on each pod of
// an Indexed Job: its completion index.
const completionIndex = "metadata.annotations['batch.kubernetes.io/job-completion-index']"

// TestSweepJob renders deploy/k8s/sweep and checks the Indexed Job: one
// slice per completion index, its --shard I/N taking I from the index and N
// equal to completions; then runs every slice's command as its pod would
// (shortened: --duration and --seeds appended, which every slice gets
// alike), collects their output into one file as kubectl logs would, and
// merges it (docs/sweeps.md): the merge must print what the same sweep run
// whole prints.
func TestSweepJob(t *testing.T) {
	m := render(t, filepath.Join(baseDir(t), "sweep"))
	if len(m.Jobs) != 1 || len(m.Deployments)+len(m.StatefulSets)+len(m.Services)+len(m.ConfigMaps) != 0 {
		t.Fatalf("want one Job and nothing else, got %d Jobs and %d other objects", len(m.Jobs),
			len(m.Deployments)+len(m.StatefulSets)+len(m.Services)+len(m.ConfigMaps))
	}
	var job *batchv1.Job
	for _, j := range m.Jobs {
		job = j
	}
	s := job.Spec
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion || s.Completions == nil || *s.Completions < 2 {
		t.Fatalf("Job %s: want completionMode Indexed and completions >= 2, got %v and %v", job.Name, s.CompletionMode, s.Completions)
	}
	n := int(*s.Completions)
	if s.Parallelism == nil || *s.Parallelism < 1 || *s.Parallelism > *s.Completions {
		t.Errorf("parallelism %v: want 1 to completions (%d)", s.Parallelism, n)
	}
	if p := s.Template.Spec.RestartPolicy; p != corev1.RestartPolicyNever && p != corev1.RestartPolicyOnFailure {
		t.Errorf("restartPolicy %q: a Job's pods need Never or OnFailure", p)
	}
	if s.Template.Labels["app.kubernetes.io/part-of"] != "lblab" || len(s.Template.Spec.Containers) != 1 {
		t.Fatalf("pod template: labels %v, %d containers", s.Template.Labels, len(s.Template.Spec.Containers))
	}
	c := s.Template.Spec.Containers[0]
	if c.Image != "lblab:local" {
		t.Errorf("image %q, want lblab:local (kustomize images)", c.Image)
	}
	indexVar := ""
	for _, e := range c.Env {
		if e.ValueFrom != nil && e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == completionIndex {
			indexVar = e.Name
		}
	}
	if indexVar == "" {
		t.Fatalf("no env var holds the completion index (%s)", completionIndex)
	}
	cmd := commandLine(c)
	shards := flagValues(cmd, "--shard")
	want := "$(" + indexVar + ")/" + strconv.Itoa(n)
	if len(cmd) < 3 || cmd[0] != "lab" || cmd[1] != "sweep" || len(shards) != 1 || shards[0] != want {
		t.Fatalf("command %q: want lab sweep ... --shard %s (N = completions)", cmd, want)
	}
	if len(flagValues(cmd, "--part")) != 0 || len(flagValues(cmd, "--json")) != 0 {
		t.Errorf("command %q: the part must go to stdout, where kubectl logs collects it", cmd)
	}

	bin, dir := binaries(t), t.TempDir()
	short := []string{"--duration", "2s", "--seeds", "2"}
	run := func(args ...string) ([]byte, []byte) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		r := exec.CommandContext(ctx, filepath.Join(bin, "lab"), args...)
		var out, errOut bytes.Buffer
		r.Stdout, r.Stderr = &out, &errOut
		if err := r.Run(); err != nil {
			t.Fatalf("lab %s: %v\n%s", strings.Join(args, " "), err, errOut.String())
		}
		return out.Bytes(), errOut.Bytes()
	}
	var logs bytes.Buffer // what kubectl logs -l job-name=... gives: each pod's stderr and stdout
	ref := regexp.MustCompile(`\$\(` + regexp.QuoteMeta(indexVar) + `\)`)
	for i := range n {
		args := make([]string, 0, len(cmd)+len(short))
		for _, a := range cmd[1:] {
			args = append(args, ref.ReplaceAllString(a, strconv.Itoa(i)))
		}
		out, errOut := run(append(args, short...)...)
		logs.Write(errOut)
		logs.Write(out)
	}
	parts := filepath.Join(dir, "parts.log")
	if err := os.WriteFile(parts, logs.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	merged, _ := run("sweep", "merge", parts, "--json")
	var whole []string
	for i := 1; i < len(cmd); i++ { // the sweep without --shard
		if cmd[i] == "--shard" {
			i++
			continue
		}
		whole = append(whole, cmd[i])
	}
	all, _ := run(append(append(whole, short...), "--json")...)
	if !bytes.Equal(merged, all) || len(all) < 1000 {
		t.Errorf("the merged slices differ from the sweep run whole (%d and %d bytes)", len(merged), len(all))
	}
}
