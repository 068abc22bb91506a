package dash

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/shell/state"
)

// The dashboard's API helpers, shared by the live controller
// (internal/lab) and lab watch (internal/watch): one way to read a body,
// check a drill and answer.

// maxBody bounds a controller request's body (a drill or a scenario name).
const maxBody = 64 << 10

// DecodeBody reads a small strict JSON body (state.DecodeStrict, as every
// admin API does); on bad input it answers 400, on a body over maxBody 413.
func DecodeBody(w http.ResponseWriter, req *http.Request, v any) bool {
	body, err := io.ReadAll(http.MaxBytesReader(w, req.Body, maxBody))
	if err == nil {
		err = state.DecodeStrict(body, v)
	}
	if err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			WriteJSON(w, 413, map[string]any{"error": "request body too large: the limit is 64 KiB", "code": 413})
			return false
		}
		WriteJSON(w, 400, map[string]any{"error": "bad JSON body: " + err.Error(), "code": 400})
		return false
	}
	return true
}

// DecodeDrill reads a POST /api/chaos body as the live controller does
// (strict JSON, at most 64 KiB); on bad input it has answered 400 or 413.
func DecodeDrill(w http.ResponseWriter, req *http.Request) (labfile.Event, bool) {
	var ev labfile.Event
	return ev, DecodeBody(w, req, &ev)
}

// ValidateDrill checks a drill against lab (which it leaves alone) as
// POST /api/chaos does: as a script event of the lab, an add-server
// without a target getting its generated name.
func ValidateDrill(lab *labfile.Lab, ev *labfile.Event) error { return validate(lab.Clone(), ev) }

// validate checks a drill against lab (labfile.CheckDrill: fields, values, a for: within labfile.Bounds.Duration and with an undo); an add-server
// drill without a target gets its generated name (nextServerName).
func validate(lab *labfile.Lab, ev *labfile.Event) error {
	if ev.Action == labfile.ActionAddServer && ev.Target == "" {
		ev.Target = nextServerName(lab)
	}
	return lab.CheckDrill(ev)
}

// nextServerName names an add-server drill that gives no target the way a
// lab file names an unnamed add-server event: s<N+k> for the k-th server
// added to a lab of N, skipping a name already taken (a server added under
// that name by hand, or still running after remove-server).
func nextServerName(lab *labfile.Lab) string {
	taken := map[string]bool{}
	for _, s := range lab.ExpandServers() {
		taken[s.Name] = true
	}
	added := 0
	for _, ev := range lab.Events {
		if ev.Action == "add-server" {
			added++
			taken[ev.Target] = true
		}
	}
	for k := len(lab.ExpandServers()) + added + 1; ; k++ {
		if name := "s" + strconv.Itoa(k); !taken[name] {
			return name
		}
	}
}

// WriteJSON answers with v as JSON, as every handler of the dashboard's API
// does.
func WriteJSON(w http.ResponseWriter, code int, v any) {
	// The server's write timeout counts from the request; an answer that
	// took its time to gather (GET /api/state asks every process) still gets
	// the whole timeout to be written.
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(state.WriteTime))
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
