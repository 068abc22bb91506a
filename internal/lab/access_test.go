package lab

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/lab/admin"
	"github.com/lblab/lblab/internal/lab/control"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/shell/state"
	"github.com/lblab/lblab/internal/shell/wire"
)

// send makes one request to the controller (or a process) at addr with
// the given Host, headers and body; it returns the status and body.
func send(t *testing.T, method, addr, path, host, body string, hdr map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, "http://"+addr+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	client := &http.Client{Timeout: 5 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if c := resp.Header.Get("Set-Cookie"); c != "" {
		data = append([]byte("Set-Cookie: "+c+"\n"), data...)
	}
	return resp.StatusCode, string(data)
}

// The controller and the processes lab up starts refuse what a web page
// could make a browser send - a cross-site POST (text/plain, no preflight),
// a request under a rebinding Host name - and, with a token, anyone without
// it; the dashboard page gets the token once through ?token= as a cookie.
func TestControllerAndProcessesRefuseStrangers(t *testing.T) {
	const token = "access-test-token-0123456789"
	addr := startUp(t, smallLab(t, "p2c", 3600), func(o *UpOptions) {
		o.Token, o.Access = token, wire.Access{Token: token}
	})
	auth := map[string]string{"Authorization": "Bearer " + token}
	waitState := func() state.Backend {
		var st control.State
		code, body := send(t, "GET", addr, "/api/state", "", "", auth)
		if code != 200 || json.Unmarshal([]byte(body), &st) != nil || len(st.Servers) == 0 {
			t.Fatalf("GET /api/state: %d %s", code, body)
		}
		var s1 state.Backend
		_ = json.Unmarshal(st.Servers[0], &s1)
		return s1
	}
	drill := `{"action":"slow","target":"s1","speed":0.5}`
	for _, tc := range []struct {
		name string
		host string
		hdr  map[string]string
		code int
	}{
		{"a cross-site POST", "", map[string]string{"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site",
			"Content-Type": "text/plain", "Authorization": "Bearer " + token}, 403},
		{"a rebinding Host", "evil.example:" + addr[strings.LastIndexByte(addr, ':')+1:], auth, 403},
		{"no token", "", map[string]string{"Content-Type": "application/json"}, 401},
		{"a wrong token", "", map[string]string{"Authorization": "Bearer " + token + "x"}, 401},
	} {
		code, body := send(t, "POST", addr, "/api/chaos", tc.host, drill, tc.hdr)
		if code != tc.code || !strings.Contains(body, `"code":`) {
			t.Errorf("%s: %d %s, want %d with a JSON reason", tc.name, code, body, tc.code)
		}
	}
	if s1 := waitState(); s1.Speed != 1 {
		t.Fatalf("a refused drill was applied: s1 speed %v", s1.Speed)
	}
	if code, body := send(t, "POST", addr, "/api/chaos", "", drill, auth); code != 200 {
		t.Fatalf("the drill with the token: %d %s", code, body)
	}
	if s1 := waitState(); s1.Speed != 0.5 {
		t.Fatalf("after the drill: s1 speed %v", s1.Speed)
	}
	if _, err := control.SendDrill(admin.WithToken(context.Background(), token), addr, labDrill("restore", "s1")); err != nil {
		t.Fatalf("lab chaos with the token: %v", err)
	}

	// The page: ?token= once sets the cookie, which then opens the page
	// and the API to the browser.
	code, body := send(t, "GET", addr, "/?token="+token, "", "", nil)
	if code != 303 || !strings.Contains(body, "Set-Cookie: "+wire.TokenCookie+"="+token) {
		t.Fatalf("GET /?token=: %d %s", code, body)
	}
	cookie := map[string]string{"Cookie": wire.TokenCookie + "=" + token}
	if code, body := send(t, "GET", addr, "/", "", "", cookie); code != 200 || !strings.Contains(body, "<html") {
		t.Fatalf("the page with the cookie: %d %.100s", code, body)
	}
	if code, _ := send(t, "GET", addr, "/api/snapshot", "", "", cookie); code != 200 && code != 503 {
		t.Fatalf("the API with the cookie: %d", code)
	}
	if code, _ := send(t, "GET", addr, "/", "", "", nil); code != 401 {
		t.Fatalf("the page without the token: %d", code)
	}

	// The processes lab started take the token too, and nothing without it.
	var sd []control.SDTarget
	if code, body := send(t, "GET", addr, "/api/sd", "", "", auth); code != 200 || json.Unmarshal([]byte(body), &sd) != nil || len(sd) == 0 {
		t.Fatalf("GET /api/sd: %d %s", code, body)
	}
	for _, e := range sd {
		admin := e.Targets[0]
		if code, body := send(t, "GET", admin, "/admin/state", "", "", nil); code != 401 {
			t.Errorf("%s without the token: %d %s", e.Labels["name"], code, body)
		}
		if code, body := send(t, "GET", admin, "/admin/state", "", "", auth); code != 200 {
			t.Errorf("%s with the token: %d %s", e.Labels["name"], code, body)
		}
		if code, _ := send(t, "GET", admin, "/metrics", "", "", nil); code != 200 {
			t.Errorf("%s: /metrics (for Prometheus) without the token: %d", e.Labels["name"], code)
		}
	}
}

func labDrill(args ...string) labfile.Event {
	ev, _ := labfile.ParseDrill(args)
	return ev
}
