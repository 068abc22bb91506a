package loadgen

import (
	"github.com/valyala/fasthttp"

	"github.com/lblab/lblab/internal/core/conn"
	"github.com/lblab/lblab/internal/shell/conns"

	"github.com/lblab/lblab/internal/client"
	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/server"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/stats"
)

// onWire is what the loadgen keeps about an attempt: where it went and what
// its answer said.
type onWire struct {
	ep     int32       // endpoint index, -1 until sent
	server string      // X-Lab-Server of its answer, once known
	kind   server.Kind // X-Lab-Attempt as sent (a client-side breaker probe says probe)
}

type attempt = client.Attempt[onWire]

// srvStat is what one target learnt about a server from its answers.
type srvStat struct {
	name            string
	sent, completed uint64
	maxQueue        int
}

// target is one run of the report: its own client runtime (policy, calls,
// recorder and, client-side, balancers) over its endpoints. It is the
// runtime's transport. Only the loop goroutine touches it.
type target struct {
	l       *loop
	idx     int
	name    string
	url     string // what it loads, for the report (Config.describe)
	algo    string
	rt      *client.Runtime[onWire]
	eps     []*endpoint
	tmpls   []template // what attempts send: per endpoint, or a targets file's entries
	bySeq   bool       // request n uses tmpls[n mod len] (a targets file); else its client's balancer's
	servers []srvStat
	byName  map[string]int
	present map[string]int // client-side: the servers in the balancers now, by name (fleet.go)
	log     []report.LogLine
	admins  []*fasthttp.HostClient  // per endpoint, where cancellations go (nil: none); see cancel.go
	live    map[conn.ID]*conns.Conn // the model's connections, when modelled (conns.go)
	// What a load tool counts (report.Load): every HTTP answer by status
	// and its time from the send, every failed exchange by kind.
	codes   map[int]uint64
	kinds   map[string]uint64
	service *stats.Histogram
}

// server returns the stats entry of a server name, adding it if new.
func (t *target) server(name string) *srvStat {
	i, ok := t.byName[name]
	if !ok {
		i = len(t.servers)
		t.servers = append(t.servers, srvStat{name: name})
		t.byName[name] = i
	}
	return &t.servers[i]
}

// onResult hands an attempt's answer to the runtime (as the simulator's
// onReplyAtClient does), after counting it against the server that gave it.
func (t *target) onResult(now clock.Instant, r *result) {
	a := t.rt.Attempt(r.h)
	if a == nil {
		return
	}
	t.l.noteResult(r)
	t.noteAnswer(now, a, r)
	t.noteServer(a, r)
	t.noteConn(now, r)
	r.load.At = now
	t.rt.Answer(now, r.h, r.res, client.Reply{Load: r.load, Server: a.Net.server, Queue: r.queue, Service: r.service, Timed: r.timed})
	t.rt.Release(r.h)
}

// noteAnswer counts an exchange's status code, or the kind of its failure.
func (t *target) noteAnswer(now clock.Instant, a *attempt, r *result) {
	switch {
	case !r.onWire:
	case r.err != nil:
		t.kinds[errorKind(r.err)]++
	default:
		t.codes[r.status]++
		t.service.Record(max(now.Sub(a.Left), 0))
	}
}

// noteServer counts the answer against the server that gave it.
func (t *target) noteServer(a *attempt, r *result) {
	var s *srvStat
	switch {
	case a.Ticket.Valid:
		s = &t.servers[a.Ticket.Server] // counted as sent at the pick
	case r.server != "":
		s = t.server(r.server)
		s.sent++
	default:
		return
	}
	a.Net.server = s.name
	if r.status == 200 {
		s.completed++
	}
	if r.load.Valid && r.load.Queued > s.maxQueue {
		s.maxQueue = r.load.Queued
	}
}

func (t *target) logf(now clock.Instant, text string) {
	t.log = append(t.log, report.LogLine{T: now.Seconds(), Text: text})
}
