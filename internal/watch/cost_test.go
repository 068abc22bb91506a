package watch

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/lblab/lblab/internal/assemble"
	"github.com/lblab/lblab/internal/labfile/labyaml"
)

// heavyLab is a lab whose caches would take about 30 GiB once they fill:
// 1,000 servers x the smaller of cache.size and clients.keys.
const heavyLab = `name: heavy
duration: 5s
clients:
  rate: 50
  keys: 1000000
servers:
  - count: 1000
    cache:
      size: 1000000
`

// lightLab is the same fleet without caches: well within the budget, and
// a drill that gives it the caches would take it over.
var lightLab = strings.Replace(heavyLab, "      size: 1000000", "      size: 0", 1)

// A lab over the cost budget is refused before it plays, as lab sim
// refuses it, wherever it comes from: the lab given to New (lab watch
// FILE, exit 2 there), a lab run from the page (400, naming the largest
// costs and how the page raises the budget), a drill that changes its
// settings past the budget; the lab playing goes on each time. The page's
// max_cost raises the budget for the lab it runs, and the drills of that
// lab are checked against that budget.
func TestLabsOverTheCostBudgetAreRefused(t *testing.T) {
	heavy, err := labyaml.Parse("heavy.yaml", []byte(heavyLab))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(Options{Lab: heavy}); err == nil || !strings.Contains(err.Error(), "over the budget") || !strings.Contains(err.Error(), "--max-cost N") {
		t.Fatalf("New with a lab of about 30 GiB: %v, want it refused with its costs and --max-cost N", err)
	}
	if _, err := New(Options{Lab: heavy, Budget: assemble.DefaultBudget.Scaled(100)}); err != nil {
		t.Fatalf("New with the budget 100 times: %v", err)
	}

	srv := watching(t, "rr-slow")
	post := func(body map[string]any) (int, string) {
		t.Helper()
		data, _ := json.Marshal(body)
		return inMemory(t, srv, "POST", "/api/lab", string(data))
	}
	playing := func() string {
		t.Helper()
		_, text := inMemory(t, srv, "GET", "/api/source", "")
		var src struct{ File string }
		if err := json.Unmarshal([]byte(text), &src); err != nil {
			t.Fatal(err)
		}
		return src.File
	}
	before := playing()
	code, body := post(map[string]any{"file": "heavy.yaml", "yaml": heavyLab})
	if code != 400 || !strings.Contains(body, "1000 servers x 1000000 cache entries") || !strings.Contains(body, raiseCost) {
		t.Fatalf("POST /api/lab of the heavy lab: %d %s, want 400 naming the caches and %q", code, body, raiseCost)
	}
	if now := playing(); now != before {
		t.Fatalf("after the refusal %s plays, want %s still", now, before)
	}
	for _, bad := range []any{0, -1, "2"} {
		if code, body := post(map[string]any{"file": "heavy.yaml", "yaml": heavyLab, "max_cost": bad}); code != 400 || !strings.Contains(body, "max_cost") {
			t.Errorf("max_cost %v: %d %s, want 400 naming max_cost", bad, code, body)
		}
	}
	if code, body := post(map[string]any{"file": "heavy.yaml", "yaml": heavyLab, "max_cost": 100}); code != 200 {
		t.Fatalf("POST /api/lab of the heavy lab with max_cost 100: %d %s", code, body)
	}
	if now := playing(); now != "heavy.yaml" {
		t.Fatalf("after max_cost 100, %s plays, want heavy.yaml", now)
	}

	// a drill that would fill the caches of a lab without them
	if code, body := post(map[string]any{"file": "light.yaml", "yaml": lightLab}); code != 200 {
		t.Fatalf("POST /api/lab of the light lab: %d %s", code, body)
	}
	drill := `{"action": "set", "set": {"servers.cache.size": "1000000"}}`
	if code, body := inMemory(t, srv, "POST", "/api/chaos", drill); code != 400 || !strings.Contains(body, "over the budget") {
		t.Fatalf("the drill giving 1,000 servers a cache of a million keys: %d %s, want 400 over the budget", code, body)
	}
	if code, body := inMemory(t, srv, "POST", "/api/chaos", `{"action": "set", "set": {"servers.cache.size": "100"}}`); code != 200 {
		t.Fatalf("a drill within the budget: %d %s", code, body)
	}
	if code, body := post(map[string]any{"file": "light.yaml", "yaml": lightLab, "max_cost": 100}); code != 200 {
		t.Fatalf("POST /api/lab of the light lab with max_cost 100: %d %s", code, body)
	}
	if code, body := inMemory(t, srv, "POST", "/api/chaos", drill); code != 200 {
		t.Fatalf("the same drill on the lab run with max_cost 100: %d %s, want it taken", code, body)
	}
}

// POST /api/lab's max_cost is --max-cost's factor: from 8e7 the budget's
// CPU passed what a time.Duration holds and every lab was refused "over
// the budget of -2562047h47m16.854775808s". A large factor saturates and
// the lab plays; a number JSON cannot hold as a float64 (1e400) is a 400
// naming max_cost, as 0 and -1 are.
func TestMaxCostLargeFactorsPlay(t *testing.T) {
	srv := watching(t, "rr-slow")
	for _, f := range []string{"8e7", "1e9", "1e300"} {
		body := `{"file": "heavy.yaml", "yaml": ` + strconvQuote(heavyLab) + `, "max_cost": ` + f + `}`
		if code, text := inMemory(t, srv, "POST", "/api/lab", body); code != 200 {
			t.Errorf("POST /api/lab with max_cost %s: %d %s, want 200", f, code, text)
		}
	}
	body := `{"file": "heavy.yaml", "yaml": ` + strconvQuote(heavyLab) + `, "max_cost": 1e400}`
	if code, text := inMemory(t, srv, "POST", "/api/lab", body); code != 400 || !strings.Contains(text, "max_cost") {
		t.Errorf("POST /api/lab with max_cost 1e400: %d %s, want 400 naming max_cost", code, text)
	}
}

func strconvQuote(s string) string {
	data, _ := json.Marshal(s)
	return string(data)
}
