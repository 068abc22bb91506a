// Package dnstest is the DNS resolver of the tests of everything that
// follows a name (discover's watcher, the lb, the loadgen, the dashboard):
// the test sets the records, or a failure, between rounds.
package dnstest

import (
	"context"
	"net"
	"slices"
	"sync"
)

// Records answers LookupHost with what the test last set; no records is
// NXDOMAIN, as a name scaled to zero answers. Safe for concurrent use.
type Records struct {
	mu      sync.Mutex
	records []string
	err     error
}

// New returns a resolver that answers records.
func New(records ...string) *Records {
	r := &Records{}
	r.Set(records...)
	return r
}

// Set makes the name resolve to records (none: NXDOMAIN) and clears a failure.
func (r *Records) Set(records ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.records, r.err = slices.Clone(records), nil
}

// Fail makes every lookup fail with err until the next Set.
func (r *Records) Fail(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.err = err
}

// LookupHost is discover.Resolver's.
func (r *Records) LookupHost(_ context.Context, host string) ([]string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return nil, r.err
	}
	if len(r.records) == 0 {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return slices.Clone(r.records), nil
}
