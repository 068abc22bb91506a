// Package observe names what the live processes report as it happens, as
// small interfaces with a no-op default, Nop.
// internal/metrics implements them with Prometheus counters and histograms.
//
// Only events travel through here. State (queue length, busy workers,
// limits, breaker states, budget tokens) is read from the process at scrape
// time instead of being pushed on every change.
//
// The package is a leaf the cores may import, so it cannot name their enums:
// kinds, statuses and results are passed as the integer values of
// server.Kind, server.Status, policy.Result and policy.Outcome.
package observe

import "time"

// ServerAttempts is told when an attempt ends at an emulated server.
type ServerAttempts interface {
	// AttemptEnded reports an attempt's end: kind is a server.Kind, status a
	// server.Status. queue is how long it waited queued, or < 0 when it never
	// queued (refused, or rejected on arrival); service is its time in
	// service, or < 0 when it was not served.
	AttemptEnded(kind, status int, queue, service time.Duration)
}

// Balancer is told about one balancer's requests.
type Balancer interface {
	// Backend returns the observer of the attempts forwarded to the backend
	// called name. It is called once when the backend joins, so that the
	// per-request calls need no lookup.
	Backend(name string) Forwards
	// NoBackend reports a request answered 503 because no backend was eligible.
	NoBackend()
}

// Forwards is told how a balancer's attempts to one backend went.
type Forwards interface {
	// Answered reports an attempt's end: result is a policy.Result, d the
	// time from forwarding to the answer (the timeout when it timed out).
	Answered(result int, d time.Duration)
	// ProbeSent reports a half-open breaker's probe.
	ProbeSent()
}

// Clients is told about a load generator's targets.
type Clients interface {
	// Requests and Attempts return the observers of one target's requests
	// and attempts; they are called once per target.
	Requests(target string) Requests
	Attempts(target string) Attempts
	// LateSend reports a request started later than the generator allows
	// behind its intended time.
	LateSend()
}

// Requests is told how a target's requests end.
type Requests interface {
	// RequestEnded reports a request's single outcome (a policy.Outcome) and
	// its latency from the intended start.
	RequestEnded(outcome int, latency time.Duration)
	// RequestCrossed reports a request, as it ends, one of whose attempts
	// crossed a zone (a lab with zones).
	RequestCrossed()
}

// Attempts is told about a target's attempts.
type Attempts interface {
	// AttemptSent reports an attempt of kind (a server.Kind).
	AttemptSent(kind int)
	// AttemptAnswered reports a result (a policy.Result) the request used:
	// the answer of a live attempt, or a client-side attempt timeout.
	AttemptAnswered(result int)
	// Wasted reports an attempt answered 200 after nobody waited for it.
	Wasted()
	// Crossed reports an attempt that crossed a zone (a lab with zones).
	Crossed()
}

// Events is told about admin actions and changes a process applies.
type Events interface {
	// Event reports one, by kind (slow, kill, breaker, algorithm, ...).
	Event(kind string)
}

// Nop implements every observer and does nothing.
type Nop struct{}

var (
	_ ServerAttempts = Nop{}
	_ Balancer       = Nop{}
	_ Forwards       = Nop{}
	_ Clients        = Nop{}
	_ Requests       = Nop{}
	_ Attempts       = Nop{}
	_ Events         = Nop{}
)

func (Nop) AttemptEnded(int, int, time.Duration, time.Duration) {}
func (Nop) Backend(string) Forwards                             { return Nop{} }
func (Nop) NoBackend()                                          {}
func (Nop) Answered(int, time.Duration)                         {}
func (Nop) ProbeSent()                                          {}
func (Nop) Requests(string) Requests                            { return Nop{} }
func (Nop) Attempts(string) Attempts                            { return Nop{} }
func (Nop) LateSend()                                           {}
func (Nop) RequestEnded(int, time.Duration)                     {}
func (Nop) AttemptSent(int)                                     {}
func (Nop) RequestCrossed()                                     {}
func (Nop) Crossed()                                            {}
func (Nop) AttemptAnswered(int)                                 {}
func (Nop) Wasted()                                             {}
func (Nop) Event(string)                                        {}
