package dash

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/labfile/labyaml"
	"github.com/lblab/lblab/internal/shell/state"
)

// The dashboard's API, written once for its two ways in: a handler reads a
// Request and returns an Answer. The live controller (internal/lab) and
// lab watch's server reach it over HTTP (http.go, native builds only); the
// page's wasm module (cmd/labwasm) hands each request in memory, so that
// it links no net/http (nor net/url, crypto/tls, mime/multipart).

// maxBody bounds a request's body (a drill, a scenario name, a lab file):
// room for the largest lab file lab sim reads (labyaml.MaxFileSize) as a
// JSON string, where a newline or a quote takes two bytes, and the rest of
// the body. A bigger file in it is refused by labfile's own size check.
const maxBody = 2*labyaml.MaxFileSize + 64<<10

// errTooLarge is a body over maxBody.
var errTooLarge = errors.New("request body too large")

// Request is one request of the dashboard's API as a handler reads it.
type Request struct {
	Method string
	Path   string // without the query
	Query  string // what follows '?' in the request's target, as sent
	Body   []byte // at most maxBody bytes
	// Gone, when set, reports whether the client has gone away (over
	// HTTP: its request's context is done); a long answer stops then.
	Gone func() bool
	// ctx is the request's context over HTTP (Context).
	ctx context.Context
	// bodyErr is why the body could not be read (errTooLarge: over
	// maxBody); a handler that reads a body (Decode) refuses it.
	bodyErr error
}

// NewRequest is the request for target (a path, maybe with a query) with
// body, as the page's wasm module is handed it: a body over maxBody is
// refused by Decode (413), as over HTTP.
func NewRequest(method, target string, body []byte) Request {
	req := Request{Method: method, Path: target}
	if i := strings.IndexByte(target, '?'); i >= 0 {
		req.Path, req.Query = target[:i], target[i+1:]
	}
	if len(body) > maxBody {
		req.bodyErr = errTooLarge
	} else {
		req.Body = body
	}
	return req
}

// Answer is a handler's answer.
type Answer struct {
	Status      int
	Type        string // Content-Type
	Disposition string // Content-Disposition (a download's file name), if any
	NoCache     bool   // Cache-Control: no-cache
	Allow       string // a 405's Allow header: the methods the path takes
	Body        []byte
}

// Handle is one route of the API.
type Handle func(Request) Answer

// JSON answers with v as JSON, as every handler of the dashboard's API
// does (json.Encoder's text: a newline after it).
func JSON(code int, v any) Answer {
	var buf bytes.Buffer
	_ = json.NewEncoder(&buf).Encode(v)
	return Answer{Status: code, Type: "application/json", Body: buf.Bytes()}
}

// Refusal is the API's error answer's body.
type Refusal struct {
	Code  int    `json:"code"`
	Error string `json:"error"`
}

// Refuse is the API's error answer, {"code": code, "error": msg}.
func Refuse(code int, msg string) Answer { return JSON(code, Refusal{Code: code, Error: msg}) }

// Decode reads req's body as a small strict JSON body into v
// (state.DecodeStrict, as every admin API does); on bad input it returns
// the refusal to answer with: 400, or 413 for a body over maxBody.
func Decode(req Request, v any) (refusal Answer, ok bool) {
	err := req.bodyErr
	if errors.Is(err, errTooLarge) {
		return Refuse(413, fmt.Sprintf("request body too large: the limit is %d KiB", maxBody>>10)), false
	}
	if err == nil {
		err = state.DecodeStrict(req.Body, v)
	}
	if err != nil {
		return Refuse(400, "bad JSON body: "+err.Error()), false
	}
	return Answer{}, true
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
