package dash

import (
	"context"
	"errors"
	"fmt"

	"github.com/lblab/lblab/internal/labfile"
)

// The routes both clocks serve, declared once: the live controller
// (internal/lab/control, the wall clock) and lab watch's server
// (internal/watch, the virtual clock, over HTTP or in the page's wasm
// module) each implement Clock and build their API with Table, which puts
// these routes first and their own after. A route is its method, path, a
// line saying what it does, and a Handle; Typed and TypedBody write a
// handler's decoding, its errors and its answer once, so a handler is a Go
// function from a typed body to a typed answer.

// The paths of the routes both clocks serve (SharedRoutes); lab chaos
// posts its drill to ChaosPath.
const (
	HealthPath    = "/healthz"
	SnapshotPath  = "/api/snapshot"
	StreamPath    = "/api/stream"
	ChaosPath     = "/api/chaos"
	ScenariosPath = "/api/scenarios"
	ScenarioPath  = "/api/scenario"
)

// Route is one route of the dashboard's API.
type Route struct {
	Method string
	Path   string
	Doc    string // what it does, in a line
	H      Handle
	// events, on the stream's route, is the stream HTTP serves (Handler);
	// in memory the route answers H, a refusal (the page's module hands
	// the page each snapshot itself).
	events *Stream
	shared bool
}

// Shared reports whether r is one of SharedRoutes, the routes both clocks
// serve from this one table.
func (r Route) Shared() bool { return r.shared }

// Clock is a dashboard server's side of the routes both clocks serve.
type Clock interface {
	// Snapshots is its snapshot stream: GET /api/snapshot answers the
	// newest, GET /api/stream follows them.
	Snapshots() *Stream
	// Chaos applies a drill, POST /api/chaos's body.
	Chaos(req Request, ev labfile.Event) (Applied, error)
	// Scenarios is GET /api/scenarios: the built-in scenarios, and
	// whether it switches to one.
	Scenarios(req Request) (ScenarioList, error)
	// Scenario switches to the built-in scenario POST /api/scenario names.
	Scenario(req Request, pick ScenarioPick) (Started, error)
}

// Health is GET /healthz's answer.
type Health struct {
	OK bool `json:"ok"`
}

// Applied is POST /api/chaos's answer: the drill as applied (an add-server
// drill with its generated name) and, for a time-boxed one, its undo.
type Applied struct {
	Applied string   `json:"applied"`
	AtS     *float64 `json:"at_s,omitempty"` // on the virtual clock, the instant it joined the script at
	OK      bool     `json:"ok"`
	Undo    string   `json:"undo,omitempty"`      // the drill that ends it ...
	UndoInS float64  `json:"undo_in_s,omitempty"` // ... that many seconds later
}

// ScenarioList is GET /api/scenarios's answer.
type ScenarioList struct {
	Available bool           `json:"available"`         // a switch (POST /api/scenario) works here
	Current   string         `json:"current,omitempty"` // the built-in scenario running, if one is
	Reason    string         `json:"reason,omitempty"`  // why switching does not work on the lab running
	Scenarios []ScenarioInfo `json:"scenarios"`
}

// ScenarioPick is POST /api/scenario's body.
type ScenarioPick struct {
	Name string `json:"name"`
}

// Started is POST /api/scenario's answer: the scenario running now with
// the compare setting it starts with.
type Started struct {
	Narration string    `json:"narration,omitempty"`
	OK        bool      `json:"ok"`
	Playback  *Playback `json:"playback,omitempty"` // on the virtual clock: playing from 0
	Scenario  string    `json:"scenario"`
	Setting   string    `json:"setting"`
}

// SharedRoutes are the routes both clocks serve, answered by c.
func SharedRoutes(c Clock) []Route {
	st := c.Snapshots()
	rs := []Route{
		{Method: "GET", Path: HealthPath, Doc: `{"ok": true} while the server is up`,
			H: Typed(func(Request) (Health, error) { return Health{OK: true}, nil })},
		{Method: "GET", Path: SnapshotPath, Doc: "the newest snapshot: everything the page draws", H: func(Request) Answer {
			data := st.Latest()
			if data == nil {
				return Refuse(503, "no snapshot yet: try again in a moment")
			}
			return Answer{Status: 200, Type: "application/json", NoCache: true, Body: data}
		}},
		{Method: "GET", Path: StreamPath, Doc: "the snapshots as server-sent events, until the client leaves", events: st,
			H: func(Request) Answer {
				return Refuse(404, "GET "+StreamPath+" is a server's: the page's module hands the page each snapshot itself")
			}},
		{Method: "POST", Path: ChaosPath, Doc: "one drill, checked like a script event of the lab, applied now", H: TypedBody(c.Chaos)},
		{Method: "GET", Path: ScenariosPath, Doc: "the built-in scenarios, and whether a switch works here", H: Typed(c.Scenarios)},
		{Method: "POST", Path: ScenarioPath, Doc: "switch to a built-in scenario, its first compare setting applied", H: TypedBody(c.Scenario)},
	}
	for i := range rs {
		rs[i].shared = true
	}
	return rs
}

// Table is a server's API: the routes both clocks serve, answered by c,
// then own, the routes only that clock serves, none at a shared path
// (TestBothClocksServeTheSharedRoutes checks both servers' tables).
func Table(c Clock, own ...Route) []Route {
	table := SharedRoutes(c)
	for _, r := range own {
		r.shared = false
		table = append(table, r)
	}
	return table
}

// InMemory routes table as the page's wasm module is handed requests
// (Answer): every route's Handle, the stream's a refusal.
func InMemory(table []Route) *Routes[Handle] {
	rs := NewRoutes[Handle](true)
	for _, r := range table {
		rs.Add(r.Method, r.Path, r.H)
	}
	return rs
}

// AnswerIn answers req by rs in memory (Routes.Find), as Serve does over
// HTTP: a route's handler, a HEAD as its GET without the body; else the
// API's JSON 404 or 405 (the page's files are none of rs's).
func AnswerIn(rs *Routes[Handle], req Request) Answer {
	m := rs.Find(req.Method, req.Path)
	if !m.OK {
		return m.Refusal
	}
	a := m.H(req)
	if req.Method == "HEAD" {
		a.Body = nil
	}
	return a
}

// Typed is a route answering f's value as JSON (200), or f's error as the
// API's refusal (Reply).
func Typed[Out any](f func(Request) (Out, error)) Handle {
	return func(req Request) Answer { return Reply(f(req)) }
}

// TypedBody is a route that reads its body strictly into an In (WithBody),
// then answers as Typed.
func TypedBody[In, Out any](f func(Request, In) (Out, error)) Handle {
	return WithBody(func(req Request, in In) Answer { return Reply(f(req, in)) })
}

// WithBody is a route that reads its body strictly into an In (Decode: a
// 400 for bad JSON, a 413 over the limit) and hands it to f.
func WithBody[In any](f func(Request, In) Answer) Handle {
	return func(req Request) Answer {
		var in In
		if refusal, ok := Decode(req, &in); !ok {
			return refusal
		}
		return f(req, in)
	}
}

// Reply is a handler's answer: out as JSON (200), or err as the API's
// refusal (RefuseErr).
func Reply[Out any](out Out, err error) Answer {
	if err != nil {
		return RefuseErr(err)
	}
	return JSON(200, out)
}

// statusError is an error the API answers with its own status (Fail).
type statusError struct {
	code int
	err  error
}

func (e *statusError) Error() string { return e.err.Error() }
func (e *statusError) Unwrap() error { return e.err }

// Fail is err answered with status code (RefuseErr: a handler's error is
// otherwise a 400).
func Fail(code int, err error) error { return &statusError{code: code, err: err} }

// Failf is Fail with a message.
func Failf(code int, format string, args ...any) error {
	return Fail(code, fmt.Errorf(format, args...))
}

// RefuseErr is the API's answer to a handler's error: Fail's status, any
// other error a 400.
func RefuseErr(err error) Answer {
	if se, ok := errors.AsType[*statusError](err); ok {
		return Refuse(se.code, se.Error())
	}
	return Refuse(400, err.Error())
}

// Context is the request's context (over HTTP, the request's own: done
// when the client goes away or the server stops); in memory, a background
// one.
func (r Request) Context() context.Context {
	if r.ctx == nil {
		return context.Background()
	}
	return r.ctx
}
