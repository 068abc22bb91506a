package backend

import (
	"encoding/json"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"
	"go.uber.org/zap"

	"github.com/lblab/lblab/internal/assemble"
	"github.com/lblab/lblab/internal/core/balance"
	"github.com/lblab/lblab/internal/policy"
	"github.com/lblab/lblab/internal/shell/pace"
	"github.com/lblab/lblab/internal/shell/state"
	"github.com/lblab/lblab/internal/shell/wire"
)

// Idle announcements, live (join-the-idle-queue, balance.Idler: jiq). When
// the replies of a call on the core leave it up with nothing in flight,
// the backend announces itself idle to one balancer of the tier: the lab
// told it the balancers' admin addresses (POST /admin/balancers, in tier
// order), and balancers.jiq chooses which (balance.JIQ.Sample with the
// announcement's number, policy.Announcement; for join shortest it first
// asks each sampled balancer its idle queue's length, GET
// /admin/idle-queue). Each announcement is a goroutine of its own, never
// on a request's path: it sleeps the server -> balancer hop of its leg
// (policy.IdleLeg; with zones over the link to the balancer's zone, and
// lost across a cut one), as the simulator's announcement events are
// delayed, and POSTs /admin/idle with the server's name. With zones and a
// locality layer it announces to its own zone's balancers
// (policy.AnnounceTo), as the simulator's servers do. The backend announces only
// when an algorithm of its lab's tier keeps an idle queue
// (assemble.Announces), as the simulator's servers do; at most
// maxIdleInFlight are on their way, and one more is dropped and counted.

// maxIdleInFlight bounds the announcements on their way at once.
const maxIdleInFlight = 64

// idleWait bounds each request of an announcement.
const idleWait = 2 * time.Second

// idle is the backend's announcing: the balancers it announces to, the
// goroutines Shutdown waits for, and the counts its state shows.
type idle struct {
	on    bool          // an algorithm of the lab keeps an idle queue
	slots chan struct{} // the announcements on their way
	hc    *fasthttp.Client

	mu     sync.Mutex // guards lbs, seq, closed and the wg.Add that starts one
	lbs    []string   // the balancers' admin addresses, in tier order
	seq    uint64     // announcements started: the next one's number
	closed bool
	wg     sync.WaitGroup

	sent, failed, dropped atomic.Uint64
}

func newIdle(cfg Config) *idle {
	return &idle{on: assemble.Announces(cfg.Lab),
		slots: make(chan struct{}, maxIdleInFlight), hc: &fasthttp.Client{}}
}

// setBalancers sets the balancers to announce to.
func (d *idle) setBalancers(lbs []string) {
	d.mu.Lock()
	d.lbs = append([]string(nil), lbs...)
	d.mu.Unlock()
}

// close stops new announcements and waits for those on their way.
func (d *idle) close() {
	d.mu.Lock()
	d.closed = true
	d.mu.Unlock()
	d.wg.Wait()
}

// idleAfterLocked announces the server when the replies just dispatched
// left it up with nothing in flight. Caller holds b.mu.
func (b *Backend) idleAfterLocked() {
	d := b.idle
	if !d.on || len(b.out) == 0 || !b.core.Up() {
		return
	}
	if queued, busy := b.core.Load(); queued > 0 || busy > 0 {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed || len(d.lbs) == 0 {
		return
	}
	number := policy.Announcement(b.cfg.Name, d.seq)
	d.seq++
	select {
	case d.slots <- struct{}{}:
	default:
		d.dropped.Add(1)
		return
	}
	d.wg.Add(1)
	net := policy.Network{Hop: b.cfg.Hop, Jitter: b.cfg.Jitter, Seed: b.cfg.Seed}
	var zone int32
	if z := b.zones.Load(); z != nil {
		net.Zones, net.Cut, zone = z, b.lab.Network.Partition, b.zoneIn(z)
	}
	go b.announce(number, d.lbs, net, zone, assemble.JIQ(b.lab), assemble.IdleLocal(b.lab))
}

// announce is one announcement's life: the balancer chosen by the lab's
// join rule of the moment (among its zone's when local,
// policy.AnnounceTo), the hop, POST /admin/idle.
func (b *Backend) announce(number uint64, lbs []string, net policy.Network, zone int32, join balance.JIQ, local bool) {
	d := b.idle
	defer d.wg.Done()
	defer func() { <-d.slots }()
	sample := policy.AnnounceTo(join, b.cfg.Seed, number, len(lbs), net.Zones, zone, local, nil)
	to := sample[0]
	if len(sample) > 1 {
		lengths := make([]int, len(sample))
		for i, c := range sample {
			lengths[i] = b.idleQueueLength(lbs[c])
		}
		to = sample[balance.Shortest(lengths)]
	}
	if z := net.Zones; z != nil {
		there := z.Balancer(int32(to))
		if net.Crosses(zone, there) { // across a cut link: lost on the way, as in the simulator
			d.failed.Add(1)
			return
		}
		net = net.Between(zone, there)
	}
	if w := net.Delay(number, policy.IdleLeg); w > 0 {
		b.cfg.Waits.Sleep(pace.Hop, w)
	}
	body, _ := json.Marshal(wire.IdleAnnouncement{Server: b.cfg.Name})
	if err := b.idleCall(fasthttp.MethodPost, lbs[to], wire.IdlePath, body, nil); err != nil {
		d.failed.Add(1)
		b.log.Debug("idle announcement", zap.String("balancer", lbs[to]), zap.Error(err))
		return
	}
	d.sent.Add(1)
}

// idleQueueLength is the length of the idle queue of the balancer at
// admin address addr (the most an int holds when it does not answer, so
// another sampled one is joined).
func (b *Backend) idleQueueLength(addr string) int {
	var q state.IdleQueue
	if err := b.idleCall(fasthttp.MethodGet, addr, wire.IdleQueuePath, nil, &q); err != nil {
		return math.MaxInt
	}
	return q.Length
}

// idleCall sends one request to a balancer's admin API with the lab's
// token, and decodes a 200's body into into (when not nil).
func (b *Backend) idleCall(method, addr, path string, body []byte, into any) error {
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.SetRequestURI("http://" + addr + path)
	req.Header.SetMethod(method)
	wire.Authorize(&req.Header, b.cfg.Access.Token)
	if body != nil {
		req.Header.SetContentType("application/json")
		req.SetBody(body)
	}
	if err := b.idle.hc.DoTimeout(req, resp, idleWait); err != nil {
		return err
	}
	if resp.StatusCode() != fasthttp.StatusOK {
		return fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode(), resp.Body())
	}
	if into == nil {
		return nil
	}
	return json.Unmarshal(resp.Body(), into)
}

// adminBalancers sets the balancers the server announces itself idle to:
// {"balancers": ["ADMIN-ADDR", ...]}, their admin addresses in tier order.
func (b *Backend) adminBalancers(ctx *fasthttp.RequestCtx) bool {
	var in wire.IdleBalancers
	if !wire.DecodeJSON(ctx, &in) {
		return false
	}
	for i, a := range in.Balancers {
		if a == "" {
			wire.Invalid(ctx, "balancers", fmt.Sprintf("balancers[%d] is empty: each is a balancer's admin address, host:port", i))
			return false
		}
	}
	b.idle.setBalancers(in.Balancers)
	wire.WriteJSON(ctx, fasthttp.StatusOK, b.idleState())
	return true
}

// idleState is what the state shows of the announcing (nil when the lab
// has no algorithm that keeps an idle queue).
func (b *Backend) idleState() *state.BackendIdle {
	d := b.idle
	if !d.on {
		return nil
	}
	d.mu.Lock()
	lbs := append([]string(nil), d.lbs...)
	d.mu.Unlock()
	return &state.BackendIdle{Balancers: lbs, Sent: d.sent.Load(), Failed: d.failed.Load(), Dropped: d.dropped.Load()}
}
