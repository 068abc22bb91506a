package lab

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/lblab/lblab/internal/lab/control"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/shell/wire"
)

// All four admin APIs (backend, lb, loadgen and the controller) refuse a
// body with trailing data ({"speed":0.5}{"speed":7} applied 0.5 before) or
// a key given twice, with 400 and a JSON body naming the problem, and
// change nothing. The controller's for: stops where a lab file's does
// (labfile.Bounds.Duration), not at the largest Go duration.
func TestAdminAPIsDecodeStrictlyAndBoundFor(t *testing.T) {
	const token = "strict-test-token-0123456789"
	addr := startUp(t, smallLab(t, "p2c", 3600), func(o *UpOptions) { o.Token = token })
	auth := map[string]string{"Authorization": "Bearer " + token}
	var sd []struct {
		Targets []string          `json:"targets"`
		Labels  map[string]string `json:"labels"`
	}
	if code, body := send(t, "GET", addr, "/api/sd", "", "", auth); code != 200 || json.Unmarshal([]byte(body), &sd) != nil {
		t.Fatalf("GET /api/sd: %d %s", code, body)
	}
	admin := map[string]string{}
	for _, s := range sd {
		if s.Labels["process"] != "backend" || s.Labels["name"] == "s1" {
			admin[s.Labels["process"]] = s.Targets[0]
		}
	}
	if len(admin) != 3 {
		t.Fatalf("admin addresses: %v", admin)
	}
	cases := []struct {
		api, method, addr, path string
		good                    string // the value, sent once
		trailing, dup           string
	}{
		{"backend", "POST", admin["backend"], "/admin/drill", `{"action":"slow","speed":0.5}`, `{"action":"slow","speed":0.5}{"action":"slow","speed":7}`, `{"action":"slow","speed":0.5,"speed":7}`},
		{"lb", "PUT", admin["lb"], "/admin/algorithm", `{"algorithm":"round-robin"}`, `{"algorithm":"round-robin"} {"algorithm":"p2c"}`, `{"algorithm":"round-robin","Algorithm":"p2c"}`},
		{"loadgen", "PUT", admin["loadgen"], "/admin/rate", `{"rate":120}`, `{"rate":120}{"rate":1}`, `{"rate":120,"rate":1}`},
		{"controller", "POST", addr, "/api/chaos", `{"action":"rate","rate":120}`, `{"action":"rate","rate":120}{"action":"kill","target":"s1"}`, `{"action":"rate","rate":120,"rate":1}`},
	}
	for _, c := range cases {
		for body, want := range map[string]string{c.trailing: "trailing data after the JSON value", c.dup: "is given twice in one object"} {
			code, got := send(t, c.method, c.addr, c.path, "", body, auth)
			var e wire.ErrorBody
			if code != 400 || json.Unmarshal([]byte(got), &e) != nil || e.Code != 400 || !strings.Contains(e.Error, "bad JSON body: ") || !strings.Contains(e.Error, want) {
				t.Errorf("%s %s %s: %d %s, want 400 saying %q", c.api, c.path, body, code, got, want)
			}
		}
	}
	// Nothing was applied: s1 runs at full speed, the lb still picks p2c,
	// the loadgen's rate is the lab's, the controller logged no drill.
	var st control.State
	if code, body := send(t, "GET", addr, "/api/state", "", "", auth); code != 200 || json.Unmarshal([]byte(body), &st) != nil {
		t.Fatalf("GET /api/state: %d %s", code, body)
	}
	var s1 struct{ Speed float64 }
	var lb struct{ Algorithm string }
	var lg struct{ Rate float64 }
	json.Unmarshal(st.Servers[0], &s1)
	json.Unmarshal(st.Balancers[0], &lb)
	json.Unmarshal(st.Loadgen, &lg)
	if s1.Speed != 1 || lb.Algorithm != "p2c" || lg.Rate != 150 || len(st.Log) != 0 {
		t.Errorf("after refused bodies: s1 speed %v, lb %s, loadgen rate %v, log %v", s1.Speed, lb.Algorithm, lg.Rate, st.Log)
	}
	// The bodies themselves are good, sent once.
	for _, c := range cases {
		if code, got := send(t, c.method, c.addr, c.path, "", c.good, auth); code != 200 {
			t.Errorf("%s %s %s: %d %s", c.api, c.path, c.good, code, got)
		}
	}

	// for: up to a lab's longest duration, as in a lab file.
	max := labfile.Bounds.Duration.Max
	for _, c := range []struct {
		for_ string
		code int
	}{{"2562047h", 400}, {(max + 1e9).String(), 400}, {max.String(), 200}} {
		code, got := send(t, "POST", addr, "/api/chaos", "", `{"action":"slow","target":"s2","speed":0.5,"for":"`+c.for_+`"}`, auth)
		if code != c.code || (c.code == 400 && !strings.Contains(got, "for: must be in (0s, 8760h]")) {
			t.Errorf("for %s: %d %s, want %d", c.for_, code, got, c.code)
		}
	}
}
