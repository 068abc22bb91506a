package lb

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/valyala/fasthttp"
	"go.uber.org/zap"

	"github.com/lblab/lblab/internal/core/health"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/shell/state"
	"github.com/lblab/lblab/internal/shell/wire"
)

// maxProbeWait caps one health check or load poll, so a hung backend cannot
// stall a round longer than this even with a long interval.
const maxProbeWait = 2 * time.Second

// loadPeriod says whether shared load polling is on and how often.
func (l *LB) loadPeriod() (time.Duration, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.lab.Balancers
	_, oob := l.bal.Reports() // an algorithm weighing servers by the periodic reports
	return max(b.Refresh, time.Millisecond), b.Load == labfile.SharedLoad || oob
}

// checkPeriod says whether active health checks are on and how often.
func (l *LB) checkPeriod() (time.Duration, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	h := l.lab.Balancers.Health
	return h.Interval, h.Enabled
}

// pollLoads asks every present backend's admin API for its load, in
// parallel, and reports each answer to the pipeline as it arrives.
func (l *LB) pollLoads() {
	wait, _ := l.loadPeriod()
	l.each(func(t target) {
		if t.b.adminHC == nil {
			return
		}
		var rep state.Load
		if err := getJSON(t.b.adminHC, t.b.Admin, "/load", min(wait, maxProbeWait), l.cfg.Access.Token, &rep); err != nil {
			l.log.Debug("load poll", zap.String("backend", t.b.Name), zap.Error(err))
			return
		}
		if !rep.Report.Sane() {
			l.log.Debug("load poll: a report out of range", zap.String("backend", t.b.Name), zap.Any("report", rep.Report))
			return
		}
		l.mu.Lock()
		rep.Report.At, rep.Report.Valid = l.nowLocked(), true
		l.bal.Report(t.i, rep.Report)
		l.mu.Unlock()
	})
}

// checkHealth runs one round of active health checks: GET /healthz on each
// backend's data address; core/health decides when fails failures in a row
// take it out of rotation and passes successes put it back.
func (l *LB) checkHealth() {
	wait, _ := l.checkPeriod()
	l.each(func(t target) {
		ok := getJSON(t.b.hc, t.b.Addr, "/healthz", min(wait, maxProbeWait), "", nil) == nil
		l.verdict(t, ok)
	})
}

func (l *LB) verdict(t target, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, h := t.b, l.lab.Balancers.Health
	if !b.present || !h.Enabled {
		return
	}
	_ = l.checks.SetConfig(health.Config{Fails: h.Fails, Passes: h.Passes}) // the lab was validated
	if !l.checks.Observe(t.i, ok) {
		return
	}
	l.setHealthy(t.i, l.checks.Healthy(t.i), l.checks.Describe(t.i, b.Name))
}

// setHealthy changes a backend's verdict and logs it. Caller holds mu.
func (l *LB) setHealthy(i int, ok bool, text string) {
	l.backends[i].healthy = ok
	l.bal.SetHealthy(i, ok)
	l.publish(l.nowLocked(), "health", text)
}

// healAll puts every backend back in rotation (health checks turned off).
// Caller holds mu.
func (l *LB) healAll() {
	for i, b := range l.backends {
		l.checks.Reset(i)
		if !b.healthy {
			l.setHealthy(i, true, health.DescribeOff(b.Name))
		}
	}
}

// each runs f on every present backend in parallel and waits.
func (l *LB) each(f func(target)) {
	var wg sync.WaitGroup
	for _, t := range l.snapshot() {
		wg.Go(func() { f(t) })
	}
	wg.Wait()
}

// getJSON GETs path from addr within wait, presenting token (the lab's,
// or "" for a path that needs none); a non-200 answer is an error. into
// may be nil (only the status matters).
func getJSON(hc *fasthttp.HostClient, addr, path string, wait time.Duration, token string, into any) error {
	return get(hc, addr, path, wait, token, func(body []byte) error {
		if into == nil {
			return nil
		}
		return json.Unmarshal(body, into)
	})
}

// get GETs path from addr within wait, presenting token, and hands a 200
// answer's body to read (valid only during the call); a non-200 answer is
// an error. Over TLS when the backend's client is (network.tls).
func get(hc *fasthttp.HostClient, addr, path string, wait time.Duration, token string, read func(body []byte) error) error {
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	scheme := "http://"
	if hc.IsTLS { // a data address with network.tls
		scheme = "https://"
	}
	req.SetRequestURI(scheme + addr + path)
	wire.Authorize(&req.Header, token)
	if err := hc.DoTimeout(req, resp, wait); err != nil {
		return err
	}
	if resp.StatusCode() != fasthttp.StatusOK {
		return fmt.Errorf("GET %s: status %d", path, resp.StatusCode())
	}
	return read(resp.Body())
}
