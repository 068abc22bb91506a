package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// lab up with a token: the drill hint it prints works as printed, from a
// shell without the token, and holds no token (lab chaos reads the token
// file lab up wrote, 0600, removed at the end). A request no process can
// parse, sent with the token to every admin and data port of every
// process, leaves the token out of the process log, which is 0600.
func TestUpWithTokenHintWorksAndLogsKeepTheTokenOut(t *testing.T) {
	const token = "e2e-Secret-Token-0123456789abcdef"
	dir := t.TempDir()
	env := func(withToken bool) []string {
		var out []string
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "LBLAB_TOKEN=") && !strings.HasPrefix(kv, "XDG_RUNTIME_DIR=") && !strings.HasPrefix(kv, "TMPDIR=") {
				out = append(out, kv)
			}
		}
		out = append(out, "XDG_RUNTIME_DIR="+dir, "TMPDIR="+dir)
		if withToken {
			out = append(out, "LBLAB_TOKEN="+token)
		}
		return out
	}
	port := freePort(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	up := exec.CommandContext(ctx, "./"+filepath.Base(labBin), "up", tinyLab(t), "--listen", "127.0.0.1:"+port, "--lb", "127.0.0.1:0")
	up.Dir, up.Env = filepath.Dir(labBin), env(true) // the token only in lab up's environment
	stdout, err := up.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	up.Stderr = &stderr
	if err := up.Start(); err != nil {
		t.Fatal(err)
	}
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			up.Process.Signal(syscall.SIGINT)
			up.Wait()
		}
	}
	defer stop()
	var welcome strings.Builder
	sc := bufio.NewScanner(stdout)
	for sc.Scan() && !strings.Contains(sc.Text(), "Ctrl-C stops") {
		welcome.WriteString(sc.Text() + "\n")
	}
	go io.Copy(io.Discard, stdout)
	hint := regexp.MustCompile(`drills: (.*? kill s2)`).FindStringSubmatch(welcome.String())
	if hint == nil {
		t.Fatalf("no drill hint:\n%s", welcome.String())
	}
	if strings.Contains(hint[1], token) {
		t.Fatalf("the hint shows the token: %q", hint[1])
	}
	ctrl := "127.0.0.1:" + port
	tokenFile := filepath.Join(dir, "lblab", "controller-127.0.0.1_"+port+".token")
	if fi, err := os.Stat(tokenFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the token file %s: %v %v, want mode 0600", tokenFile, fi, err)
	}

	// The hint as printed, in a shell without the token.
	args := strings.Fields(hint[1])
	chaos := exec.CommandContext(ctx, args[0], args[1:]...)
	chaos.Dir, chaos.Env = filepath.Dir(labBin), env(false)
	out, err := chaos.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "applied: kill s2") {
		t.Fatalf("the hint %q: %v\n%s", hint[1], err, out)
	}
	// Without the token file, the controller refuses lab chaos and says why.
	os.Rename(tokenFile, tokenFile+".away")
	chaos = exec.CommandContext(ctx, args[0], append(args[1:len(args)-2], "restart", "s2")...)
	chaos.Dir, chaos.Env = filepath.Dir(labBin), env(false)
	if out, err := chaos.CombinedOutput(); err == nil || !strings.Contains(string(out), "LBLAB_TOKEN") {
		t.Errorf("lab chaos with no token anywhere: %v %s", err, out)
	}
	os.Rename(tokenFile+".away", tokenFile)

	// Every process's ports: the admin listeners from service discovery,
	// the data listeners from the state.
	var sd []struct {
		Targets []string          `json:"targets"`
		Labels  map[string]string `json:"labels"`
	}
	get(t, ctrl, "/api/sd", token, &sd)
	var st struct {
		Servers []struct {
			Name      string `json:"name"`
			Addr      string `json:"addr"`
			Listening bool   `json:"listening"`
		} `json:"servers"`
	}
	get(t, ctrl, "/api/state", token, &st)
	ports := map[string]string{}
	for _, s := range sd {
		ports[s.Labels["name"]+" admin"] = s.Targets[0]
	}
	for _, s := range st.Servers {
		if s.Addr != "" && s.Listening { // not s2, which the drill killed
			ports[s.Name+" data"] = s.Addr
		}
	}
	if lb := regexp.MustCompile(`balancer: +http://(\S+)`).FindStringSubmatch(welcome.String()); lb != nil {
		ports["lb data"] = lb[1]
	}
	var roles []string
	for _, s := range sd {
		roles = append(roles, s.Labels["process"])
	}
	t.Logf("probing %d ports: %v", len(ports), ports)
	if len(ports) < 6 || !strings.Contains(strings.Join(roles, ","), "loadgen") {
		t.Fatalf("found only these ports: %v (processes %v)", ports, roles)
	}
	for name, addr := range ports {
		for _, raw := range []string{
			"GET /admin/state HTTP/1.1\r\nAuthorization: Bearer " + token + "\r\n\r\n", // no Host: unparsable
			"GET /?token=" + token + " HTTP/1.1\r\nX-Lab-Token: " + token + "\r\nContent-Length: x\r\n\r\n",
		} {
			c, err := net.DialTimeout("tcp", addr, 5*time.Second)
			if err != nil {
				t.Fatalf("%s %s: %v", name, addr, err)
			}
			c.SetDeadline(time.Now().Add(5 * time.Second))
			c.Write([]byte(raw))
			answer, _ := io.ReadAll(c)
			c.Close()
			if !bytes.Contains(answer, []byte(" 400 ")) || bytes.Contains(answer, []byte(token)) {
				t.Errorf("%s %s: answered %q, want 400 without the token", name, addr, answer)
			}
		}
	}
	time.Sleep(200 * time.Millisecond) // the processes' lines reach the log
	stop()

	m := regexp.MustCompile(`process logs: (\S+)`).FindStringSubmatch(stderr.String())
	if m == nil {
		t.Fatalf("no log path in lab up's stderr:\n%s", stderr.String())
	}
	fi, err := os.Stat(m[1])
	if err != nil || fi.Mode().Perm() != 0o600 || filepath.Dir(m[1]) != filepath.Clean(dir) {
		t.Fatalf("the log %s: %v %v, want mode 0600 in the temp directory", m[1], fi, err)
	}
	logs, _ := os.ReadFile(m[1])
	if len(logs) == 0 {
		t.Fatal("the process log is empty: nothing to check")
	}
	if bytes.Contains(logs, []byte(token)) || bytes.Contains(logs, []byte(token[:12])) {
		i := bytes.Index(logs, []byte(token[:12]))
		t.Fatalf("the token is in the process log:\n%s", logs[max(0, i-300):min(len(logs), i+100)])
	}
	if strings.Contains(stderr.String(), token) {
		t.Errorf("the token is in lab up's own log")
	}
	if _, err := os.Stat(tokenFile); !os.IsNotExist(err) {
		t.Errorf("the token file outlived lab up: %v", err)
	}
}

// get decodes GET path on the controller at addr, presenting token.
func get(t *testing.T, addr, path, token string, into any) {
	t.Helper()
	req, _ := http.NewRequest("GET", "http://"+addr+path, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %s", path, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(into); err != nil {
		t.Fatal(fmt.Errorf("GET %s: %w", path, err))
	}
}
