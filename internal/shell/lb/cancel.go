package lb

import (
	"sync/atomic"

	"github.com/valyala/fasthttp"
	"go.uber.org/zap"

	"github.com/lblab/lblab/internal/policy"
	"github.com/lblab/lblab/internal/shell/pace"
	"github.com/lblab/lblab/internal/shell/wire"
)

// Hedge cancellation (docs/model.md, clients: "the loser is cancelled if it
// is still queued"). The client posts {"id":N,"attempt":"hedge","try":T}
// here; like the simulator's cancel event it travels one more hop, balancer
// -> server, drawn as the attempt's own, to every backend: the lb does not
// remember where it sent an attempt, and a backend that does not hold it
// cancels nothing. Each backend's copy waits the hop to that backend (to
// its zone, in a lab with zones), so the one that holds the attempt gets it
// when the simulator's cancel event reaches the attempt's server.

// CancelResult is the answer of POST /admin/cancel.
type CancelResult struct {
	ID        uint64 `json:"id"`
	Attempt   string `json:"attempt,omitempty"` // the filter, when one was given
	Cancelled int    `json:"cancelled"`         // queued attempts the backends removed
	Backends  int    `json:"backends"`          // backends asked: present, with an admin address
	Failed    int    `json:"failed"`            // of those, how many gave no count
}

// postCancel checks the body and forwards the cancellation to every
// backend's admin API, each after its hop; it answers once they all have.
func (l *LB) postCancel(ctx *fasthttp.RequestCtx) {
	in, ok := wire.DecodeCancel(ctx)
	if !ok {
		return
	}
	l.mu.Lock()
	net := l.net
	l.mu.Unlock()
	pick := policy.PickNumber(*in.ID, max(in.Try, 1))
	res := l.fanOutCancel(in.Marshal(), func(server string) { // forwarded as it came
		if d := toServer(net, l.cfg.Index, server).Delay(pick, policy.BalancerOut); d > 0 {
			l.cfg.Waits.Sleep(pace.Hop, d)
		}
	})
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

// fanOutCancel posts body to /admin/cancel of every present backend with an
// admin address, in parallel, each after hop(its name) returns, and sums
// their counts.
func (l *LB) fanOutCancel(body []byte, hop func(server string)) CancelResult {
	var cancelled, asked, failed atomic.Int64
	l.each(func(t target) {
		if t.b.adminHC == nil {
			return
		}
		asked.Add(1)
		hop(t.b.Name)
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
