// Package policy composes the core parts into the two lifecycles that both
// drivers run: the balancer pipeline (breaker + picker + per-attempt timeout)
// and the client call (deadline, per-attempt timeout, retries with backoff and
// budget, one hedge), and says how an attempt's outcome and its hops read on
// both clocks (ResultOf, Network).
//
// Like the cores it is sans-I/O: the simulator and the live shell implement
// Driver and feed replies and timer firings back in; nothing here reads the
// clock or starts goroutines. Not safe for concurrent use; drivers serialize.
package policy
