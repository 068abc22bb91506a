package lb

import (
	"sync/atomic"

	"github.com/valyala/fasthttp"
	"go.uber.org/zap"

	"github.com/lblab/lblab/internal/policy"
	"github.com/lblab/lblab/internal/shell/wire"
)

// Hedge cancellation (docs/model.md, clients: "the loser is cancelled if it
// is still queued"). The client posts {"id":N,"attempt":"hedge","try":T}
// here; like the simulator's cancel event it travels one more hop, balancer
// -> server, drawn as the attempt's own, and then reaches every backend: the
// lb does not remember where it sent an attempt, and a backend that does not
// hold it cancels nothing.

// CancelResult is the answer of POST /admin/cancel.
type CancelResult struct {
	ID        uint64 `json:"id"`
	Attempt   string `json:"attempt,omitempty"` // the filter, when one was given
	Cancelled int    `json:"cancelled"`         // queued attempts the backends removed
	Backends  int    `json:"backends"`          // backends asked: present, with an admin address
	Failed    int    `json:"failed"`            // of those, how many gave no count
}

// postCancel checks the body, waits one hop and forwards the cancellation
// to every backend's admin API; it answers once they all have.
func (l *LB) postCancel(ctx *fasthttp.RequestCtx) {
	in, ok := wire.DecodeCancel(ctx)
	if !ok {
		return
	}
	l.cancelHop(*in.ID, in.Try)
	res := l.fanOutCancel(in.Marshal()) // forwarded as it came
	res.ID = *in.ID
	if in.Attempt != nil {
		res.Attempt = *in.Attempt
	}
	if ce := l.log.Check(zap.DebugLevel, "cancel"); ce != nil {
		ce.Write(zap.Uint64("id", res.ID), zap.String("attempt", res.Attempt),
			zap.Int("cancelled", res.Cancelled), zap.Int("failed", res.Failed))
	}
	wire.WriteJSON(ctx, fasthttp.StatusOK, res)
}

// cancelHop sleeps the balancer -> server hop of the cancellation of
// request id's attempt number try, drawn as the attempt's own.
func (l *LB) cancelHop(id uint64, try int) {
	l.mu.Lock()
	a := attempt{net: l.net, pick: policy.PickNumber(id, max(try, 1))}
	l.mu.Unlock()
	l.hop(&a, policy.BalancerOut)
}

// fanOutCancel posts body to /admin/cancel of every present backend with an
// admin address, in parallel, and sums their counts.
func (l *LB) fanOutCancel(body []byte) CancelResult {
	var cancelled, asked, failed atomic.Int64
	l.each(func(t target) {
		if t.b.adminHC == nil {
			return
		}
		asked.Add(1)
		n, err := wire.PostCancel(t.b.adminHC, body, wire.CancelWait, l.cfg.Access.Token)
		if err != nil {
			failed.Add(1)
			l.log.Debug("cancel", zap.String("backend", t.b.Name), zap.Error(err))
			return
		}
		cancelled.Add(int64(n))
	})
	return CancelResult{Cancelled: int(cancelled.Load()), Backends: int(asked.Load()), Failed: int(failed.Load())}
}
