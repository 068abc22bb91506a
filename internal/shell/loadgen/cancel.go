package loadgen

import (
	"time"

	"github.com/valyala/fasthttp"
	"go.uber.org/zap"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/policy"
	"github.com/lblab/lblab/internal/shell/pace"
	"github.com/lblab/lblab/internal/shell/wire"
)

// Cancelling a hedge's loser (docs/model.md, clients: "the loser is
// cancelled if it is still queued"), as the simulator does with its cancel
// event. fasthttp
// cannot abort a request in flight, so the cancellation is a message of its
// own: after the client's hop it is posted to the admin API of the endpoint
// the loser went to (Config.Admins), {"id":N,"attempt":"hedge"}. A balancer
// forwards it to its backends after one more hop; a server removes the
// attempt if it is still queued and answers it 503 "cancelled", which the
// client drops like any answer to an attempt it no longer waits for. An
// endpoint without an admin address gets no cancellation: its loser is
// abandoned and runs to its answer.

// Cancel posts the cancellation of attempt h, from a goroutine, after the
// client's hop. It never blocks the loop.
func (t *target) Cancel(now clock.Instant, h uint64, a *attempt) {
	if len(t.l.cfg.Admins) == 0 || a.Net.ep < 0 {
		return // no admin addresses, or never sent (no eligible server)
	}
	hc := t.adminOf(a.Net.ep)
	if hc == nil {
		return
	}
	seq, try := policy.SplitPick(a.Pick)
	t.l.tr.cancel(hc, wire.NewCancel(seq, try, a.Net.kind).Marshal(), t.rt.FirstHop(t.l.net, a).Delay(a.Pick, policy.ClientOut), t.l.log)
}

// adminOf returns the admin client of endpoint ep, or nil when it has no
// admin address. Built at an endpoint's first cancellation, one client per
// endpoint (client-side, endpoints are added while the run goes on).
func (t *target) adminOf(ep int32) *fasthttp.HostClient {
	for len(t.admins) < len(t.eps) {
		var hc *fasthttp.HostClient
		if addr, ok := t.l.cfg.Admins[t.eps[len(t.admins)].spec.addr]; ok {
			hc = t.l.tr.adminClient(addr)
		}
		t.admins = append(t.admins, hc)
	}
	if ep < 0 || int(ep) >= len(t.admins) {
		return nil
	}
	return t.admins[ep]
}

// adminClient is a pooled client for an admin address. Its connections are
// tracked, so shutdown closes them with the others.
func (tr *transport) adminClient(addr string) *fasthttp.HostClient {
	return &fasthttp.HostClient{Addr: addr, Dial: tr.dialTracked, MaxConns: 64,
		MaxConnWaitTimeout: wire.CancelWait, MaxIdemponentCallAttempts: 1, NoDefaultUserAgentHeader: true}
}

// cancel sleeps hop, then posts body to hc's /admin/cancel, on a goroutine
// the transport waits for at shutdown (a run's last answers still send
// their losers' cancellations before the connections close). It touches no
// loop state; a failed cancellation is only logged (the loser then runs to
// its answer).
func (tr *transport) cancel(hc *fasthttp.HostClient, body []byte, hop time.Duration, log *zap.Logger) {
	if tr.closing.Load() {
		return
	}
	tr.wg.Add(1)
	tr.cancels.Add(1)
	go func() {
		defer tr.wg.Done()
		defer tr.cancels.Done()
		if !tr.waits.Wait(pace.Hop, hop, tr.quit) {
			return
		}
		if tr.closing.Load() {
			return
		}
		if _, err := wire.PostCancel(hc, body, wire.CancelWait, tr.token); err != nil {
			log.Debug("cancel", zap.String("admin", hc.Addr), zap.ByteString("body", body), zap.Error(err))
		}
	}()
}
